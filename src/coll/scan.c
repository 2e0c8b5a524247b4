/* Inclusive and exclusive scan, pipelined in chunks.
 *
 * Per chunk, one step: every member copies its chunk into its own slot (the inline area for
 * payloads of at most 64 bytes) and posts; member r then folds the slots of members 0..r (scan)
 * or 0..r-1 (exscan) in rank order straight into its receive buffer. One synchronisation per
 * chunk and the canonical order MPI requires for these order-dependent operations.
 *
 * As a task: scan and exscan alike (the kind says which members to fold), the chunk in hand, its
 * step and the member awaited kept in the state. */
#include "coll/coll.h"
#include "coll/coll_internal.h"

typedef struct scan_flat {
    int use_inline;
    int members; /* folded: 0..members-1 */
    size_t per_chunk;
    size_t first; /* of the chunk in hand */
    uint64_t step;
    int r; /* the member awaited */
} scan_flat_t;

static shmcoll_status_t scan_flat_init(shmcoll_task_t *task) {
    scan_flat_t *s = SHMCOLL_TASK_STATE(task, scan_flat_t);
    const shmcoll_reduce_op_t *op = task->args->op;
    const size_t count = task->args->count;
    const int me = task->ch->rank;
    s->members = task->args->kind == SHMCOLL_KIND_SCAN ? me + 1 : me;
    s->use_inline = shmcoll_reduce_op_span(op, count) <= SHMCOLL_INLINE_BYTES;
    s->per_chunk = s->use_inline ? count : task->ch->chunk / op->extent;
    return s->per_chunk ? SHMCOLL_OK : SHMCOLL_ERR_NOT_SUPPORTED;
}

/* Elements of the chunk in hand. */
static size_t chunk_len(const shmcoll_task_t *task, const scan_flat_t *s) {
    const size_t count = task->args->count;
    return count - s->first < s->per_chunk ? count - s->first : s->per_chunk;
}

static shmcoll_status_t scan_flat_progress(shmcoll_task_t *task) {
    scan_flat_t *s = SHMCOLL_TASK_STATE(task, scan_flat_t);
    shmcoll_channel_t *ch = task->ch;
    const shmcoll_reduce_op_t *op = task->args->op;
    const int me = ch->rank;
    SHMCOLL_RESUME_BEGIN(&task->pc);
    for (s->first = 0; s->first < task->args->count; s->first += s->per_chunk) {
        s->step = shmcoll_channel_next_step(ch);
        SHMCOLL_AWAIT(task, &task->pc,
                      shmcoll_channel_test_claim_slot(ch, s->step, s->use_inline, &task->wait));
        coll_copy(task, (void *)coll_slot(ch, me, s->step, s->use_inline),
                  coll_input(task) + s->first * op->extent,
                  shmcoll_reduce_op_span(op, chunk_len(task, s)));
        shmcoll_channel_post(ch, s->step);
        for (s->r = 0; s->r < s->members; s->r++)
            if (s->r != me)
                SHMCOLL_AWAIT(task, &task->pc,
                              shmcoll_channel_test_post(ch, s->r, s->step, &task->wait));
        if (s->members > 0)
            coll_fold_first(task, op, s->step, s->use_inline, 0, chunk_len(task, s), s->members,
                            (char *)task->args->recvbuf + s->first * op->extent);
        shmcoll_channel_ack(ch, s->step);
    }
    SHMCOLL_RESUME_END(&task->pc);
}

const shmcoll_task_ops_t shmcoll_coll_scan_flat_ops = {.init = scan_flat_init,
                                                       .progress = scan_flat_progress};
