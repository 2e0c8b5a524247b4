/* MPI_Reduce_scatter_block and MPI_Reduce_scatter (and their MPI-4 large-count twins) over
 * shared memory.
 *
 * The input of every rank is the whole vector: p blocks back to back, block j of recvcounts[j]
 * elements (recvcount each for the _block variant); rank j receives block j of the reduction.
 * recvcounts, datatype and op are the same on all ranks (MPI requires it), so they alone decide.
 * MPI_IN_PLACE: the input is in recvbuf and the result overwrites its start. */
#include "mpi/call.h"
#include "mpi/op.h"

#include "coll/coll.h"
#include "shmcoll.h"

/* The block sizes in elements of the user's datatype: recvcounts (int, or MPI_Count when wide),
 * or `count` each when recvcounts is NULL. */
static MPI_Count block_count(const void *recvcounts, MPI_Count count, int wide, int j) {
    if (!recvcounts) return count;
    return wide ? ((const MPI_Count *)recvcounts)[j] : ((const int *)recvcounts)[j];
}

static shmcoll_status_t serve(shmcoll_mpi_call_t *call, const void *sendbuf, void *recvbuf,
                              int varying, const void *recvcounts, MPI_Count count, int wide,
                              MPI_Datatype datatype, MPI_Op op) {
    const int p = call->state->size;
    shmcoll_mpi_op_ctx_t ctx;
    shmcoll_reduce_op_t rop;
    if (varying && !recvcounts) return shmcoll_mpi_call_reject(call, "invalid arguments");
    shmcoll_status_t status = shmcoll_mpi_op_translate(datatype, op, &ctx, &rop, &call->reason);
    if (status != SHMCOLL_OK) return status;
    size_t counts[p];
    size_t total = 0;
    for (int j = 0; j < p; j++) {
        MPI_Count c = block_count(recvcounts, count, wide, j);
        if (c < 0) return shmcoll_mpi_call_reject(call, "invalid arguments");
        counts[j] = (size_t)c;
        total += counts[j];
    }
    if (total == 0) return shmcoll_mpi_call_local(call, "empty");

    /* sendbuf == recvbuf is erroneous in MPI; reading it as "in place" keeps this rank in step
     * with the others instead of diverging to the library. */
    const int in_place = sendbuf == MPI_IN_PLACE || sendbuf == recvbuf;
    shmcoll_team_t *team = call->team;
    if (team && varying)
        return shmcoll_reduce_scatter(team, in_place ? NULL : sendbuf, recvbuf, counts, &rop);
    if (team)
        return shmcoll_reduce_scatter_block(team, in_place ? NULL : sendbuf, recvbuf, counts[0],
                                            &rop);
    /* One process: its block is the start of the input. */
    if (!in_place) call->dav += 2 * shmcoll_mpi_op_copy(recvbuf, sendbuf, counts[0], &rop);
    return SHMCOLL_OK;
}

static int reduce_scatter_any(const void *sendbuf, void *recvbuf, int varying,
                              const void *recvcounts, MPI_Count count, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, int large) {
    static const char *const names[2][2] = {
        {"MPI_Reduce_scatter_block", "MPI_Reduce_scatter_block_c"},
        {"MPI_Reduce_scatter", "MPI_Reduce_scatter_c"}};
    shmcoll_mpi_call_t call;
    shmcoll_status_t status = shmcoll_mpi_call_begin(
        &call, comm, varying ? SHMCOLL_MPI_REDUCE_SCATTER : SHMCOLL_MPI_REDUCE_SCATTER_BLOCK,
        names[varying][large]);
    if (shmcoll_mpi_call_counted(&call) && !call.state->inter)
        call.bytes = varying
                         ? shmcoll_mpi_call_bytes_sum(datatype, recvcounts, large, call.state->size)
                         : shmcoll_mpi_call_bytes(datatype, count * call.state->size);
    if (status == SHMCOLL_OK)
        status = serve(&call, sendbuf, recvbuf, varying, recvcounts, count, large, datatype, op);
    if (status != SHMCOLL_ERR_NOT_SUPPORTED) return shmcoll_mpi_call_end(&call, status);
    shmcoll_mpi_call_fallback(&call);
#if MPI_VERSION >= 4
    if (large && varying)
        return PMPI_Reduce_scatter_c(sendbuf, recvbuf, recvcounts, datatype, op, comm);
    if (large) return PMPI_Reduce_scatter_block_c(sendbuf, recvbuf, count, datatype, op, comm);
#endif
    if (varying) return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
    return PMPI_Reduce_scatter_block(sendbuf, recvbuf, (int)count, datatype, op, comm);
}

SHMCOLL_API int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return reduce_scatter_any(sendbuf, recvbuf, 0, NULL, recvcount, datatype, op, comm, 0);
}

SHMCOLL_API int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return reduce_scatter_any(sendbuf, recvbuf, 1, recvcounts, 0, datatype, op, comm, 0);
}

#if MPI_VERSION >= 4
SHMCOLL_API int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return reduce_scatter_any(sendbuf, recvbuf, 0, NULL, recvcount, datatype, op, comm, 1);
}

SHMCOLL_API int MPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf,
                                     const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op,
                                     MPI_Comm comm) {
    return reduce_scatter_any(sendbuf, recvbuf, 1, recvcounts, 0, datatype, op, comm, 1);
}
#endif
