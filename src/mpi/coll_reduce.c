/* MPI_Reduce (and MPI-4's MPI_Reduce_c) over shared memory.
 *
 * As for allreduce, only arguments that are the same on all ranks decide whether shmcoll serves
 * the call. MPI_IN_PLACE at the root becomes a NULL send buffer; recvbuf is significant only at
 * the root. */
#include "mpi/call.h"
#include "mpi/op.h"

#include "coll/coll.h"
#include "shmcoll.h"

static int reduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm, int large) {
    const char *function = large ? "MPI_Reduce_c" : "MPI_Reduce";
    shmcoll_mpi_comm_t *state;
    shmcoll_mpi_op_ctx_t ctx;
    shmcoll_reduce_op_t rop;
    const char *reason;
    uint64_t bytes = 0;

    shmcoll_status_t status = shmcoll_mpi_call_begin(comm, &state, &reason);
    if (status == SHMCOLL_ERR_NOT_SUPPORTED) goto fallback;
    if (status != SHMCOLL_OK) return shmcoll_mpi_call_error(comm, state, function, status);
    int is_root = state->rank == root;
    if (count < 0 || root < 0 || root >= state->size || (!is_root && sendbuf == MPI_IN_PLACE)) {
        reason = "invalid arguments"; /* the MPI library reports them */
        goto fallback;
    }
    if (shmcoll_mpi_op_translate(datatype, op, &ctx, &rop, &reason) != SHMCOLL_OK) goto fallback;
    bytes = (uint64_t)count * (uint64_t)ctx.type_size;
    if (count == 0) {
        shmcoll_mpi_stats_record(SHMCOLL_MPI_REDUCE, state, 1, 0, "empty", 0);
        return MPI_SUCCESS;
    }

    /* A send buffer equal to the receive buffer at the root is erroneous in MPI; reading it as
     * "in place" keeps this rank in step with the others instead of diverging to the library. */
    const void *input = sendbuf == MPI_IN_PLACE || (is_root && sendbuf == recvbuf) ? NULL : sendbuf;
    if (state->kind == SHMCOLL_MPI_COMM_SELF) {
        if (input) shmcoll_mpi_op_copy(recvbuf, input, (size_t)count, &rop);
        shmcoll_mpi_stats_record(SHMCOLL_MPI_REDUCE, state, 1, bytes, "self",
                                 input ? 2 * bytes : 0);
        return MPI_SUCCESS;
    }
    shmcoll_team_t *team = state->team;
    uint64_t dav = team->dav;
    status = shmcoll_reduce(team, input, recvbuf, (size_t)count, &rop, root);
    if (status == SHMCOLL_ERR_NOT_SUPPORTED) {
        reason = "no reduce algorithm for these arguments";
        goto fallback;
    }
    if (status != SHMCOLL_OK) return shmcoll_mpi_call_error(comm, state, function, status);
    shmcoll_mpi_stats_record(SHMCOLL_MPI_REDUCE, state, 1, bytes, team->last_algo, team->dav - dav);
    return MPI_SUCCESS;

fallback:
    if (!bytes) bytes = shmcoll_mpi_call_bytes(datatype, count);
    shmcoll_mpi_call_fallback(SHMCOLL_MPI_REDUCE, function, state, bytes, reason);
#if MPI_VERSION >= 4
    if (large) return PMPI_Reduce_c(sendbuf, recvbuf, count, datatype, op, root, comm);
#endif
    return PMPI_Reduce(sendbuf, recvbuf, (int)count, datatype, op, root, comm);
}

SHMCOLL_API int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, int root, MPI_Comm comm) {
    return reduce(sendbuf, recvbuf, count, datatype, op, root, comm, 0);
}

#if MPI_VERSION >= 4
SHMCOLL_API int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
    return reduce(sendbuf, recvbuf, count, datatype, op, root, comm, 1);
}
#endif
