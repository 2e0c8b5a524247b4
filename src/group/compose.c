/* The driver of composed collectives and the node-phase and network-step primitives they are
 * written with. See compose.h. */
#include "group/compose.h"
#include "base/config.h"
#include "group/allreduce_plan.h"
#include "select/team_coll.h"
#include "select/tune.h"
#include "shm/wait.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const shmcoll_compose_ops_t *shmcoll_group_compose_find(const shmcoll_group_t *group,
                                                        const shmcoll_coll_args_t *args) {
    switch (args->kind) {
    case SHMCOLL_KIND_BARRIER:
        return &shmcoll_compose_barrier_ops;
    case SHMCOLL_KIND_BCAST:
        return &shmcoll_compose_bcast_ops;
    case SHMCOLL_KIND_REDUCE:
        return &shmcoll_compose_reduce_ops;
    case SHMCOLL_KIND_ALLREDUCE:
        return &shmcoll_compose_allreduce_ops;
    case SHMCOLL_KIND_REDUCE_SCATTER:
    case SHMCOLL_KIND_REDUCE_SCATTER_BLOCK:
        return &shmcoll_compose_reduce_scatter_ops;
    case SHMCOLL_KIND_SCAN:
    case SHMCOLL_KIND_EXSCAN:
        return &shmcoll_compose_scan_ops;
    case SHMCOLL_KIND_ALLGATHER:
    case SHMCOLL_KIND_ALLGATHERV:
        return &shmcoll_compose_allgather_ops;
    case SHMCOLL_KIND_GATHER:
    case SHMCOLL_KIND_GATHERV:
        return &shmcoll_compose_gather_ops;
    case SHMCOLL_KIND_SCATTER:
    case SHMCOLL_KIND_SCATTERV:
        return &shmcoll_compose_scatter_ops;
    case SHMCOLL_KIND_ALLTOALL:
    case SHMCOLL_KIND_ALLTOALLV:
        return &shmcoll_compose_alltoall_ops;
    default:
        return NULL;
    }
}

/* Whether the call moves nothing on any member, from values every member shares (the
 * v-variants whose sizes only some members know always run). */
static int moves_nothing(const shmcoll_group_t *group, const shmcoll_coll_args_t *args) {
    switch (args->kind) {
    case SHMCOLL_KIND_BARRIER:
    case SHMCOLL_KIND_GATHERV:
    case SHMCOLL_KIND_SCATTERV:
    case SHMCOLL_KIND_ALLTOALLV:
        return 0;
    case SHMCOLL_KIND_REDUCE_SCATTER:
    case SHMCOLL_KIND_ALLGATHERV:
        for (int q = 0; q < group->size; q++)
            if (args->recvcounts[q]) return 0;
        return 1;
    default:
        return args->count == 0;
    }
}

/* The end of a composed collective on this member. A failure leaves the node team failed: a
 * member that stops in the middle of a composition (a network step that failed on a leader)
 * would otherwise leave its node's other members waiting in the next node phase. */
static shmcoll_status_t compose_end(shmcoll_group_task_t *t, shmcoll_status_t status) {
    shmcoll_team_t *team = t->group->team;
    if (status == SHMCOLL_OK || status == SHMCOLL_IN_PROGRESS || team->failed) return status;
    if (!team->error[0])
        snprintf(team->error, sizeof team->error, "%s across nodes: rank %d failed (%s)", t->name,
                 t->group->rank, shmcoll_status_string(status));
    return shmcoll_team_fail(team, status);
}

static shmcoll_status_t group_drain(shmcoll_group_t *group);

/* The registry's rows of allreduce's forms across nodes, by shmcoll_allreduce_form_t (their
 * nodes_form is the form's number + 1). */
static const char *const allreduce_forms[] = {"one-leader", "shares", "segments"};

/* The form `row` names (its number + 1, as the registry's nodes_form), or 0. */
static int allreduce_form_named(const char *row) {
    for (int f = 0; row && f < (int)(sizeof allreduce_forms / sizeof *allreduce_forms); f++)
        if (!strcmp(row, allreduce_forms[f])) return f + 1;
    return 0;
}

/* What a tuning rule asks for this call across nodes (SHMCOLL_TUNE, tuning files with their
 * "# nodes:" sections; select/tune.h): NOT_SUPPORTED for the MPI library's own algorithm (@mpi),
 * else OK with *form the form of the composition the rule names (0: the plan decides). A node
 * team's algorithm in the rule does not serve a call across nodes: the chain goes on past it. The
 * rules and the arguments they see are the same on every member. */
