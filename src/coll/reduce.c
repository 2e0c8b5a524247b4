/* Entry points of reduce and allreduce: pick the flat (one synchronisation) or the split
 * (pipelined, reduction spread over members) algorithm from the message size. */
#include "coll/coll.h"
#include "coll/coll_internal.h"

static shmcoll_status_t reduce_any(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                   size_t count, const shmcoll_reduce_op_t *op, int root,
                                   const char *name) {
    shmcoll_status_t status = coll_begin(team, name);
    if (status != SHMCOLL_OK) return status;
    if (count == 0) return coll_end(team, SHMCOLL_OK, "none");
    if (op->size == 0 || op->extent < op->size || (!op->kernel && !op->user_fn))
        return SHMCOLL_ERR_NOT_SUPPORTED;
    if (shmcoll_coll_reduce_use_flat(team, op, count)) {
        status = shmcoll_coll_reduce_flat(team, sendbuf, recvbuf, count, op, root);
        return coll_end(team, status, "flat");
    }
    status = shmcoll_coll_reduce_split(team, sendbuf, recvbuf, count, op, root);
    return coll_end(team, status, "split");
}

shmcoll_status_t shmcoll_reduce(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                size_t count, const shmcoll_reduce_op_t *op, int root) {
    if (root < 0 || root >= team->size) return SHMCOLL_ERR_INVALID;
    return reduce_any(team, sendbuf, recvbuf, count, op, root, "reduce");
}

shmcoll_status_t shmcoll_allreduce(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                   size_t count, const shmcoll_reduce_op_t *op) {
    return reduce_any(team, sendbuf, recvbuf, count, op, COLL_ALL, "allreduce");
}
