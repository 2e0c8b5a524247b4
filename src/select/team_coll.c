/* Entry of every collective of a team: check what the algorithms cannot, describe the call to the
 * selector, start the chosen row's task, and (blocking forms) wait for it. */
#include "select/team_coll.h"
#include "select/select.h"

#include <string.h>

size_t shmcoll_coll_shared_bytes(int size, const shmcoll_coll_args_t *a) {
    switch (a->kind) {
    case SHMCOLL_KIND_REDUCE_SCATTER: {
        size_t total = 0;
        for (int j = 0; j < size; j++) total += a->recvcounts[j];
        return shmcoll_reduce_op_span(a->op, total);
    }
    case SHMCOLL_KIND_REDUCE_SCATTER_BLOCK:
        return shmcoll_reduce_op_span(a->op, a->count * (size_t)size);
    case SHMCOLL_KIND_ALLGATHERV: {
        size_t longest = 0;
        for (int j = 0; j < size; j++)
            longest = a->recvcounts[j] > longest ? a->recvcounts[j] : longest;
        return longest;
    }
    case SHMCOLL_KIND_BARRIER:
    case SHMCOLL_KIND_GATHERV:
    case SHMCOLL_KIND_SCATTERV:
    case SHMCOLL_KIND_ALLTOALLV:
        return 0;
    default:
        return shmcoll_coll_kinds[a->kind].reduces ? shmcoll_reduce_op_span(a->op, a->count)
                                                   : a->count;
    }
}

/* What the selector sees of the call; 0 when there is nothing to move on any member (bcast or a
 * reduction of nothing: every member sees the same). */
static int select_args(const shmcoll_team_t *team, const shmcoll_coll_args_t *args,
                       shmcoll_select_args_t *select) {
    const shmcoll_coll_kind_info_t *info = &shmcoll_coll_kinds[args->kind];
    const size_t bytes = shmcoll_coll_shared_bytes(team->size, args);
    if (bytes == 0 && (info->reduces || args->kind == SHMCOLL_KIND_BCAST)) return 0;
    *select = (shmcoll_select_args_t){.kind = args->kind,
                                      .bytes = bytes,
                                      .extent = info->reduces ? args->op->extent : 0,
                                      .commutative = info->reduces && args->op->commutative,
                                      .in_place = info->in_place && !args->sendbuf};
    return 1;
}

const char *shmcoll_coll_pick(shmcoll_team_t *team, const shmcoll_coll_args_t *args,
                              const char **inner) {
    shmcoll_select_args_t select;
    *inner = NULL;
    if ((unsigned)args->kind >= SHMCOLL_KIND_COUNT ||
        (shmcoll_coll_kinds[args->kind].reduces && !args->op) || !select_args(team, args, &select))
        return NULL;
    const shmcoll_algo_t *algo = shmcoll_select_for_team(team, &select);
    if (!algo || !algo->ops) return NULL;
    if (algo->params.wraps) {
        const shmcoll_algo_t *in = shmcoll_select_inner_for_team(team, &select);
        *inner = in ? in->name : NULL;
    }
    return algo->name;
}

int shmcoll_coll_takes_mpi(shmcoll_team_t *team, const shmcoll_coll_args_t *args) {
    shmcoll_select_args_t select;
    if ((unsigned)args->kind >= SHMCOLL_KIND_COUNT ||
        (shmcoll_coll_kinds[args->kind].reduces && !args->op) || !select_args(team, args, &select))
        return 0;
    const shmcoll_algo_t *algo = shmcoll_select_for_team(team, &select);
    return algo && !algo->ops;
}

int shmcoll_coll_row_serves(shmcoll_team_t *team, const shmcoll_coll_args_t *args,
                            const char *name) {
    shmcoll_select_args_t select;
    return (unsigned)args->kind < SHMCOLL_KIND_COUNT &&
           !(shmcoll_coll_kinds[args->kind].reduces && !args->op) &&
           select_args(team, args, &select) &&
           shmcoll_select_row_for_team(team, &select, name) != NULL;
}

/* Checks, then the row that serves the call (the selector's, a row args->row asks for where it
 * serves, or `algo`) set up in `task`.
 * task->ops stays NULL when there is nothing to move on any member (bcast or a reduction of
 * nothing: every member sees the same). */
