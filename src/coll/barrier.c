/* Flat barrier: every member posts the step, then waits until all others have posted it.
 * One flag write per member and one read of every other member's flag; at p = 2 it is a single
 * cache-line round trip. Flags only grow, so nothing is reset and the next collective can start
 * while slower members still read. */
#include "coll/coll.h"
#include "coll/coll_internal.h"

typedef struct barrier_flat {
    uint64_t step;
} barrier_flat_t;

static shmcoll_status_t barrier_flat_init(shmcoll_task_t *task) {
    return SHMCOLL_OK;
}

static shmcoll_status_t barrier_flat_progress(shmcoll_task_t *task) {
    barrier_flat_t *s = SHMCOLL_TASK_STATE(task, barrier_flat_t);
    shmcoll_channel_t *ch = task->ch;
    SHMCOLL_RESUME_BEGIN(&task->pc);
    s->step = shmcoll_channel_next_step(ch);
    shmcoll_channel_post(ch, s->step);
    SHMCOLL_AWAIT(task, &task->pc, shmcoll_channel_test_all(ch, s->step, &task->wait));
    shmcoll_channel_ack(ch, s->step);
    SHMCOLL_RESUME_END(&task->pc);
}

const shmcoll_task_ops_t shmcoll_coll_barrier_flat_ops = {.init = barrier_flat_init,
                                                          .progress = barrier_flat_progress};