static shmcoll_status_t tuned(const shmcoll_group_t *group, const shmcoll_coll_args_t *args,
                              int *form) {
    *form = 0;
    const shmcoll_tune_rule_t *rule = shmcoll_tune_lookup(
        shmcoll_tune_current(), args->kind, shmcoll_coll_shared_bytes(group->size, args),
        group->size, group->map.nnodes);
    for (int i = 0; rule && i < rule->nalgos; i++) {
        const shmcoll_algo_t *a = rule->algos[i];
        if (a->nodes_form) {
            *form = a->nodes_form;
            return SHMCOLL_OK;
        }
        if (!a->ops) return SHMCOLL_ERR_NOT_SUPPORTED; /* @mpi */
    }
    return SHMCOLL_OK;
}

__thread const char *shmcoll_group_declined __attribute__((tls_model("initial-exec")));

/* Checks a composed collective and runs its init in `t`: OK (t ready, or t->ops NULL when the
 * call moves nothing), NOT_SUPPORTED (every member alike) or a failure. */
static shmcoll_status_t compose_start(shmcoll_group_t *group, const shmcoll_coll_args_t *args,
                                      int blocking, shmcoll_group_task_t *t) {
    shmcoll_group_declined = NULL;
    const shmcoll_compose_ops_t *ops = shmcoll_group_compose_find(group, args);
    if (!ops) return shmcoll_compose_decline("across nodes: no composition of this collective");
    int form;
    if (tuned(group, args, &form) == SHMCOLL_ERR_NOT_SUPPORTED)
        return shmcoll_compose_decline("across nodes: tuned to the MPI library's own (@mpi)");
    if (!form && args->kind == SHMCOLL_KIND_ALLREDUCE) /* a form the measurement tries */
        form = allreduce_form_named(args->row);
    if (group->team->failed) return group->team->failed;
    const shmcoll_coll_kind_info_t *info = &shmcoll_coll_kinds[args->kind];
    if (info->rooted && (args->root < 0 || args->root >= group->size)) return SHMCOLL_ERR_INVALID;
    if (info->reduces && (!args->op || args->op->size == 0 || args->op->extent < args->op->size ||
                          (!args->op->kernel && !args->op->user_fn)))
        return shmcoll_compose_decline("across nodes: no kernel for this op and datatype");
    *t = (shmcoll_group_task_t){.group = group,
                                .args = args,
                                .name = shmcoll_coll_kind_name(args->kind),
                                .form = form,
                                .blocking = blocking};
    if (moves_nothing(group, args)) return SHMCOLL_OK;
    shmcoll_status_t status = ops->init(t);
    if (status == SHMCOLL_OK) t->ops = ops;
    return status == SHMCOLL_ERR_NOT_SUPPORTED ? status : compose_end(t, status);
}

/* Runs t's progress once (a blocking t to its end); on the end, fini and the failure rule. */
static shmcoll_status_t compose_step(shmcoll_group_task_t *t) {
    shmcoll_status_t status;
    shmcoll_shm_pace_t pace = {0};
    for (;;) {
        /* A polling composition's network step moves only while it is tested. */
        status = t->polls ? shmcoll_compose_net_poll(t) : SHMCOLL_OK;
        if (status == SHMCOLL_OK || status == SHMCOLL_IN_PROGRESS) status = t->ops->progress(t);
        /* A blocking t that does not poll returns IN_PROGRESS only when forced to
         * (SHMCOLL_RESUME_CHECK). */
        if (status != SHMCOLL_IN_PROGRESS || !t->blocking) break;
        if (t->polls) {
            shmcoll_engine_progress();
            shmcoll_shm_pace(&pace);
        }
    }
    shmcoll_shm_pace_end(&pace);
    if (status == SHMCOLL_IN_PROGRESS) return status;
    status = compose_end(t, status);
    /* After a failure (the node team has failed), node phases still queued end at once: none
     * may stay on a lane once t is gone. */
    for (int i = 0; i < SHMCOLL_COMPOSE_PIPE; i++)
        while (t->pipe[i].status == SHMCOLL_IN_PROGRESS) (void)shmcoll_task_test(&t->pipe[i]);
    while (t->node.status == SHMCOLL_IN_PROGRESS) (void)shmcoll_task_test(&t->node);
    if (t->ops->fini) t->ops->fini(t);
    t->ops = NULL;
    return status;
}

