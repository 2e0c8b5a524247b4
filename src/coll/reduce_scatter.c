/* Reduce-scatter (and reduce_scatter_block).
 *
 * Commutative ops: movement-avoiding reduction (reduce_ma.c) with the blocks the caller asked
 * for, each finished straight into its owner's receive buffer: DAV s(3p-1), the minimum.
 * Non-commutative ops keep the canonical rank order: in round t every member copies piece t of
 * all p blocks into its buffer (one piece per block) and posts; member j then folds piece t of
 * block j from all buffers, in rank order, straight into its receive buffer.
 * In place, the input sits in the receive buffer where the result overwrites it; since a member's
 * result can overlap its input blocks at other offsets, the input is first copied aside.
 *
 * Small messages (the registry's rule, select/registry.c: the whole input fits a buffer and p
 * times it stays within 32 KiB) take one step instead, the flat algorithm of reduce_flat.c.
 *
 * As tasks: reduce_scatter gives recvcounts[j] elements to block j, reduce_scatter_block `count`
 * to each (coll_task_blocks). Block offsets are not stored: the canonical rounds sum the counts
 * as they walk the blocks. The in-place copy is a coll_aside_t (allocated by init, made at the
 * start of each run, freed by fini). */
#include "coll/coll.h"
#include "coll/coll_internal.h"

#include <stdlib.h>

/* ---- Canonical order -------------------------------------------------------------------- */

typedef struct rs_canonical {
    coll_aside_t in;
    coll_blocks_t blocks;
    size_t piece; /* elements per block and round */
    size_t rounds;
    size_t mine; /* elements of this member's block */
    size_t round;
    uint64_t step;
} rs_canonical_t;

static shmcoll_status_t rs_canonical_init(shmcoll_task_t *task) {
    rs_canonical_t *s = SHMCOLL_TASK_STATE(task, rs_canonical_t);
    const shmcoll_reduce_op_t *op = task->args->op;
    const int p = task->ch->size;
    s->piece = coll_piece_per_member(task->ch->chunk, p) / op->extent;
    if (s->piece == 0) return SHMCOLL_ERR_NOT_SUPPORTED;
    s->blocks = coll_task_blocks(task);
    size_t longest = 0;
    for (int j = 0; j < p; j++) {
        const size_t len = coll_block_len(&s->blocks, j);
        longest = len > longest ? len : longest;
    }
    s->rounds = coll_div_ceil(longest, s->piece);
    s->mine = coll_block_len(&s->blocks, task->ch->rank);
    return coll_aside_init(task, &s->in, shmcoll_reduce_op_span(op, s->blocks.n));
}

/* Piece s->round of every block into this member's buffer of the step, piece j at j pieces. */
static void copy_pieces_in(shmcoll_task_t *task, const rs_canonical_t *s) {
    const shmcoll_reduce_op_t *op = task->args->op;
    const size_t piece_bytes = s->piece * op->extent;
    char *slots = shmcoll_channel_buffer(task->ch, task->ch->rank, s->step);
    size_t first = 0;
    for (int j = 0; j < task->ch->size; j++) {
        const size_t len = coll_block_len(&s->blocks, j);
        const size_t n = coll_round_bytes(len, s->round, s->piece);
        coll_copy(task, slots + (size_t)j * piece_bytes,
                  s->in.input + (first + s->round * s->piece) * op->extent,
                  shmcoll_reduce_op_span(op, n));
        first += len;
    }
}

static shmcoll_status_t rs_canonical_progress(shmcoll_task_t *task) {
    rs_canonical_t *s = SHMCOLL_TASK_STATE(task, rs_canonical_t);
    shmcoll_channel_t *ch = task->ch;
    const shmcoll_reduce_op_t *op = task->args->op;
    SHMCOLL_RESUME_BEGIN(&task->pc);
    coll_aside_copy(task, &s->in);
    for (s->round = 0; s->round < s->rounds; s->round++) {
        s->step = shmcoll_channel_next_step(ch);
        SHMCOLL_AWAIT(task, &task->pc, shmcoll_channel_test_claim(ch, s->step, &task->wait));
        copy_pieces_in(task, s);
        shmcoll_channel_post(ch, s->step);
        if (coll_round_bytes(s->mine, s->round, s->piece)) {
            SHMCOLL_AWAIT(task, &task->pc, shmcoll_channel_test_all(ch, s->step, &task->wait));
            const size_t piece_bytes = s->piece * op->extent;
            coll_fold_slots(task, op, s->step, 0, (size_t)ch->rank * piece_bytes,
                            coll_round_bytes(s->mine, s->round, s->piece),
                            (char *)task->args->recvbuf + s->round * piece_bytes);
        }
        shmcoll_channel_ack(ch, s->step);
    }
    SHMCOLL_RESUME_END(&task->pc);
}

static void rs_canonical_fini(shmcoll_task_t *task) {
    free(SHMCOLL_TASK_STATE(task, rs_canonical_t)->in.copy);
}

const shmcoll_task_ops_t shmcoll_coll_reduce_scatter_canonical_ops = {
    .init = rs_canonical_init, .progress = rs_canonical_progress, .fini = rs_canonical_fini};
