/* Movement-avoiding (MA) reduction (YHCCL, Peng et al., sections 3.3-3.5), for commutative ops.
 *
 * The element range is cut into p blocks; a large message is processed in rounds of one slice
 * (at most a buffer) per block, so the shared working set stays in cache. In round t, stage k,
 * member r works on block j = (r + 1 + k) mod p:
 *   stage 0      r copies its slice of block j from its own input into its buffer;
 *   stage k > 0  r reads member r+1's buffer of the previous stage (the partial result of the
 *                same block) and reduces it with its own input slice straight into its buffer
 *                (C = A op B: the input is read where it lies, never copied in);
 *   stage p-1    r holds block r fully reduced; reduce_scatter writes it straight into r's
 *                receive buffer; allreduce and reduce publish it and the members that need the
 *                result copy the p reduced slices out.
 * Only one slice per block is ever copied in, so the copy volume is the proven minimum 2s, and the
 * data-access volume is s(3p-1) for reduce_scatter, s(5p-1) for allreduce and s(3p+1) for reduce.
 *
 * Our version keeps every buffer single-writer: the chain passes a block from buffer to buffer
 * (each member writes only its own) instead of updating one shared slice in place, at the same
 * DAV. Stages synchronise point to point (r waits for r+1 only). Stages 0 and 1 of each round claim
 * their buffer from every member (the previous round's final slices, or the previous collective,
 * were read by all); later stages only from r-1, the one member that read the buffer since. */
#include "coll/coll_internal.h"

static const char *input_slice(const char *input, const shmcoll_reduce_op_t *op, size_t first,
                               size_t lo) {
    return input + (first + lo) * op->extent;
}

/* Copy the p reduced slices of a round (posted at final_step) into recvbuf. */
static shmcoll_status_t copy_out_round(shmcoll_team_t *team, uint64_t final_step, char *recvbuf,
                                       const shmcoll_reduce_op_t *op, const coll_blocks_t *blocks,
                                       size_t slice, size_t round) {
    shmcoll_channel_t *ch = &team->channel;
    for (int j = 0; j < ch->size; j++) {
        size_t first, len;
        coll_block(blocks, j, &first, &len);
        const size_t lo = round * slice;
        if (lo >= len) continue;
        const size_t n = len - lo < slice ? len - lo : slice;
        SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, j, final_step));
        coll_copy_out(team, recvbuf + (first + lo) * op->extent,
                      shmcoll_channel_buffer(ch, j, final_step), shmcoll_reduce_op_span(op, n));
    }
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_coll_ma_stage(shmcoll_team_t *team, const shmcoll_reduce_op_t *op, int k,
                                       uint64_t step, const char *mine, size_t n, void *out,
                                       int upstream, int downstream) {
    shmcoll_channel_t *ch = &team->channel;
    SHMCOLL_CHECK(k <= 1 ? shmcoll_channel_claim(ch, step)
                         : shmcoll_channel_claim_one(ch, step, downstream));
    if (!out) out = shmcoll_channel_buffer(ch, ch->rank, step);
    if (k == 0) {
        coll_copy(team, out, mine, shmcoll_reduce_op_span(op, n));
    } else {
        SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, upstream, step - 1));
        coll_reduce(team, op, mine, shmcoll_channel_buffer(ch, upstream, step - 1), out, n);
        shmcoll_channel_ack(ch, step - 1);
    }
    shmcoll_channel_post(ch, step);
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_coll_reduce_ma(shmcoll_team_t *team, const void *input, void *recvbuf,
                                        const shmcoll_reduce_op_t *op, const coll_blocks_t *blocks,
                                        coll_result_t result, int root) {
    shmcoll_channel_t *ch = &team->channel;
    const int me = ch->rank, p = ch->size;
    const int upstream = (me + 1) % p, downstream = (me + p - 1) % p;
    const size_t slice = ch->chunk / op->extent;
    if (slice == 0 || !op->commutative) return SHMCOLL_ERR_NOT_SUPPORTED;

    size_t longest = 0;
    for (int j = 0; j < p; j++) {
        size_t first, len;
        coll_block(blocks, j, &first, &len);
        longest = len > longest ? len : longest;
    }
    const size_t rounds = (longest + slice - 1) / slice;
    const int wants_all = result == COLL_RESULT_ALL || (result == COLL_RESULT_ROOT && me == root);
    /* YHCCL Algorithm 2: send and receive buffers plus the shared slices in flight. */
    coll_declare_working_set(team, 2 * shmcoll_reduce_op_span(op, blocks->n),
                             shmcoll_reduce_op_span(op, blocks->n));

    for (size_t round = 0; round < rounds; round++) {
        uint64_t step = 0;
        for (int k = 0; k < p; k++) {
            step = shmcoll_channel_next_step(ch);
            const int j = (me + 1 + k) % p;
            size_t first, len;
            coll_block(blocks, j, &first, &len);
            const size_t lo = round * slice;
            const size_t n = lo < len ? (len - lo < slice ? len - lo : slice) : 0;
            const char *mine = input_slice(input, op, first, lo);

            void *out = k == p - 1 && result == COLL_RESULT_SCATTERED
                            ? (char *)recvbuf + lo * op->extent
                            : NULL;
            SHMCOLL_CHECK(
                shmcoll_coll_ma_stage(team, op, k, step, mine, n, out, upstream, downstream));
        }
        if (wants_all && result != COLL_RESULT_SCATTERED)
            SHMCOLL_CHECK(copy_out_round(team, step, recvbuf, op, blocks, slice, round));
        shmcoll_channel_ack(ch, step);
    }
    return SHMCOLL_OK;
}

/* Reduce (root) or allreduce (root COLL_ALL) through a chain reduction over p equal blocks. */
static shmcoll_status_t
run_equal_blocks(shmcoll_status_t (*reduction)(shmcoll_team_t *, const void *, void *,
                                               const shmcoll_reduce_op_t *, const coll_blocks_t *,
                                               coll_result_t, int),
                 shmcoll_team_t *team, const void *sendbuf, void *recvbuf, size_t count,
                 const shmcoll_reduce_op_t *op, int root) {
    if (!op->commutative || team->size < 2) return SHMCOLL_ERR_NOT_SUPPORTED;
    const coll_blocks_t blocks = coll_blocks_equal(op, count, team->size);
    return reduction(team, sendbuf ? sendbuf : recvbuf, recvbuf, op, &blocks,
                     root == COLL_ALL ? COLL_RESULT_ALL : COLL_RESULT_ROOT, root);
}

shmcoll_status_t shmcoll_coll_reduce_ma_run(shmcoll_team_t *team, const void *sendbuf,
                                            void *recvbuf, size_t count,
                                            const shmcoll_reduce_op_t *op, int root) {
    return run_equal_blocks(shmcoll_coll_reduce_ma, team, sendbuf, recvbuf, count, op, root);
}

shmcoll_status_t shmcoll_coll_reduce_ma2_run(shmcoll_team_t *team, const void *sendbuf,
                                             void *recvbuf, size_t count,
                                             const shmcoll_reduce_op_t *op, int root) {
    return run_equal_blocks(shmcoll_coll_reduce_ma2, team, sendbuf, recvbuf, count, op, root);
}