shmcoll_status_t shmcoll_group_run(shmcoll_group_t *group, const shmcoll_coll_args_t *args) {
    if (group->map.nnodes == 1)
        return group->team ? shmcoll_coll_run(group->team, args) : SHMCOLL_ERR_NOT_SUPPORTED;
    SHMCOLL_CHECK(group_drain(group));
    shmcoll_group_task_t t;
    SHMCOLL_CHECK(compose_start(group, args, 1, &t));
    return t.ops ? compose_step(&t) : SHMCOLL_OK;
}

shmcoll_status_t shmcoll_group_run_chosen(shmcoll_group_t *group, const shmcoll_coll_args_t *args,
                                          shmcoll_coll_choice_t *choice) {
    if (group->map.nnodes == 1)
        return group->team ? shmcoll_coll_run_chosen(group->team, args, choice)
                           : SHMCOLL_ERR_NOT_SUPPORTED;
    return shmcoll_group_run(group, args);
}

/* ---- Non-blocking --------------------------------------------------------------------------
 * On one node the collective is a task of the node team, ordered with the others by its lane.
 * Across nodes a composition starts its node phases as it goes, so two compositions in flight on
 * one group would queue their phases in an order that depends on timing, which differs between
 * members: a group runs its non-blocking compositions one after the other, and a collective
 * started on it first completes those in flight (every member started them in the same order,
 * so every member can). */

/* Whether the group's network steps that nothing overlaps are the MPI library's blocking
 * collectives (shmcoll_compose_net_start). */
static int net_blocks(const shmcoll_group_t *group) {
    return group->net.run && !shmcoll_config()->net_bounded;
}

/* Whether a blocking call's network step is the MPI library's blocking collective (what
 * shmcoll_compose_net_may_block answers for its composition). */
static int blocking_steps_block(const shmcoll_group_t *group, const shmcoll_coll_args_t *args) {
    return net_blocks(group) && shmcoll_compose_call_bytes(group, args) <= group->net.block_max;
}

/* Across nodes, allreduce's form for a blocking call as its plan chooses it, by row name; NULL
 * where the composition has one form. */
static const char *composed_pick(const shmcoll_group_t *group, const shmcoll_coll_args_t *args) {
    if (args->kind != SHMCOLL_KIND_ALLREDUCE || !args->op) return NULL;
    shmcoll_allreduce_plan_t plan;
    shmcoll_allreduce_plan(args->count, args->op->extent, group->net.nchannels,
                           blocking_steps_block(group, args), 0, &plan);
    return allreduce_forms[plan.form];
}

/* Across nodes, whether allreduce's form `name` is another way for a blocking call: one leader
 * always, the leaders' shares whole where network steps block and in segments where they do not
 * (the way each overlaps), with two leaders per node or more. */
static int composed_row_serves(const shmcoll_group_t *group, const shmcoll_coll_args_t *args,
                               const char *name) {
    if (args->kind != SHMCOLL_KIND_ALLREDUCE || !args->op) return 0;
    if (!strcmp(name, allreduce_forms[SHMCOLL_ALLREDUCE_ONE_LEADER])) return 1;
    const char *shared =
        allreduce_forms[blocking_steps_block(group, args) ? SHMCOLL_ALLREDUCE_SHARES
                                                          : SHMCOLL_ALLREDUCE_SEGMENTS];
    return group->net.nchannels >= 2 && !strcmp(name, shared);
}

const char *shmcoll_group_pick(shmcoll_group_t *group, const shmcoll_coll_args_t *args,
                               const char **inner) {
    *inner = NULL;
    if (group->map.nnodes != 1) return composed_pick(group, args);
    return group->team ? shmcoll_coll_pick(group->team, args, inner) : NULL;
}

int shmcoll_group_row_serves(shmcoll_group_t *group, const shmcoll_coll_args_t *args,
                             const char *name) {
    if (group->map.nnodes != 1) return composed_row_serves(group, args, name);
    return group->team && shmcoll_coll_row_serves(group->team, args, name);
}

int shmcoll_group_takes_mpi(shmcoll_group_t *group, const shmcoll_coll_args_t *args) {
    int form;
    if (group->map.nnodes != 1) return tuned(group, args, &form) == SHMCOLL_ERR_NOT_SUPPORTED;
    return group->team && shmcoll_coll_takes_mpi(group->team, args);
}