static shmcoll_status_t prepare(shmcoll_team_t *team, const shmcoll_coll_args_t *args,
                                const shmcoll_algo_t *algo, shmcoll_task_t *task) {
    if ((unsigned)args->kind >= SHMCOLL_KIND_COUNT) return SHMCOLL_ERR_INVALID;
    const shmcoll_coll_kind_info_t *info = &shmcoll_coll_kinds[args->kind];
    if (info->rooted && (args->root < 0 || args->root >= team->size)) return SHMCOLL_ERR_INVALID;
    const shmcoll_reduce_op_t *op = args->op;
    if (info->reduces &&
        (!op || op->size == 0 || op->extent < op->size || (!op->kernel && !op->user_fn)))
        return SHMCOLL_ERR_NOT_SUPPORTED;
    if (team->failed) return team->failed; /* the message of the first failure stays */
    task->args = args;
    task->name = info->name;
    task->ops = NULL;
    shmcoll_select_args_t select;
    if (!select_args(team, args, &select)) return SHMCOLL_OK;
    if (!algo && args->row) algo = shmcoll_select_row_for_team(team, &select, args->row);
    if (!algo) algo = shmcoll_select_for_team(team, &select);
    if (!algo || !algo->ops || !shmcoll_algo_serves(algo, args->kind))
        return SHMCOLL_ERR_NOT_SUPPORTED; /* nothing serves it, or @mpi was chosen */
    task->ops = algo->ops;
    task->params = algo->params;
    task->algo = algo->name;
    if (algo->params.wraps) { /* what runs when the call does not qualify for it */
        const shmcoll_algo_t *inner = shmcoll_select_inner_for_team(team, &select);
        if (!inner || !inner->ops || !shmcoll_algo_serves(inner, args->kind))
            return SHMCOLL_ERR_NOT_SUPPORTED;
        task->params = inner->params; /* the inner row's variant: the wrapper has none */
        task->params.inner = inner->ops;
        task->params.inner_name = inner->name;
    }
    return SHMCOLL_OK;
}

