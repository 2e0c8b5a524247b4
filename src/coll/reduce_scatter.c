/* Reduce-scatter (and reduce_scatter_block).
 *
 * Commutative ops: movement-avoiding reduction (reduce_ma.c) with the blocks the caller asked
 * for, each finished straight into its owner's receive buffer: DAV s(3p-1), the minimum.
 * Non-commutative ops keep the canonical rank order: in round t every member copies piece t of
 * all p blocks into its buffer (one piece per block) and posts; member j then folds piece t of
 * block j from all buffers, in rank order, straight into its receive buffer.
 * In place, the input sits in the receive buffer where the result overwrites it; since a member's
 * result can overlap its input blocks at other offsets, the input is first copied aside. */
#include "coll/coll.h"
#include "coll/coll_internal.h"

#include <stdlib.h>

static shmcoll_status_t reduce_scatter_canonical(shmcoll_team_t *team, const char *input,
                                                 char *recvbuf, const shmcoll_reduce_op_t *op,
                                                 const coll_blocks_t *blocks) {
    shmcoll_channel_t *ch = &team->channel;
    const int me = ch->rank, p = ch->size;
    const size_t piece = coll_piece_per_member(ch->chunk, p) / op->extent;
    if (piece == 0) return SHMCOLL_ERR_NOT_SUPPORTED;
    size_t longest = 0;
    for (int j = 0; j < p; j++) {
        size_t first, len;
        coll_block(blocks, j, &first, &len);
        longest = len > longest ? len : longest;
    }
    const size_t piece_bytes = piece * op->extent;
    for (size_t round = 0; round < coll_div_ceil(longest, piece); round++) {
        const uint64_t step = shmcoll_channel_next_step(ch);
        char *slots = shmcoll_channel_buffer(ch, me, step);
        SHMCOLL_CHECK(shmcoll_channel_claim(ch, step));
        for (int j = 0; j < p; j++) {
            size_t first, len;
            coll_block(blocks, j, &first, &len);
            const size_t n = coll_round_bytes(len, round, piece);
            coll_copy(team, slots + (size_t)j * piece_bytes,
                      input + (first + round * piece) * op->extent, shmcoll_reduce_op_span(op, n));
        }
        shmcoll_channel_post(ch, step);
        size_t first, len;
        coll_block(blocks, me, &first, &len);
        const size_t n = coll_round_bytes(len, round, piece);
        if (n) {
            SHMCOLL_CHECK(shmcoll_channel_wait_all(ch, step));
            coll_fold_slots(team, op, step, 0, (size_t)me * piece_bytes, n,
                            recvbuf + round * piece_bytes);
        }
        shmcoll_channel_ack(ch, step);
    }
    return SHMCOLL_OK;
}

/* Small messages: one step. Every member copies its whole input into its slot (inline when it
 * fits in 64 bytes) and posts; member j folds block j of all slots in rank order into its
 * receive buffer. A synchronisation costs more than the p-fold replicated reads here. */
#define FLAT_MAX_TOTAL_BYTES (32 * 1024) /* p x input bytes read by the members together */

static int use_flat(const shmcoll_team_t *team, size_t span) {
    return span <= team->channel.chunk && span * (size_t)team->size <= FLAT_MAX_TOTAL_BYTES;
}

static shmcoll_status_t reduce_scatter_flat(shmcoll_team_t *team, const char *input, char *recvbuf,
                                            const shmcoll_reduce_op_t *op,
                                            const coll_blocks_t *blocks) {
    shmcoll_channel_t *ch = &team->channel;
    const size_t span = shmcoll_reduce_op_span(op, blocks->n);
    const int use_inline = span <= SHMCOLL_INLINE_BYTES;
    const uint64_t step = shmcoll_channel_next_step(ch);
    SHMCOLL_CHECK(shmcoll_channel_claim(ch, step));
    coll_copy(team, (void *)coll_slot(ch, ch->rank, step, use_inline), input, span);
    shmcoll_channel_post(ch, step);
    size_t first, len;
    coll_block(blocks, ch->rank, &first, &len);
    if (len) {
        SHMCOLL_CHECK(shmcoll_channel_wait_all(ch, step));
        coll_fold_slots(team, op, step, use_inline, first * op->extent, len, recvbuf);
    }
    shmcoll_channel_ack(ch, step);
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_reduce_scatter(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                        const size_t *counts, const shmcoll_reduce_op_t *op) {
    shmcoll_status_t status = coll_begin(team, "reduce_scatter");
    if (status != SHMCOLL_OK) return status;
    const int p = team->size;
    size_t firsts[p]; /* not malloc: a local failure here would make members disagree */
    size_t total = 0;
    for (int j = 0; j < p; j++) firsts[j] = total, total += counts[j];
    const coll_blocks_t blocks = {.n = total, .counts = counts, .firsts = firsts};

    const int flat = use_flat(team, shmcoll_reduce_op_span(op, total));
    const char *input = sendbuf ? sendbuf : recvbuf;
    char *aside = NULL;
    if (!sendbuf && total && !flat) { /* flat copies all input in before writing any result */
        aside = malloc(shmcoll_reduce_op_span(op, total));
        if (!aside) {
            snprintf(team->error, sizeof team->error,
                     "reduce_scatter: no memory for an in-place copy of %zu elements", total);
            return coll_end(team, SHMCOLL_ERR_NO_MEMORY, NULL);
        }
        coll_copy(team, aside, recvbuf, shmcoll_reduce_op_span(op, total));
        input = aside;
    }
    const char *algo = "none";
    if (total == 0) {
        status = SHMCOLL_OK;
    } else if (flat) {
        status = reduce_scatter_flat(team, input, recvbuf, op, &blocks);
        algo = "flat";
    } else if (op->commutative && p > 1 && op->extent <= team->channel.chunk) {
        status =
            shmcoll_coll_reduce_ma(team, input, recvbuf, op, &blocks, COLL_RESULT_SCATTERED, 0);
        algo = "ma";
    } else {
        status = reduce_scatter_canonical(team, input, recvbuf, op, &blocks);
        algo = "canonical";
    }
    free(aside);
    return coll_end(team, status, algo);
}

shmcoll_status_t shmcoll_reduce_scatter_block(shmcoll_team_t *team, const void *sendbuf,
                                              void *recvbuf, size_t count,
                                              const shmcoll_reduce_op_t *op) {
    size_t counts[team->size];
    for (int j = 0; j < team->size; j++) counts[j] = count;
    return shmcoll_reduce_scatter(team, sendbuf, recvbuf, counts, op);
}