int shmcoll_group_starts(const shmcoll_group_t *group) {
    return group->map.nnodes == 1 || !net_blocks(group);
}

shmcoll_status_t shmcoll_group_start(shmcoll_group_t *group, const shmcoll_coll_args_t *args,
                                     shmcoll_group_op_t *op) {
    op->group = group;
    op->t = NULL;
    op->status = SHMCOLL_IN_PROGRESS;
    if (group->map.nnodes == 1) {
        op->task.nonblocking = 1;
        shmcoll_status_t status = shmcoll_coll_start(group->team, args, NULL, &op->task);
        /* Done at once, on no lane (a started task is another thread's to advance now: its
         * status is read only under its lane's claim). */
        if (status == SHMCOLL_OK && !op->task.lane) op->status = SHMCOLL_OK;
        return status;
    }
    /* A blocking network step (a blocking MPI call) cannot progress compositions in flight,
     * which other nodes' members may wait for behind it: with blocking steps, non-blocking
     * collectives across nodes go to the MPI library, which progresses them inside its calls. */
    if (!shmcoll_group_starts(group)) return SHMCOLL_ERR_NOT_SUPPORTED;
    SHMCOLL_CHECK(group_drain(group));
    shmcoll_group_task_t *t = calloc(1, sizeof *t);
    if (!t) return SHMCOLL_ERR_NO_MEMORY;
    shmcoll_status_t status = compose_start(group, args, 0, t);
    if (status != SHMCOLL_OK || !t->ops) {
        free(t);
        if (status == SHMCOLL_OK) op->status = SHMCOLL_OK;
        return status;
    }
    op->t = t;
    group->inflight = op;
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_group_test(shmcoll_group_op_t *op) {
    if (op->status != SHMCOLL_IN_PROGRESS) return op->status;
    if (!op->t) return op->status = shmcoll_task_test(&op->task);
    const shmcoll_status_t status = compose_step(op->t);
    if (status == SHMCOLL_IN_PROGRESS) return status;
    if (op->group->inflight == op) op->group->inflight = NULL;
    free(op->t);
    op->t = NULL;
    return op->status = status;
}

shmcoll_status_t shmcoll_group_wait(shmcoll_group_op_t *op) {
    if (op->status == SHMCOLL_IN_PROGRESS && !op->t)
        return op->status = shmcoll_task_wait(&op->task);
    shmcoll_status_t status;
    shmcoll_shm_pace_t pace = {0};
    while ((status = shmcoll_group_test(op)) == SHMCOLL_IN_PROGRESS) {
        shmcoll_engine_progress();
        shmcoll_shm_pace(&pace);
    }
    shmcoll_shm_pace_end(&pace);
    return status;
}

/* Completes the group's composition in flight, if any (see above). */
static shmcoll_status_t group_drain(shmcoll_group_t *group) {
    shmcoll_group_op_t *op = group->inflight;
    if (!op) return SHMCOLL_OK;
    /* Its status is its owner's to learn; a failure has failed the team, which the new
     * collective then reports. */
    (void)shmcoll_group_wait(op);
    return group->team->failed;
}

/* Starts a node phase; one the node team cannot serve is a failure here (see compose.h). */
static shmcoll_status_t node_start(shmcoll_group_task_t *t, shmcoll_task_t *task,
                                   const shmcoll_coll_args_t *args, int nonblocking) {
    task->nonblocking = nonblocking;
    shmcoll_status_t status = shmcoll_coll_start(t->group->team, args, NULL, task);
    if (status == SHMCOLL_ERR_NOT_SUPPORTED) {
        snprintf(t->group->team->error, sizeof t->group->team->error,
                 "%s across nodes: its node phase (%s) is not supported", t->name,
                 shmcoll_coll_kind_name(args->kind));
        status = SHMCOLL_ERR_INVALID;
    }
    return status;
}

shmcoll_status_t shmcoll_compose_node_start(shmcoll_group_task_t *t) {
    return node_start(t, &t->node, &t->node_args, !t->blocking || t->polls);
}

shmcoll_status_t shmcoll_compose_node_test(shmcoll_group_task_t *t) {
    return t->blocking && !t->polls ? shmcoll_task_wait(&t->node) : shmcoll_task_test(&t->node);
}

shmcoll_status_t shmcoll_compose_pipe_start(shmcoll_group_task_t *t, int i) {
    return node_start(t, &t->pipe[i], &t->pipe_args[i], 1);
}

shmcoll_status_t shmcoll_compose_pipe_test(shmcoll_group_task_t *t, int i) {
    return shmcoll_task_test(&t->pipe[i]);
}

shmcoll_status_t shmcoll_compose_net_start(shmcoll_group_task_t *t, int overlapped) {
    shmcoll_net_t *net = &t->group->net;
    t->net_started = shmcoll_shm_now();
    /* The MPI library's blocking collective where it may be used: Open MPI's blocking forms are
     * two to three times faster than its non-blocking ones (measured, over TCP and shared memory).
     * A blocking and a non-blocking collective never match (MPI 3.1 section 5.12), so the form is
     * chosen from what every leader shares: the call blocks, and no leader overlaps this step
     * with a node phase. */
    if (!overlapped && shmcoll_compose_net_may_block(t)) {
        shmcoll_team_t *team = t->group->team;
        t->net_status = net->run(net->ctx, &t->net, team->error, sizeof team->error);
        return t->net_status;
    }
    shmcoll_status_t status = net->start(net->ctx, &t->net, &t->net_request);
    t->net_status = status == SHMCOLL_OK ? SHMCOLL_IN_PROGRESS : status;
    return status;
}

size_t shmcoll_compose_call_bytes(const shmcoll_group_t *group, const shmcoll_coll_args_t *args) {
    const size_t bytes = shmcoll_coll_shared_bytes(group->size, args);
    switch (args->kind) {
    case SHMCOLL_KIND_ALLGATHER:
    case SHMCOLL_KIND_ALLGATHERV:
    case SHMCOLL_KIND_GATHER:
    case SHMCOLL_KIND_SCATTER:
    case SHMCOLL_KIND_ALLTOALL: /* a block per rank (allgatherv: the longest) */
        return bytes * (size_t)group->size;
    default:
        return bytes;
    }
}

int shmcoll_compose_net_may_block(const shmcoll_group_task_t *t) {
    return t->blocking && !t->polls && net_blocks(t->group) &&
           shmcoll_compose_call_bytes(t->group, t->args) <= t->group->net.block_max;
}

shmcoll_status_t shmcoll_compose_net_poll(shmcoll_group_task_t *t) {
    if (t->net_status != SHMCOLL_IN_PROGRESS) return t->net_status;
    shmcoll_net_t *net = &t->group->net;
    shmcoll_team_t *team = t->group->team;
    t->net_status = net->test(net->ctx, t->net_request, team->error, sizeof team->error);
    const double waited = shmcoll_shm_now() - t->net_started;
    if (t->net_status == SHMCOLL_IN_PROGRESS && waited > shmcoll_config()->timeout) {
        /* The request stays with the MPI library (a collective cannot be cancelled); the node
         * team fails, so no further step is started on it. */
        snprintf(team->error, sizeof team->error,
                 "timeout: %s across nodes waited %.0f s for its network step (SHMCOLL_TIMEOUT)",
                 t->name, waited);
        t->net_status = SHMCOLL_ERR_TIMEOUT;
    }
    return t->net_status;
}

shmcoll_status_t shmcoll_compose_net_test(shmcoll_group_task_t *t) {
    shmcoll_shm_pace_t pace = {0};
    for (;;) {
        const shmcoll_status_t status = shmcoll_compose_net_poll(t);
        if (status != SHMCOLL_IN_PROGRESS || !t->blocking || t->polls) {
            shmcoll_shm_pace_end(&pace);
            return status;
        }
        /* The MPI library progresses the step inside test; between tests, the process's other
         * tasks (a peer on this node may wait for one of them) and the other processes. */
        shmcoll_engine_progress();
        shmcoll_shm_pace(&pace);
    }
}

/* ---- Helpers of the compositions -------------------------------------------------------- */

void shmcoll_compose_copy(shmcoll_group_task_t *t, void *dst, const void *src, size_t bytes) {
    if (!bytes || dst == src) return;
    memcpy(dst, src, bytes);
    __atomic_fetch_add(&t->group->team->dav, 2 * (uint64_t)bytes, __ATOMIC_RELAXED);
}

void shmcoll_compose_reduce(shmcoll_group_task_t *t, const shmcoll_reduce_op_t *op, const void *a,
                            const void *b, void *out, size_t n) {
    if (!n) return;
    if (op->kernel) {
        op->kernel(a, b, out, n);
    } else {
        shmcoll_compose_copy(t, out, b, shmcoll_reduce_op_span(op, n));
        op->user_fn(a, out, n, op->user_ctx);
    }
    __atomic_fetch_add(&t->group->team->dav, 3 * (uint64_t)n * op->size, __ATOMIC_RELAXED);
}

shmcoll_status_t shmcoll_compose_alloc(shmcoll_group_task_t *t, void **buf, size_t bytes) {
    *buf = shmcoll_compose_malloc(bytes);
    if (*buf) return SHMCOLL_OK;
    snprintf(t->group->team->error, sizeof t->group->team->error,
             "%s across nodes: rank %d has no memory for %zu bytes of scratch", t->name,
             t->group->rank, bytes);
    return shmcoll_team_fail(t->group->team, SHMCOLL_ERR_NO_MEMORY);
}

shmcoll_status_t shmcoll_compose_fail(shmcoll_group_task_t *t, shmcoll_status_t status,
                                      const char *what) {
    snprintf(t->group->team->error, sizeof t->group->team->error, "%s across nodes: rank %d: %s",
             t->name, t->group->rank, what);
    return shmcoll_team_fail(t->group->team, status);
}

size_t shmcoll_compose_node_packed(const shmcoll_group_map_t *map, const size_t *cnt,
                                   size_t uniform, size_t *node_total, size_t *node_off,
                                   size_t *pos) {
    size_t at = 0;
    for (int n = 0; n < map->nnodes; n++) {
        if (node_off) node_off[n] = at;
        const size_t start = at;
        for (int i = map->node_first[n]; i < map->node_first[n + 1]; i++) {
            const int q = map->members[i];
            if (pos) pos[q] = at;
            at += cnt ? cnt[q] : uniform;
        }
        if (node_total) node_total[n] = at - start;
    }
    return at;
}

int shmcoll_compose_contiguous(int size, const size_t *cnt, const size_t *displ, size_t uniform,
                               size_t *base) {
    *base = 0;
    if (!cnt) return 1;
    size_t prefix = 0;
    int found = 0;
    for (int q = 0; q < size; q++) {
        if (cnt[q]) {
            if (!found) {
                if (displ[q] < prefix) return 0;
                *base = displ[q] - prefix;
                found = 1;
            } else if (displ[q] != *base + prefix) {
                return 0;
            }
        }
        prefix += cnt[q];
    }
    return 1;
}

int shmcoll_compose_all_blocks(const shmcoll_group_map_t *map) {
    for (int n = 0; n < map->nnodes; n++)
        if (!shmcoll_group_map_block(map, n)) return 0;
    return 1;
}

shmcoll_status_t shmcoll_compose_order_fits(const shmcoll_reduce_op_t *op,
                                            const shmcoll_group_map_t *map) {
    if (op->commutative || shmcoll_compose_all_blocks(map)) return SHMCOLL_OK;
    return shmcoll_compose_decline(
        "across nodes: a non-commutative op on nodes that are not blocks of consecutive ranks");
}

shmcoll_status_t shmcoll_compose_count_fits(size_t count) {
    if (shmcoll_net_fits(count)) return SHMCOLL_OK;
    return shmcoll_compose_decline("across nodes: a count above INT_MAX for the network step");
}

void shmcoll_compose_transfer(shmcoll_group_task_t *t, int from, int to, const void *src, void *dst,
                              size_t bytes, size_t *counts, size_t *displs) {
    const shmcoll_group_t *g = t->group;
    const int me = g->map.node_rank[g->rank];
    if (me == to)
        for (int i = 0; i < g->map.node_size[g->node]; i++) {
            counts[i] = i == from ? bytes : 0;
            displs[i] = 0;
        }
    /* A member that sends nothing still names a buffer: NULL would mean "in place". */
    static const unsigned char nothing;
    t->node_args = (shmcoll_coll_args_t){.kind = SHMCOLL_KIND_GATHERV,
                                         .sendbuf = me == from ? src : &nothing,
                                         .sendbytes = me == from ? bytes : 0,
                                         .recvbuf = dst,
                                         .recvcounts = me == to ? counts : NULL,
                                         .rdispls = me == to ? displs : NULL,
                                         .root = to};
}