/* A call with nothing to move is done at once: on no lane. */
static shmcoll_status_t done_at_once(shmcoll_team_t *team, shmcoll_task_t *task) {
    task->team = team;
    task->lane = NULL;
    task->status = SHMCOLL_OK;
    task->algo = "none";
    team->last_algo = task->algo;
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_coll_start(shmcoll_team_t *team, const shmcoll_coll_args_t *args,
                                    const shmcoll_algo_t *algo, shmcoll_task_t *task) {
    SHMCOLL_CHECK(prepare(team, args, algo, task));
    return task->ops ? shmcoll_task_start(team, task) : done_at_once(team, task);
}

/* Prepares and runs the call; the row it takes is kept in *keep where one serves (a call with
 * nothing to move keeps none: it is prepared each time). */
static shmcoll_status_t run(shmcoll_team_t *team, const shmcoll_coll_args_t *args,
                            const shmcoll_algo_t *algo, shmcoll_coll_choice_t *keep) {
    shmcoll_task_t task;
    task.nonblocking = 0;
    SHMCOLL_CHECK(prepare(team, args, algo, &task));
    if (!task.ops) return done_at_once(team, &task);
    if (keep)
        *keep = (shmcoll_coll_choice_t){.ops = task.ops, .params = task.params, .algo = task.algo};
    return shmcoll_task_run(team, &task);
}

shmcoll_status_t shmcoll_coll_run(shmcoll_team_t *team, const shmcoll_coll_args_t *args) {
    return run(team, args, NULL, NULL);
}

shmcoll_status_t shmcoll_coll_run_chosen(shmcoll_team_t *team, const shmcoll_coll_args_t *args,
                                         shmcoll_coll_choice_t *choice) {
    if (!choice->ops) return run(team, args, NULL, choice);
    shmcoll_task_t task;
    task.nonblocking = 0;
    task.args = args;
    task.name = shmcoll_coll_kinds[args->kind].name;
    task.ops = choice->ops;
    task.params = choice->params;
    task.algo = choice->algo;
    return shmcoll_task_run(team, &task); /* which returns the team's failure first */
}

shmcoll_status_t shmcoll_coll_run_algo(shmcoll_team_t *team, const shmcoll_coll_args_t *args,
                                       const char *name, const shmcoll_task_params_t *params) {
    const shmcoll_algo_t *row = shmcoll_algo_find(args->kind, name);
    if (!row) return SHMCOLL_ERR_NOT_SUPPORTED;
    shmcoll_algo_t algo = *row;
    if (params) algo.params = *params;
    return run(team, args, &algo, NULL);
}

/* ---- Each kind ---------------------------------------------------------------------------- */

shmcoll_status_t shmcoll_barrier(shmcoll_team_t *team) {
    return shmcoll_coll_run(team, &(shmcoll_coll_args_t){.kind = SHMCOLL_KIND_BARRIER});
}

/* Runs `kind` with the arguments core/coll_args.h lists for it (each side one block of `bytes`,
 * or per-member `counts` and `displs`; blocks of `count` bytes or elements of `op`); the others
 * are 0. */
static shmcoll_status_t run_kind(shmcoll_team_t *team, shmcoll_coll_kind_t kind,
                                 const void *sendbuf, size_t sendbytes, const size_t *sendcounts,
                                 const size_t *sdispls, void *recvbuf, size_t recvbytes,
                                 const size_t *recvcounts, const size_t *rdispls, size_t count,
                                 const shmcoll_reduce_op_t *op, int root) {
    return shmcoll_coll_run(team, &(shmcoll_coll_args_t){.kind = kind,
                                                         .sendbuf = sendbuf,
                                                         .recvbuf = recvbuf,
                                                         .count = count,
                                                         .op = op,
                                                         .root = root,
                                                         .sendcounts = sendcounts,
                                                         .sdispls = sdispls,
                                                         .recvcounts = recvcounts,
                                                         .rdispls = rdispls,
                                                         .sendbytes = sendbytes,
                                                         .recvbytes = recvbytes});
}

/* The kinds whose blocks are `count` bytes each, or elements of `op` (reduce_scatter: counts[j]
 * elements for block j). */
static shmcoll_status_t counted(shmcoll_team_t *team, shmcoll_coll_kind_t kind, const void *sendbuf,
                                void *recvbuf, size_t count, const size_t *counts,
                                const shmcoll_reduce_op_t *op, int root) {
    return run_kind(team, kind, sendbuf, 0, NULL, NULL, recvbuf, 0, counts, NULL, count, op, root);
}

shmcoll_status_t shmcoll_bcast(shmcoll_team_t *team, void *buf, size_t bytes, int root) {
    return counted(team, SHMCOLL_KIND_BCAST, NULL, buf, bytes, NULL, NULL, root);
}

shmcoll_status_t shmcoll_reduce(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                size_t count, const shmcoll_reduce_op_t *op, int root) {
    return counted(team, SHMCOLL_KIND_REDUCE, sendbuf, recvbuf, count, NULL, op, root);
}

shmcoll_status_t shmcoll_allreduce(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                   size_t count, const shmcoll_reduce_op_t *op) {
    return counted(team, SHMCOLL_KIND_ALLREDUCE, sendbuf, recvbuf, count, NULL, op, 0);
}

shmcoll_status_t shmcoll_reduce_scatter(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                        const size_t *counts, const shmcoll_reduce_op_t *op) {
    return counted(team, SHMCOLL_KIND_REDUCE_SCATTER, sendbuf, recvbuf, 0, counts, op, 0);
}

shmcoll_status_t shmcoll_reduce_scatter_block(shmcoll_team_t *team, const void *sendbuf,
                                              void *recvbuf, size_t count,
                                              const shmcoll_reduce_op_t *op) {
    return counted(team, SHMCOLL_KIND_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, count, NULL, op, 0);
}

shmcoll_status_t shmcoll_scan(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                              size_t count, const shmcoll_reduce_op_t *op) {
    return counted(team, SHMCOLL_KIND_SCAN, sendbuf, recvbuf, count, NULL, op, 0);
}

shmcoll_status_t shmcoll_exscan(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                size_t count, const shmcoll_reduce_op_t *op) {
    return counted(team, SHMCOLL_KIND_EXSCAN, sendbuf, recvbuf, count, NULL, op, 0);
}

shmcoll_status_t shmcoll_allgather(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                   size_t bytes) {
    return counted(team, SHMCOLL_KIND_ALLGATHER, sendbuf, recvbuf, bytes, NULL, NULL, 0);
}

shmcoll_status_t shmcoll_gather(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                size_t bytes, int root) {
    return counted(team, SHMCOLL_KIND_GATHER, sendbuf, recvbuf, bytes, NULL, NULL, root);
}

shmcoll_status_t shmcoll_scatter(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                 size_t bytes, int root) {
    return counted(team, SHMCOLL_KIND_SCATTER, sendbuf, recvbuf, bytes, NULL, NULL, root);
}

shmcoll_status_t shmcoll_alltoall(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                  size_t bytes) {
    return counted(team, SHMCOLL_KIND_ALLTOALL, sendbuf, recvbuf, bytes, NULL, NULL, 0);
}

shmcoll_status_t shmcoll_allgatherv(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                    const size_t *recvbytes, const size_t *displs) {
    return run_kind(team, SHMCOLL_KIND_ALLGATHERV, sendbuf, 0, NULL, NULL, recvbuf, 0, recvbytes,
                    displs, 0, NULL, 0);
}

shmcoll_status_t shmcoll_gatherv(shmcoll_team_t *team, const void *sendbuf, size_t sendbytes,
                                 void *recvbuf, const size_t *recvbytes, const size_t *displs,
                                 int root) {
    return run_kind(team, SHMCOLL_KIND_GATHERV, sendbuf, sendbytes, NULL, NULL, recvbuf, 0,
                    recvbytes, displs, 0, NULL, root);
}

shmcoll_status_t shmcoll_scatterv(shmcoll_team_t *team, const void *sendbuf,
                                  const size_t *sendbytes, const size_t *displs, void *recvbuf,
                                  size_t recvbytes, int root) {
    return run_kind(team, SHMCOLL_KIND_SCATTERV, sendbuf, 0, sendbytes, displs, recvbuf, recvbytes,
                    NULL, NULL, 0, NULL, root);
}

shmcoll_status_t shmcoll_alltoallv(shmcoll_team_t *team, const void *sendbuf,
                                   const size_t *sendbytes, const size_t *sdispls, void *recvbuf,
                                   const size_t *recvbytes, const size_t *rdispls) {
    return run_kind(team, SHMCOLL_KIND_ALLTOALLV, sendbuf, 0, sendbytes, sdispls, recvbuf, 0,
                    recvbytes, rdispls, 0, NULL, 0);
}
