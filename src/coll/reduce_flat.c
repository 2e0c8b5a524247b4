/* Flat reduction for small messages: one step, one synchronisation, for every reduction kind.
 *
 * Every member copies its input into its own slot (the 64-byte inline area of its post flag when
 * it fits, so a reader fetches flag and payload in one cache-line transfer) and posts; then every
 * member that needs the result (all for allreduce, the root for reduce) folds all slots in rank
 * order straight into its receive buffer, or, for reduce_scatter(_block), member j block j of
 * all slots. The fold reads p slots on every member that folds, but for small messages a
 * synchronisation costs far more than reading p small slots, and the identical fold order gives
 * bitwise identical allreduce results everywhere. In place needs no copy aside: all input is
 * copied in before any result is written. */
#include "coll/coll.h"
#include "coll/coll_internal.h"

typedef struct reduce_flat {
    size_t span; /* of the whole input */
    int use_inline;
    int folds;         /* this member folds a result ... */
    size_t first, len; /* ... of these elements */
    uint64_t step;
} reduce_flat_t;

static shmcoll_status_t reduce_flat_init(shmcoll_task_t *task) {
    reduce_flat_t *s = SHMCOLL_TASK_STATE(task, reduce_flat_t);
    const int me = task->ch->rank, root = coll_reduction_root(task);
    if (coll_scatters(task)) { /* member j folds block j */
        const coll_blocks_t blocks = coll_task_blocks(task);
        s->span = shmcoll_reduce_op_span(task->args->op, blocks.n);
        coll_block_at(&blocks, me, &s->first, &s->len);
        s->folds = s->len > 0;
    } else {
        s->span = shmcoll_reduce_op_span(task->args->op, task->args->count);
        s->first = 0;
        s->len = task->args->count;
        s->folds = root == COLL_ALL || root == me;
    }
    s->use_inline = s->span <= SHMCOLL_INLINE_BYTES;
    /* The registry's rules keep it within a buffer; a row named by hand may not. */
    return s->span <= task->ch->chunk ? SHMCOLL_OK : SHMCOLL_ERR_NOT_SUPPORTED;
}

static shmcoll_status_t reduce_flat_progress(shmcoll_task_t *task) {
    reduce_flat_t *s = SHMCOLL_TASK_STATE(task, reduce_flat_t);
    shmcoll_channel_t *ch = task->ch;
    SHMCOLL_RESUME_BEGIN(&task->pc);
    s->step = shmcoll_channel_next_step(ch);
    SHMCOLL_AWAIT(task, &task->pc,
                  shmcoll_channel_test_claim_slot(ch, s->step, s->use_inline, &task->wait));
    coll_copy(task, (void *)coll_slot(ch, ch->rank, s->step, s->use_inline), coll_input(task),
              s->span);
    shmcoll_channel_post(ch, s->step);
    if (s->folds) {
        SHMCOLL_AWAIT(task, &task->pc, shmcoll_channel_test_all(ch, s->step, &task->wait));
        coll_fold_slots(task, task->args->op, s->step, s->use_inline,
                        s->first * task->args->op->extent, s->len, task->args->recvbuf);
    }
    shmcoll_channel_ack(ch, s->step);
    SHMCOLL_RESUME_END(&task->pc);
}

const shmcoll_task_ops_t shmcoll_coll_reduce_flat_ops = {.init = reduce_flat_init,
                                                         .progress = reduce_flat_progress};
