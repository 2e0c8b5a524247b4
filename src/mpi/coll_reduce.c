/* MPI_Reduce (and MPI-4's MPI_Reduce_c) over shared memory.
 *
 * As for allreduce, only arguments that are the same on all ranks decide whether shmcoll serves
 * the call. MPI_IN_PLACE at the root becomes a NULL send buffer; recvbuf is significant only at
 * the root. */
#include "mpi/call.h"
#include "mpi/reduction.h"

#include "coll/coll.h"
#include "shmcoll.h"

static int reduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm, int large) {
    shmcoll_mpi_call_t call;
    shmcoll_status_t status = shmcoll_mpi_call_begin(&call, comm, SHMCOLL_MPI_REDUCE,
                                                     large ? "MPI_Reduce_c" : "MPI_Reduce");
    call.bytes = shmcoll_mpi_call_bytes(datatype, count);
    if (status == SHMCOLL_OK) {
        const int is_root = call.state->rank == root;
        if (root < 0 || root >= call.state->size || (!is_root && sendbuf == MPI_IN_PLACE))
            status = shmcoll_mpi_call_reject(&call, "invalid arguments");
        else
            status = shmcoll_mpi_reduction_serve(&call, shmcoll_reduce, sendbuf, recvbuf, count,
                                                 datatype, op, root, is_root);
    }
    if (status != SHMCOLL_ERR_NOT_SUPPORTED) return shmcoll_mpi_call_end(&call, status);
    shmcoll_mpi_call_fallback(&call);
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
