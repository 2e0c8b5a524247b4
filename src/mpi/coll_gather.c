/* MPI_Gather and MPI_Gatherv (and their MPI-4 large-count twins) over shared memory.
 *
 * The root receives every rank's block. The receive arguments are significant at the root only,
 * so a non-root never looks at them: the block size of gather comes from the sender's own send
 * arguments (MPI makes all blocks the same size, so it is the same everywhere); for gatherv only
 * the root knows every size, and the core agrees on the longest before moving anything.
 * MPI_IN_PLACE is allowed at the root only: its block is already in recvbuf and its send
 * arguments are ignored. */
#include "mpi/blocks.h"
#include "mpi/call.h"

#include "coll/coll.h"
#include "shmcoll.h"

typedef struct gather_args {
    const void *sendbuf;
    MPI_Count sendcount;
    MPI_Datatype sendtype;
    void *recvbuf;
    MPI_Count recvcount;    /* gather */
    const void *recvcounts; /* gatherv */
    const void *displs;
    MPI_Datatype recvtype;
    int root, varying, wide;
} gather_args_t;

static shmcoll_status_t serve(shmcoll_mpi_call_t *call, const void *args) {
    const gather_args_t *a = args;
    const int p = call->state->size, me = call->state->rank, root = a->root;
    const int is_root = me == root, in_place = a->sendbuf == MPI_IN_PLACE;
    if (root < 0 || root >= p || (in_place && !is_root) ||
        (is_root && a->varying && !a->recvcounts))
        return shmcoll_mpi_call_reject(call, "invalid arguments");
    size_t bytes[p], offsets[p];
    shmcoll_mpi_blocks_t send = {0}, recv = {0};
    if ((!in_place && shmcoll_mpi_blocks_init(&send, a->sendbuf, a->sendcount, NULL, NULL, 0,
                                              a->sendtype, 1, NULL, NULL) != SHMCOLL_OK) ||
        (is_root &&
         shmcoll_mpi_blocks_init(&recv, a->recvbuf, a->recvcount, a->recvcounts, a->displs, a->wide,
                                 a->recvtype, p, bytes, offsets) != SHMCOLL_OK) ||
        (is_root && !in_place && send.total != shmcoll_mpi_blocks_bytes(&recv, root)))
        return shmcoll_mpi_call_reject(call, "invalid arguments");
    /* Every rank knows gather's block size; gatherv's sizes only the root. */
    const size_t block = is_root ? recv.block : send.total;
    if (!a->varying && block == 0) return shmcoll_mpi_call_local(call, "empty");
    if (!call->team && in_place) return SHMCOLL_OK;

    shmcoll_status_t status;
    if (is_root) SHMCOLL_CHECK_GOTO(shmcoll_mpi_blocks_map(&recv), status, done);
    if (!in_place) {
        SHMCOLL_CHECK_GOTO(shmcoll_mpi_blocks_map(&send), status, done);
        SHMCOLL_CHECK_GOTO(shmcoll_mpi_blocks_pack(&send, -1, call->comm), status, done);
    }
    if (!call->team)
        shmcoll_mpi_call_copy(call, shmcoll_mpi_blocks_at(&recv, 0), send.base, send.total);
    else if (a->varying)
        status = shmcoll_gatherv(call->team, in_place ? NULL : send.base, send.total, recv.base,
                                 recv.bytes, recv.offsets, root);
    else
        status = shmcoll_gather(call->team, in_place ? NULL : send.base, recv.base, block, root);
    if (status == SHMCOLL_OK && is_root)
        status = shmcoll_mpi_blocks_unpack(&recv, in_place ? root : -1, call->comm);
done:
    shmcoll_mpi_blocks_free(&send);
    shmcoll_mpi_blocks_free(&recv);
    return status;
}

/* Payload for the statistics (stats.h): p blocks for gather; for gatherv each rank's own. */
static void count_payload(shmcoll_mpi_call_t *call, const void *args) {
    const gather_args_t *a = args;
    const int is_root = call->state->rank == a->root, in_place = a->sendbuf == MPI_IN_PLACE;
    uint64_t mine = 0; /* an in-place root's send arguments are not significant */
    if (!(is_root && in_place))
        mine = shmcoll_mpi_call_bytes(a->sendtype, a->sendcount);
    else if (!a->varying)
        mine = shmcoll_mpi_call_bytes(a->recvtype, a->recvcount);
    else if (a->recvcounts)
        mine = shmcoll_mpi_call_bytes(a->recvtype,
                                      shmcoll_mpi_count_at(a->recvcounts, a->wide, a->root));
    if (a->varying)
        call->share = mine;
    else
        call->bytes = mine * (uint64_t)call->state->size;
}

static int gather_any(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, const void *recvcounts,
                      const void *displs, MPI_Datatype recvtype, int root, int varying,
                      MPI_Comm comm, int large) {
    const gather_args_t args = {sendbuf, sendcount, sendtype, recvbuf, recvcount, recvcounts,
                                displs,  recvtype,  root,     varying, large};
    const gather_args_t *a = &args;
    static const char *const names[2][2] = {{"MPI_Gather", "MPI_Gather_c"},
                                            {"MPI_Gatherv", "MPI_Gatherv_c"}};
    int rc;
    if (shmcoll_mpi_call_run(comm, varying ? SHMCOLL_MPI_GATHERV : SHMCOLL_MPI_GATHER,
                             names[varying][large], serve, count_payload, a, &rc))
        return rc;
#if MPI_VERSION >= 4
    if (large && a->varying)
        return PMPI_Gatherv_c(a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcounts,
                              a->displs, a->recvtype, a->root, comm);
    if (large)
        return PMPI_Gather_c(a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcount,
                             a->recvtype, a->root, comm);
#endif
    if (a->varying)
        return PMPI_Gatherv(a->sendbuf, (int)a->sendcount, a->sendtype, a->recvbuf, a->recvcounts,
                            a->displs, a->recvtype, a->root, comm);
    return PMPI_Gather(a->sendbuf, (int)a->sendcount, a->sendtype, a->recvbuf, (int)a->recvcount,
                       a->recvtype, a->root, comm);
}

SHMCOLL_API int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return gather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, root,
                      0, comm, 0);
}

SHMCOLL_API int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return gather_any(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, root,
                      1, comm, 0);
}

#if MPI_VERSION >= 4
SHMCOLL_API int MPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm) {
    return gather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, root,
                      0, comm, 1);
}

SHMCOLL_API int MPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                              MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return gather_any(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, root,
                      1, comm, 1);
}
#endif
