/* Dissemination barrier (Hensgen, Finkel and Manber; Hoefler et al.) over the step protocol.
 *
 * Round j is one step: every member posts it, then waits until member rank - 2^j (mod p) has
 * posted it. After round j a member has heard, transitively, from the 2^(j+1) - 1 members behind
 * it, so after ceil(log2 p) rounds it knows that everybody has arrived. The barrier is folded
 * into the step counters (Jocksch et al., section 3.1): the flags are the post flags every
 * collective uses, they only grow, and nothing is reset, so the next collective may start while
 * slower members still read. Steps and synchronisations: ceil(log2 p), one flag write and one
 * wait per member and round (the flat barrier's p-1 reads of one step become log2 p reads of
 * different steps, so no flag is read by more than one member per round); DAV 0. */
#include "coll/coll.h"
#include "coll/coll_internal.h"
#include "patterns/dissem.h"

typedef struct barrier_dissem {
    int rounds;
    int j; /* the round in hand */
    uint64_t step;
} barrier_dissem_t;

static shmcoll_status_t barrier_dissem_init(shmcoll_task_t *task) {
    barrier_dissem_t *s = SHMCOLL_TASK_STATE(task, barrier_dissem_t);
    s->rounds = shmcoll_pattern_dissem_rounds(task->ch->size);
    return SHMCOLL_OK;
}

static shmcoll_status_t barrier_dissem_progress(shmcoll_task_t *task) {
    barrier_dissem_t *s = SHMCOLL_TASK_STATE(task, barrier_dissem_t);
    shmcoll_channel_t *ch = task->ch;
    SHMCOLL_RESUME_BEGIN(&task->pc);
    if (s->rounds == 0) return SHMCOLL_OK;
    for (s->j = 0; s->j < s->rounds; s->j++) {
        s->step = shmcoll_channel_next_step(ch);
        shmcoll_channel_post(ch, s->step);
        SHMCOLL_AWAIT(
            task, &task->pc,
            shmcoll_channel_test_post(ch, shmcoll_pattern_dissem_from(ch->size, s->j, ch->rank),
                                      s->step, &task->wait));
    }
    shmcoll_channel_ack(ch, s->step);
    SHMCOLL_RESUME_END(&task->pc);
}

const shmcoll_task_ops_t shmcoll_coll_barrier_dissem_ops = {.init = barrier_dissem_init,
                                                            .progress = barrier_dissem_progress};
