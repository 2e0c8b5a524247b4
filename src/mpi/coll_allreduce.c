/* MPI_Allreduce (and MPI-4's MPI_Allreduce_c) over shared memory.
 *
 * The arguments MPI requires to be the same on all ranks (count, datatype, op) are the only input
 * of the decision to handle a call, so every rank decides alike. MPI_IN_PLACE becomes a NULL send
 * buffer, shmcoll's spelling of "the input is in recvbuf". */
#include "mpi/call.h"
#include "mpi/op.h"

#include "coll/coll.h"
#include "shmcoll.h"

static int allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, int large) {
    const char *function = large ? "MPI_Allreduce_c" : "MPI_Allreduce";
    shmcoll_mpi_comm_t *state;
    shmcoll_mpi_op_ctx_t ctx;
    shmcoll_reduce_op_t rop;
    const char *reason;
    uint64_t bytes = 0;

    shmcoll_status_t status = shmcoll_mpi_call_begin(comm, &state, &reason);
    if (status == SHMCOLL_ERR_NOT_SUPPORTED) goto fallback;
    if (status != SHMCOLL_OK) return shmcoll_mpi_call_error(comm, state, function, status);
    if (count < 0) {
        reason = "invalid arguments"; /* the MPI library reports them */
        goto fallback;
    }
    if (shmcoll_mpi_op_translate(datatype, op, &ctx, &rop, &reason) != SHMCOLL_OK) goto fallback;
    bytes = (uint64_t)count * (uint64_t)ctx.type_size;
    if (count == 0) {
        shmcoll_mpi_stats_record(SHMCOLL_MPI_ALLREDUCE, state, 1, 0, "empty", 0);
        return MPI_SUCCESS;
    }

    /* sendbuf == recvbuf is erroneous in MPI; reading it as "in place" keeps this rank in step
     * with the others instead of diverging to the library. */
    const void *input = sendbuf == MPI_IN_PLACE || sendbuf == recvbuf ? NULL : sendbuf;
    if (state->kind == SHMCOLL_MPI_COMM_SELF) {
        if (input) shmcoll_mpi_op_copy(recvbuf, input, (size_t)count, &rop);
        shmcoll_mpi_stats_record(SHMCOLL_MPI_ALLREDUCE, state, 1, bytes, "self",
                                 input ? 2 * bytes : 0);
        return MPI_SUCCESS;
    }
    shmcoll_team_t *team = state->team;
    uint64_t dav = team->dav;
    status = shmcoll_allreduce(team, input, recvbuf, (size_t)count, &rop);
    if (status == SHMCOLL_ERR_NOT_SUPPORTED) {
        reason = "no allreduce algorithm for these arguments";
        goto fallback;
    }
    if (status != SHMCOLL_OK) return shmcoll_mpi_call_error(comm, state, function, status);
    shmcoll_mpi_stats_record(SHMCOLL_MPI_ALLREDUCE, state, 1, bytes, team->last_algo,
                             team->dav - dav);
    return MPI_SUCCESS;

fallback:
    if (!bytes) bytes = shmcoll_mpi_call_bytes(datatype, count);
    shmcoll_mpi_call_fallback(SHMCOLL_MPI_ALLREDUCE, function, state, bytes, reason);
#if MPI_VERSION >= 4
    if (large) return PMPI_Allreduce_c(sendbuf, recvbuf, count, datatype, op, comm);
#endif
    return PMPI_Allreduce(sendbuf, recvbuf, (int)count, datatype, op, comm);
}

SHMCOLL_API int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm) {
    return allreduce(sendbuf, recvbuf, count, datatype, op, comm, 0);
}

#if MPI_VERSION >= 4
SHMCOLL_API int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return allreduce(sendbuf, recvbuf, count, datatype, op, comm, 1);
}
#endif
