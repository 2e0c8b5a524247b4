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
 * times it stays within 32 KiB) take one step instead, the flat algorithm below.
 *
 * As tasks: reduce_scatter gives recvcounts[j] elements to block j, reduce_scatter_block `count`
 * to each (coll_task_blocks). Block offsets are not stored: the flat algorithm needs only its
 * own, taken once; the canonical rounds sum the counts as they walk the blocks. The in-place copy
 * is allocated by init (a failure is SHMCOLL_ERR_NO_MEMORY from init, which the engine publishes
 * to the others), made at the start of each run and freed by fini. */
#include "coll/coll.h"
#include "coll/coll_internal.h"

#include <stdlib.h>

/* ---- Canonical order -------------------------------------------------------------------- */

typedef struct rs_canonical {
    const char *input; /* sendbuf, or the copy aside */
    char *aside;       /* in place: the input's copy (malloc), else NULL */
    coll_blocks_t blocks;
    size_t piece; /* elements per block and round */
    size_t rounds;
    size_t mine; /* elements of this member's block */
    size_t round;
    uint64_t step;
} rs_canonical_t;

_Static_assert(sizeof(rs_canonical_t) <= SHMCOLL_TASK_STATE_BYTES,
               "reduce_scatter canonical state too large");

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
    s->input = coll_input(task);
    s->aside = NULL;
    if (!task->args->sendbuf) {
        const size_t span = shmcoll_reduce_op_span(op, s->blocks.n);
        s->aside = malloc(span ? span : 1);
        if (!s->aside) return SHMCOLL_ERR_NO_MEMORY;
        s->input = s->aside;
    }
    return SHMCOLL_OK;
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
                  s->input + (first + s->round * s->piece) * op->extent,
                  shmcoll_reduce_op_span(op, n));
        first += len;
    }
}

static shmcoll_status_t rs_canonical_progress(shmcoll_task_t *task) {
    rs_canonical_t *s = SHMCOLL_TASK_STATE(task, rs_canonical_t);
    shmcoll_channel_t *ch = task->ch;
    const shmcoll_reduce_op_t *op = task->args->op;
    SHMCOLL_RESUME_BEGIN(&task->pc);
    if (s->aside)
        coll_copy(task, s->aside, task->args->recvbuf, shmcoll_reduce_op_span(op, s->blocks.n));
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
    free(SHMCOLL_TASK_STATE(task, rs_canonical_t)->aside);
}

const shmcoll_task_ops_t shmcoll_coll_reduce_scatter_canonical_ops = {
    .init = rs_canonical_init, .progress = rs_canonical_progress, .fini = rs_canonical_fini};

/* ---- Small messages: one step ------------------------------------------------------------
 * Every member copies its whole input into its slot (inline when it fits in 64 bytes) and posts;
 * member j folds block j of all slots in rank order into its receive buffer. A synchronisation
 * costs more than the p-fold replicated reads here. In place needs no copy aside: all input is
 * copied in before any result is written. */

typedef struct rs_flat {
    size_t span; /* of the whole input */
    int use_inline;
    size_t first, len; /* this member's block */
    uint64_t step;
} rs_flat_t;

_Static_assert(sizeof(rs_flat_t) <= SHMCOLL_TASK_STATE_BYTES,
               "reduce_scatter flat state too large");

static shmcoll_status_t rs_flat_init(shmcoll_task_t *task) {
    rs_flat_t *s = SHMCOLL_TASK_STATE(task, rs_flat_t);
    const coll_blocks_t blocks = coll_task_blocks(task);
    s->span = shmcoll_reduce_op_span(task->args->op, blocks.n);
    /* The registry's rule keeps it within a buffer; a row named by hand may not. */
    if (s->span > task->ch->chunk) return SHMCOLL_ERR_NOT_SUPPORTED;
    s->use_inline = s->span <= SHMCOLL_INLINE_BYTES;
    coll_block_at(&blocks, task->ch->rank, &s->first, &s->len);
    return SHMCOLL_OK;
}

static shmcoll_status_t rs_flat_progress(shmcoll_task_t *task) {
    rs_flat_t *s = SHMCOLL_TASK_STATE(task, rs_flat_t);
    shmcoll_channel_t *ch = task->ch;
    SHMCOLL_RESUME_BEGIN(&task->pc);
    s->step = shmcoll_channel_next_step(ch);
    SHMCOLL_AWAIT(task, &task->pc, shmcoll_channel_test_claim(ch, s->step, &task->wait));
    coll_copy(task, (void *)coll_slot(ch, ch->rank, s->step, s->use_inline), coll_input(task),
              s->span);
    shmcoll_channel_post(ch, s->step);
    if (s->len) {
        SHMCOLL_AWAIT(task, &task->pc, shmcoll_channel_test_all(ch, s->step, &task->wait));
        coll_fold_slots(task, task->args->op, s->step, s->use_inline,
                        s->first * task->args->op->extent, s->len, task->args->recvbuf);
    }
    shmcoll_channel_ack(ch, s->step);
    SHMCOLL_RESUME_END(&task->pc);
}

const shmcoll_task_ops_t shmcoll_coll_reduce_scatter_flat_ops = {.init = rs_flat_init,
                                                                 .progress = rs_flat_progress};

/* ---- Movement-avoiding: the chain of reduce_ma.c, finishing in the receive buffers -------- */

const shmcoll_task_ops_t shmcoll_coll_reduce_scatter_ma_ops = {.init = shmcoll_coll_ma_init,
                                                               .progress = shmcoll_coll_ma_progress,
                                                               .fini = shmcoll_coll_ma_fini};
