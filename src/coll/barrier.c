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

/* Root-first barrier: the flat barrier, but a member that arrives after rank 0 leaves after it.
 *
 * Who leaves a barrier first decides what the call after it costs. The flat and dissemination
 * barriers let the last member to arrive out at once and the others a cache-line transfer later;
 * in a loop of a bcast or scatter from rank 0 after each barrier (OSU's), rank 0, whose call
 * returns first, arrives first, so the others leave first and wait in the next call for rank 0's
 * data: two transfers where it would have been there already had rank 0 left first. A tree that
 * releases from rank 0 (knomial) gives that order always, but where all arrive together (after
 * an allreduce) it makes the others wait a transfer more than the flat barrier does.
 *
 * So each member posts its arrival (one step, as the flat barrier); rank 0 leaves once every
 * member has posted it, acknowledging the step, which is the release. Another member that, on
 * arriving, sees rank 0's arrival posted already waits for that acknowledgement, so leaves after
 * rank 0; one that does not waits, as in the flat barrier, for every member's arrival. Either wait
 * ends only after every member arrived, whichever way the look at rank 0's flag went. Steps: 1;
 * synchronisation: rank 0 reads p - 1 flags, the others rank 0's two or p - 1; DAV 0. */
static shmcoll_status_t barrier_root_first_progress(shmcoll_task_t *task) {
    barrier_flat_t *s = SHMCOLL_TASK_STATE(task, barrier_flat_t); /* the flat barrier's state */
    shmcoll_channel_t *ch = task->ch;
    SHMCOLL_RESUME_BEGIN(&task->pc);
    if (ch->size == 1) return SHMCOLL_OK;
    s->step = shmcoll_channel_next_step(ch);
    shmcoll_channel_post(ch, s->step);
    /* a resumed wait jumps back to its test, inside its branch: the look is not taken again */
    if (ch->rank != 0 && shmcoll_channel_test_post(ch, 0, s->step, &task->wait) == SHMCOLL_OK)
        SHMCOLL_AWAIT(task, &task->pc, shmcoll_channel_test_done_by(ch, 0, s->step, &task->wait));
    else
        SHMCOLL_AWAIT(task, &task->pc, shmcoll_channel_test_all(ch, s->step, &task->wait));
    shmcoll_channel_ack(ch, s->step); /* at rank 0: the release */
    SHMCOLL_RESUME_END(&task->pc);
}

const shmcoll_task_ops_t shmcoll_coll_barrier_root_first_ops = {
    .init = barrier_flat_init, .progress = barrier_root_first_progress};
