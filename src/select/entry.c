/* Entry points of the collectives that have several algorithms: check the arguments, ask the
 * selector, run the chosen algorithm, record its name. */
#include "coll/coll.h"
#include "coll/coll_internal.h"
#include "select/select.h"

shmcoll_status_t shmcoll_barrier(shmcoll_team_t *team) {
    shmcoll_status_t status = coll_begin(team, "barrier");
    if (status != SHMCOLL_OK) return status;
    const shmcoll_select_args_t args = {.kind = SHMCOLL_KIND_BARRIER};
    const shmcoll_algo_t *algo = shmcoll_select_for_team(team, &args);
    if (!algo) return SHMCOLL_ERR_NOT_SUPPORTED;
    return coll_end(team, algo->run.barrier(team), algo->name);
}

shmcoll_status_t shmcoll_bcast(shmcoll_team_t *team, void *buf, size_t bytes, int root) {
    if (root < 0 || root >= team->size) return SHMCOLL_ERR_INVALID;
    shmcoll_status_t status = coll_begin(team, "bcast");
    if (status != SHMCOLL_OK) return status;
    if (bytes == 0) return coll_end(team, SHMCOLL_OK, "none");
    const shmcoll_select_args_t args = {.kind = SHMCOLL_KIND_BCAST, .bytes = bytes};
    const shmcoll_algo_t *algo = shmcoll_select_for_team(team, &args);
    if (!algo) return SHMCOLL_ERR_NOT_SUPPORTED;
    return coll_end(team, algo->run.bcast(team, buf, bytes, root), algo->name);
}

static shmcoll_status_t reduce_any(shmcoll_team_t *team, shmcoll_coll_kind_t kind,
                                   const void *sendbuf, void *recvbuf, size_t count,
                                   const shmcoll_reduce_op_t *op, int root) {
    shmcoll_status_t status = coll_begin(team, shmcoll_coll_kind_name(kind));
    if (status != SHMCOLL_OK) return status;
    if (count == 0) return coll_end(team, SHMCOLL_OK, "none");
    if (op->size == 0 || op->extent < op->size || (!op->kernel && !op->user_fn))
        return SHMCOLL_ERR_NOT_SUPPORTED;
    const shmcoll_select_args_t args = {.kind = kind,
                                        .bytes = shmcoll_reduce_op_span(op, count),
                                        .extent = op->extent,
                                        .commutative = op->commutative};
    const shmcoll_algo_t *algo = shmcoll_select_for_team(team, &args);
    if (!algo) return SHMCOLL_ERR_NOT_SUPPORTED;
    status = algo->run.reduce(team, sendbuf, recvbuf, count, op, root);
    return coll_end(team, status, algo->name);
}

shmcoll_status_t shmcoll_reduce(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                size_t count, const shmcoll_reduce_op_t *op, int root) {
    if (root < 0 || root >= team->size) return SHMCOLL_ERR_INVALID;
    return reduce_any(team, SHMCOLL_KIND_REDUCE, sendbuf, recvbuf, count, op, root);
}

shmcoll_status_t shmcoll_allreduce(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                   size_t count, const shmcoll_reduce_op_t *op) {
    return reduce_any(team, SHMCOLL_KIND_ALLREDUCE, sendbuf, recvbuf, count, op, COLL_ALL);
}
