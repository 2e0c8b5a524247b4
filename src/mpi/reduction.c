/* Serving reduce, allreduce, scan and exscan. See reduction.h. */
#include "mpi/reduction.h"
#include "mpi/op.h"

shmcoll_status_t shmcoll_mpi_reduction_serve(shmcoll_mpi_call_t *call, shmcoll_mpi_reduction_fn fn,
                                             const void *sendbuf, void *recvbuf, MPI_Count count,
                                             MPI_Datatype datatype, MPI_Op op, int root,
                                             int result_here) {
    shmcoll_mpi_op_ctx_t ctx;
    shmcoll_reduce_op_t rop;
    if (count < 0) return shmcoll_mpi_call_reject(call, "invalid arguments");
    shmcoll_status_t status = shmcoll_mpi_op_translate(datatype, op, &ctx, &rop, &call->reason);
    if (status != SHMCOLL_OK) return status;
    if (count == 0) return shmcoll_mpi_call_local(call, "empty");

    const int in_place = sendbuf == MPI_IN_PLACE || (result_here && sendbuf == recvbuf);
    if (call->team)
        return fn(call->team, in_place ? NULL : sendbuf, recvbuf, (size_t)count, &rop, root);
    /* One process: the result is the input. */
    if (result_here && !in_place)
        call->dav += 2 * shmcoll_mpi_op_copy(recvbuf, sendbuf, (size_t)count, &rop);
    return SHMCOLL_OK;
}
