/* The driver of composed collectives and the node-phase and network-step primitives they are
 * written with. See compose.h. */
#include "group/compose.h"
#include "base/config.h"
#include "select/team_coll.h"
#include "shm/wait.h"

#include <sched.h>
#include <stdio.h>

const shmcoll_compose_ops_t *shmcoll_group_compose_find(const shmcoll_group_t *group,
                                                        const shmcoll_coll_args_t *args) {
    switch (args->kind) {
    case SHMCOLL_KIND_ALLREDUCE:
        return &shmcoll_compose_allreduce_ops;
    default:
        return NULL;
    }
}

/* Runs a composed collective to its end. */
static shmcoll_status_t compose_run(shmcoll_group_t *group, const shmcoll_coll_args_t *args) {
    const shmcoll_compose_ops_t *ops = shmcoll_group_compose_find(group, args);
    if (!ops) return SHMCOLL_ERR_NOT_SUPPORTED;
    if (group->team->failed) return group->team->failed;
    shmcoll_group_task_t t = {.group = group,
                              .args = args,
                              .ops = ops,
                              .name = shmcoll_coll_kind_name(args->kind),
                              .blocking = 1};
    SHMCOLL_CHECK(ops->init(&t));
    shmcoll_status_t status;
    do /* IN_PROGRESS only when forced to return (SHMCOLL_RESUME_CHECK) */
        status = ops->progress(&t);
    while (status == SHMCOLL_IN_PROGRESS);
    if (ops->fini) ops->fini(&t);
    return status;
}

shmcoll_status_t shmcoll_group_run(shmcoll_group_t *group, const shmcoll_coll_args_t *args) {
    if (group->map.nnodes == 1)
        return group->team ? shmcoll_coll_run(group->team, args) : SHMCOLL_ERR_NOT_SUPPORTED;
    return compose_run(group, args);
}

shmcoll_status_t shmcoll_compose_node_start(shmcoll_group_task_t *t) {
    t->node.nonblocking = !t->blocking;
    shmcoll_status_t status = shmcoll_coll_start(t->group->team, &t->node_args, NULL, &t->node);
    if (status == SHMCOLL_ERR_NOT_SUPPORTED) {
        snprintf(t->group->team->error, sizeof t->group->team->error,
                 "%s across nodes: its node phase (%s) is not supported", t->name,
                 shmcoll_coll_kind_name(t->node_args.kind));
        status = SHMCOLL_ERR_INVALID;
    }
    return status;
}

shmcoll_status_t shmcoll_compose_node_test(shmcoll_group_task_t *t) {
    return t->blocking ? shmcoll_task_wait(&t->node) : shmcoll_task_test(&t->node);
}

shmcoll_status_t shmcoll_compose_net_start(shmcoll_group_task_t *t) {
    shmcoll_net_t *net = &t->group->net;
    t->net_started = shmcoll_shm_now();
    return net->start(net->ctx, &t->net, &t->net_request);
}

shmcoll_status_t shmcoll_compose_net_test(shmcoll_group_task_t *t) {
    shmcoll_net_t *net = &t->group->net;
    shmcoll_team_t *team = t->group->team;
    for (;;) {
        shmcoll_status_t status =
            net->test(net->ctx, t->net_request, team->error, sizeof team->error);
        if (status != SHMCOLL_IN_PROGRESS || !t->blocking) return status;
        /* The MPI library progresses the step inside test; between tests, the process's other
         * tasks (a peer on this node may wait for one of them) and the other processes. */
        shmcoll_engine_progress();
        const double waited = shmcoll_shm_now() - t->net_started;
        if (waited > shmcoll_config()->timeout) {
            snprintf(
                team->error, sizeof team->error,
                "timeout: %s across nodes waited %.0f s for its network step (SHMCOLL_TIMEOUT)",
                t->name, waited);
            return SHMCOLL_ERR_TIMEOUT;
        }
        sched_yield();
    }
}
