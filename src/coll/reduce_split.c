/* Split reduction for large messages, pipelined in chunks.
 *
 * Per chunk, two steps:
 *   step 1  every member copies its chunk of input into its own buffer and posts;
 *   step 2  the chunk is cut into p parts (cache-line aligned); member j folds part j of all p
 *           buffers, in rank order, into its other buffer and posts; then every member that needs
 *           the result (all for allreduce, the root for reduce) copies the p reduced parts out.
 * The reduction work is spread over all members instead of replicated, each element is reduced
 * exactly once (so allreduce results are identical everywhere), and the two buffer parities let
 * the copy-in of chunk k+1 overlap the copy-out of chunk k on other members. The shared working
 * set is 2 * p * chunk, independent of the message size.
 *
 * As a task: reduce and allreduce alike (the root, or COLL_ALL), the chunk in hand and its two
 * steps kept in the state; a chunk's parts are recomputed from it after each wait. */
#include "coll/coll.h"
#include "coll/coll_internal.h"

typedef struct reduce_split {
    size_t per_chunk;
    int wants_result;
    size_t first;               /* of the chunk in hand */
    uint64_t in_step, out_step; /* its two steps */
    int r;                      /* copy-out: the member whose part is copied */
} reduce_split_t;

static shmcoll_status_t reduce_split_init(shmcoll_task_t *task) {
    reduce_split_t *s = SHMCOLL_TASK_STATE(task, reduce_split_t);
    const shmcoll_reduce_op_t *op = task->args->op;
    const int root = coll_reduction_root(task);
    s->per_chunk = task->ch->chunk / op->extent;
    if (s->per_chunk == 0) return SHMCOLL_ERR_NOT_SUPPORTED; /* an element larger than a buffer */
    s->wants_result = root == COLL_ALL || root == task->ch->rank;
    coll_declare_working_set(task, 2 * shmcoll_reduce_op_span(op, task->args->count),
                             shmcoll_reduce_op_span(op, task->args->count));
    return SHMCOLL_OK;
}

/* Part r of the chunk in hand: elements [*lo, *lo + *len) of the chunk. */
static void chunk_part(const shmcoll_task_t *task, const reduce_split_t *s, int r, size_t *lo,
                       size_t *len) {
    const size_t count = task->args->count;
    const size_t n = count - s->first < s->per_chunk ? count - s->first : s->per_chunk;
    const coll_blocks_t parts = coll_blocks_equal(task->args->op, n, task->ch->size);
    coll_block(&parts, r, lo, len);
}

static size_t chunk_part_len(const shmcoll_task_t *task, const reduce_split_t *s, int r) {
    size_t lo, len;
    chunk_part(task, s, r, &lo, &len);
    return len;
}

static shmcoll_status_t reduce_split_progress(shmcoll_task_t *task) {
    reduce_split_t *s = SHMCOLL_TASK_STATE(task, reduce_split_t);
    shmcoll_channel_t *ch = task->ch;
    const shmcoll_reduce_op_t *op = task->args->op;
    const size_t count = task->args->count;
    const int me = ch->rank, p = ch->size;
    size_t lo, len;
    SHMCOLL_RESUME_BEGIN(&task->pc);
    for (s->first = 0; s->first < count; s->first += s->per_chunk) {
        s->in_step = shmcoll_channel_next_step(ch);
        SHMCOLL_AWAIT(task, &task->pc, shmcoll_channel_test_claim(ch, s->in_step, &task->wait));
        len = count - s->first < s->per_chunk ? count - s->first : s->per_chunk;
        coll_copy(task, shmcoll_channel_buffer(ch, me, s->in_step),
                  coll_input(task) + s->first * op->extent, shmcoll_reduce_op_span(op, len));
        shmcoll_channel_post(ch, s->in_step);

        s->out_step = shmcoll_channel_next_step(ch);
        SHMCOLL_AWAIT(task, &task->pc, shmcoll_channel_test_claim(ch, s->out_step, &task->wait));
        if (chunk_part_len(task, s, me)) {
            SHMCOLL_AWAIT(task, &task->pc, shmcoll_channel_test_all(ch, s->in_step, &task->wait));
            chunk_part(task, s, me, &lo, &len);
            coll_fold_slots(task, op, s->in_step, 0, lo * op->extent, len,
                            shmcoll_channel_buffer(ch, me, s->out_step));
        }
        shmcoll_channel_ack(ch, s->in_step);
        shmcoll_channel_post(ch, s->out_step);

        if (s->wants_result) {
            for (s->r = 0; s->r < p; s->r++) {
                if (!chunk_part_len(task, s, s->r)) continue;
                SHMCOLL_AWAIT(task, &task->pc,
                              shmcoll_channel_test_post(ch, s->r, s->out_step, &task->wait));
                chunk_part(task, s, s->r, &lo, &len);
                coll_copy_out(task, (char *)task->args->recvbuf + (s->first + lo) * op->extent,
                              shmcoll_channel_buffer(ch, s->r, s->out_step),
                              shmcoll_reduce_op_span(op, len));
            }
        }
        shmcoll_channel_ack(ch, s->out_step);
    }
    SHMCOLL_RESUME_END(&task->pc);
}

const shmcoll_task_ops_t shmcoll_coll_reduce_split_ops = {.init = reduce_split_init,
                                                          .progress = reduce_split_progress};
