/* Hierarchical barrier: arrival flows up the topology hierarchy and the release flows down it, so
 * each NUMA/socket group synchronises locally and only its leader crosses the boundary (XHC's
 * hierarchy applied to synchronisation). Built from the hierarchical reduce (a one-byte BOR to
 * member 0: it completes only once every member has arrived) and the hierarchical bcast (a
 * one-byte release from member 0): 2 x levels dependent hops, no data to speak of. The task runs
 * the two one after the other, their states side by side in its own. */
#include "coll/algos_hier.h"
#include "coll/coll.h"
#include "coll/coll_internal.h"

typedef struct barrier_hier {
    shmcoll_reduce_op_t op;
    uint8_t arrival, release;
    int up_pc, down_pc; /* resume points of the two halves */
    shmcoll_coll_hier_reduce_t up;
    shmcoll_coll_hier_bcast_t down;
} barrier_hier_t;

static shmcoll_status_t barrier_hier_init(shmcoll_task_t *task) {
    barrier_hier_t *s = SHMCOLL_TASK_STATE(task, barrier_hier_t);
    s->op = (shmcoll_reduce_op_t){.kernel = shmcoll_kernel_reduce(SHMCOLL_DT_UINT8, SHMCOLL_OP_BOR),
                                  .size = 1,
                                  .extent = 1,
                                  .commutative = 1,
                                  .name = "barrier-arrival"};
    s->up_pc = s->down_pc = 0;
    SHMCOLL_CHECK(
        shmcoll_coll_hier_reduce_setup(task, &s->up, &s->arrival, &s->release, 1, &s->op, 0));
    const shmcoll_status_t status =
        shmcoll_coll_hier_bcast_setup(task, &s->down, &s->release, 1, 0);
    if (status != SHMCOLL_OK) shmcoll_coll_hier_reduce_done(task, &s->up);
    return status;
}

static void barrier_hier_fini(shmcoll_task_t *task) {
    barrier_hier_t *s = SHMCOLL_TASK_STATE(task, barrier_hier_t);
    shmcoll_coll_hier_reduce_done(task, &s->up);
    shmcoll_coll_hier_bcast_done(task, &s->down);
}

/* The halves' own resume points keep where each stands; task->pc says which one runs. Each half
 * waits in place itself when the task is blocking. */
static shmcoll_status_t barrier_hier_progress(shmcoll_task_t *task) {
    barrier_hier_t *s = SHMCOLL_TASK_STATE(task, barrier_hier_t);
    switch (task->pc) {
    case 0:
        s->arrival = s->release = 0;
        task->pc = 1;
        /* fall through */
    case 1:
        SHMCOLL_CHECK(shmcoll_coll_hier_reduce_run(task, &s->up, &s->up_pc));
        task->pc = 2;
        /* fall through */
    default:
        SHMCOLL_CHECK(shmcoll_coll_hier_bcast_run(task, &s->down, &s->down_pc));
        task->pc = 0;
        return SHMCOLL_OK;
    }
}

const shmcoll_task_ops_t shmcoll_coll_barrier_hier_ops = {
    .init = barrier_hier_init, .progress = barrier_hier_progress, .fini = barrier_hier_fini};
