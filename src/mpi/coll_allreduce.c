/* MPI_Allreduce (and MPI-4's MPI_Allreduce_c) over shared memory.
 *
 * The arguments MPI requires to be the same on all ranks (count, datatype, op) are the only input
 * of the decision to handle a call, so every rank decides alike. MPI_IN_PLACE becomes a NULL send
 * buffer, shmcoll's spelling of "the input is in recvbuf". */
#include "mpi/call.h"
#include "mpi/reduction.h"

#include "coll/coll.h"
#include "shmcoll.h"

static shmcoll_status_t run(shmcoll_team_t *team, const void *sendbuf, void *recvbuf, size_t count,
                            const shmcoll_reduce_op_t *op, int root) {
    return shmcoll_allreduce(team, sendbuf, recvbuf, count, op);
}

static int allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, int large) {
    shmcoll_mpi_call_t call;
    shmcoll_status_t status = shmcoll_mpi_call_begin(&call, comm, SHMCOLL_MPI_ALLREDUCE,
                                                     large ? "MPI_Allreduce_c" : "MPI_Allreduce");
    call.bytes = shmcoll_mpi_call_bytes(datatype, count);
    if (status == SHMCOLL_OK)
        status =
            shmcoll_mpi_reduction_serve(&call, run, sendbuf, recvbuf, count, datatype, op, 0, 1);
    if (status != SHMCOLL_ERR_NOT_SUPPORTED) return shmcoll_mpi_call_end(&call, status);
    shmcoll_mpi_call_fallback(&call);
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
