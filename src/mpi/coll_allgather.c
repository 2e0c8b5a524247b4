/* MPI_Allgather and MPI_Allgatherv (and their MPI-4 large-count twins) over shared memory.
 *
 * Every rank's block goes to every rank. Only the receive side is significant everywhere (recvcount
 * or recvcounts, and recvtype, whose signature byte counts all ranks share), so the decision and
 * the number of bytes per block come from it; each rank maps its own send and receive layouts to
 * those bytes (blocks.h). MPI_IN_PLACE (at all ranks): a rank's block is already in its place in
 * recvbuf, and the send arguments are ignored. */
#include "mpi/blocks.h"
#include "mpi/call.h"

#include "coll/coll.h"
#include "shmcoll.h"

typedef struct allgather_args {
    const void *sendbuf;
    MPI_Count sendcount;
    MPI_Datatype sendtype;
    void *recvbuf;
    MPI_Count recvcount;    /* allgather */
    const void *recvcounts; /* allgatherv (NULL for allgather) */
    const void *displs;
    MPI_Datatype recvtype;
    int varying, wide;
} allgather_args_t;

static shmcoll_status_t serve(shmcoll_mpi_call_t *call, const void *args) {
    const allgather_args_t *a = args;
    const int p = call->state->size, me = call->state->rank;
    const int in_place = a->sendbuf == MPI_IN_PLACE;
    size_t bytes[p], offsets[p];
    shmcoll_mpi_blocks_t send = {0}, recv;
    if ((a->varying && !a->recvcounts) ||
        shmcoll_mpi_blocks_init(&recv, a->recvbuf, a->recvcount, a->recvcounts, a->displs, a->wide,
                                a->recvtype, p, bytes, offsets) != SHMCOLL_OK ||
        (!in_place && (shmcoll_mpi_blocks_init(&send, a->sendbuf, a->sendcount, NULL, NULL, 0,
                                               a->sendtype, 1, NULL, NULL) != SHMCOLL_OK ||
                       send.total != shmcoll_mpi_blocks_bytes(&recv, me))))
        return shmcoll_mpi_call_reject(call, "invalid arguments");
    if (recv.total == 0) return shmcoll_mpi_call_local(call, "empty");
    if (!call->team && in_place) return SHMCOLL_OK;

    shmcoll_status_t status;
    SHMCOLL_CHECK_GOTO(shmcoll_mpi_blocks_map(&recv), status, done);
    if (in_place) {
        SHMCOLL_CHECK_GOTO(shmcoll_mpi_blocks_pack_one(&recv, me, call->comm), status, done);
    } else {
        SHMCOLL_CHECK_GOTO(shmcoll_mpi_blocks_map(&send), status, done);
        SHMCOLL_CHECK_GOTO(shmcoll_mpi_blocks_pack(&send, -1, call->comm), status, done);
    }
    if (!call->team)
        shmcoll_mpi_call_copy(call, shmcoll_mpi_blocks_at(&recv, 0), send.base, send.total);
    else if (a->varying)
        status = shmcoll_allgatherv(call->team, in_place ? NULL : send.base, recv.base, recv.bytes,
                                    recv.offsets);
    else
        status = shmcoll_allgather(call->team, in_place ? NULL : send.base, recv.base, recv.block);
    if (status == SHMCOLL_OK)
        status = shmcoll_mpi_blocks_unpack(&recv, in_place ? me : -1, call->comm);
done:
    shmcoll_mpi_blocks_free(&send);
    shmcoll_mpi_blocks_free(&recv);
    return status;
}

/* Payload for the statistics (stats.h): the blocks of all ranks, which every rank knows. */
static void count_payload(shmcoll_mpi_call_t *call, const void *args) {
    const allgather_args_t *a = args;
    const int p = call->state->size;
    call->bytes = a->varying ? shmcoll_mpi_call_bytes_sum(a->recvtype, a->recvcounts, a->wide, p)
                             : shmcoll_mpi_call_bytes(a->recvtype, a->recvcount * p);
}

static int allgather_any(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, const void *recvcounts,
                         const void *displs, MPI_Datatype recvtype, int varying, MPI_Comm comm,
                         int large) {
    const allgather_args_t args = {sendbuf,    sendcount, sendtype, recvbuf, recvcount,
                                   recvcounts, displs,    recvtype, varying, large};
    const allgather_args_t *a = &args;
    static const char *const names[2][2] = {{"MPI_Allgather", "MPI_Allgather_c"},
                                            {"MPI_Allgatherv", "MPI_Allgatherv_c"}};
    int rc;
    if (shmcoll_mpi_call_run(comm, varying ? SHMCOLL_MPI_ALLGATHERV : SHMCOLL_MPI_ALLGATHER,
                             names[varying][large], serve, count_payload, a, &rc))
        return rc;
#if MPI_VERSION >= 4
    if (large && a->varying)
        return PMPI_Allgatherv_c(a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcounts,
                                 a->displs, a->recvtype, comm);
    if (large)
        return PMPI_Allgather_c(a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcount,
                                a->recvtype, comm);
#endif
    if (a->varying)
        return PMPI_Allgatherv(a->sendbuf, (int)a->sendcount, a->sendtype, a->recvbuf,
                               a->recvcounts, a->displs, a->recvtype, comm);
    return PMPI_Allgather(a->sendbuf, (int)a->sendcount, a->sendtype, a->recvbuf, (int)a->recvcount,
                          a->recvtype, comm);
}

SHMCOLL_API int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return allgather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, 0,
                         comm, 0);
}

SHMCOLL_API int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const int recvcounts[], const int displs[],
                               MPI_Datatype recvtype, MPI_Comm comm) {
    return allgather_any(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, 1,
                         comm, 0);
}

#if MPI_VERSION >= 4
SHMCOLL_API int MPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                MPI_Comm comm) {
    return allgather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, 0,
                         comm, 1);
}

SHMCOLL_API int MPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, const MPI_Count recvcounts[],
                                 const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm) {
    return allgather_any(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, 1,
                         comm, 1);
}
#endif
