/* Entry points of reduce and allreduce: the flat algorithm (one synchronisation) for small
 * messages; above, movement-avoiding for commutative ops (minimal data movement) and split
 * (canonical rank order) for non-commutative ones. */
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
    if (op->commutative && team->size > 1) {
        const coll_blocks_t blocks = coll_blocks_equal(op, count, team->size);
        status =
            shmcoll_coll_reduce_ma(team, sendbuf ? sendbuf : recvbuf, recvbuf, op, &blocks,
                                   root == COLL_ALL ? COLL_RESULT_ALL : COLL_RESULT_ROOT, root);
        return coll_end(team, status, "ma");
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
