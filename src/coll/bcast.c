/* Pipelined broadcast through the root's single-writer slots.
 *
 * The root copies the message chunk by chunk into its two buffers (or the 64-byte inline area of
 * its post flag for tiny messages, its eager slot for messages that fit one) and posts each chunk;
 * every other member copies the chunk out and acknowledges. With two buffer parities the root
 * fills chunk k+1 while the others still read chunk k, so root and readers copy concurrently and
 * the segment never grows with the message; a root of a stream of small bcasts runs up to
 * SHMCOLL_EAGER_SLOTS calls ahead (shm/channel.h). */
#include "coll/coll.h"
#include "coll/coll_internal.h"

typedef struct bcast_pipeline {
    size_t piece;
    shmcoll_slot_t slot;
    size_t offset; /* of the chunk in hand */
    uint64_t step;
} bcast_pipeline_t;

static shmcoll_status_t bcast_pipeline_init(shmcoll_task_t *task) {
    bcast_pipeline_t *s = SHMCOLL_TASK_STATE(task, bcast_pipeline_t);
    const size_t bytes = task->args->count;
    const shmcoll_channel_t *ch = task->ch;
    s->slot = coll_sender_slot(ch, bytes, SHMCOLL_INLINE_BYTES);
    s->piece = coll_slot_bytes(ch, s->slot, SHMCOLL_INLINE_BYTES);
    coll_declare_working_set(task, 2 * bytes, bytes); /* YHCCL Algorithm 3 */
    return SHMCOLL_OK;
}

static shmcoll_status_t bcast_pipeline_progress(shmcoll_task_t *task) {
    bcast_pipeline_t *s = SHMCOLL_TASK_STATE(task, bcast_pipeline_t);
    shmcoll_channel_t *ch = task->ch;
    const int root = task->args->root;
    char *buf = task->args->recvbuf;
    const size_t bytes = task->args->count;
    SHMCOLL_RESUME_BEGIN(&task->pc);
    for (s->offset = 0; s->offset < bytes; s->offset += s->piece) {
        s->step = shmcoll_channel_next_step(ch);
        if (ch->rank == root) {
            SHMCOLL_AWAIT(task, &task->pc,
                          shmcoll_channel_test_claim_slot(ch, s->step, s->slot, &task->wait));
            coll_copy(task, (void *)coll_slot(ch, root, s->step, s->slot), buf + s->offset,
                      coll_round_bytes(bytes, s->offset / s->piece, s->piece));
            shmcoll_channel_post(ch, s->step);
        } else {
            SHMCOLL_AWAIT(task, &task->pc,
                          shmcoll_channel_test_post(ch, root, s->step, &task->wait));
            coll_copy_out(task, buf + s->offset, coll_slot(ch, root, s->step, s->slot),
                          coll_round_bytes(bytes, s->offset / s->piece, s->piece));
        }
        shmcoll_channel_ack(ch, s->step);
    }
    SHMCOLL_RESUME_END(&task->pc);
}

const shmcoll_task_ops_t shmcoll_coll_bcast_pipeline_ops = {.init = bcast_pipeline_init,
                                                            .progress = bcast_pipeline_progress};
