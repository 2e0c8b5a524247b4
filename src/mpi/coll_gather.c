/* MPI_Gather and MPI_Gatherv (and their MPI-4 large-count twins) over shared memory.
 *
 * The root receives every rank's block. The receive arguments are significant at the root only,
 * so a non-root never looks at them: the block size of gather comes from the sender's own send
 * arguments (MPI makes all blocks the same size, so it is the same everywhere); for gatherv only
 * the root knows every size, and the core agrees on the longest before moving anything.
 * MPI_IN_PLACE is allowed at the root only: its block is already in recvbuf and its send
 * arguments are ignored. */
#include "mpi/move.h"

#include "shmcoll.h"

static shmcoll_status_t prepare(shmcoll_mpi_call_t *call, const void *margs) {
    return shmcoll_mpi_move_rooted_prepare(call, margs, 0);
}

/* Payload for the statistics (stats.h): p blocks for gather; for gatherv each rank's own. */
static void payload(shmcoll_mpi_call_t *call, const void *margs) {
    const shmcoll_mpi_move_args_t *a = margs;
    const int is_root = call->state->rank == a->root, in_place = a->send.buf == MPI_IN_PLACE;
    uint64_t mine = 0; /* an in-place root's send arguments are not significant */
    if (!(is_root && in_place))
        mine = shmcoll_mpi_call_bytes(a->send.datatype, a->send.count);
    else if (!a->varying)
        mine = shmcoll_mpi_call_bytes(a->recv.datatype, a->recv.count);
    else if (a->recv.counts)
        mine = shmcoll_mpi_call_bytes(a->recv.datatype,
                                      shmcoll_mpi_count_at(a->recv.counts, a->wide, a->root));
    if (a->varying)
        call->share = mine;
    else
        call->bytes = mine * (uint64_t)call->state->size;
}

static const shmcoll_mpi_coll_desc_t descs[2] = SHMCOLL_MPI_MOVE_DESCS(
    prepare, payload, SHMCOLL_MPI_GATHER, Gather, Igather, SHMCOLL_MPI_GATHERV, Gatherv, Igatherv);

SHMCOLL_MPI_MOVE_ENTRIES(Gather, Igather, SHMCOLL_MPI_MOVE_ROOTED_PARAMS,
                         SHMCOLL_MPI_MOVE_ROOTED_NAMES, descs, root)

/* Gatherv's parameters, with the count and displacement types of its form (call.h). */
#define GATHERV_PARAMS(Count, Displ)                                                               \
    (const void *sendbuf, Count sendcount, MPI_Datatype sendtype, void *recvbuf,                   \
     const Count recvcounts[], const Displ displs[], MPI_Datatype recvtype, int root,              \
     MPI_Comm comm)
SHMCOLL_MPI_ENTRIES(Gatherv, Igatherv, GATHERV_PARAMS,
                    (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                     comm),
                    shmcoll_mpi_move_call,
                    (descs, sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, 0, recvcounts,
                     displs, recvtype, root, 1, comm))

/* The root; every sender's block against the root's receive count (gather: one size for all;
 * gatherv: the root's recvcounts[j] against rank j's block) (check.h). */
void shmcoll_mpi_check_gather(const void *margs, int rank, int size, shmcoll_mpi_check_t *check) {
    shmcoll_mpi_move_check_rooted(margs, 0, rank, check);
}
