/* MPI_Scatter and MPI_Scatterv (and their MPI-4 large-count twins) over shared memory.
 *
 * The root sends block r of its buffer to rank r. The send arguments are significant at the root
 * only, so a non-root never looks at them: the block size of scatter comes from the receiver's own
 * receive arguments (MPI makes all blocks the same size, so it is the same everywhere); for
 * scatterv only the root knows every size, and the core agrees on the longest before moving
 * anything. MPI_IN_PLACE as recvbuf is allowed at the root only: its block stays where it is in
 * sendbuf and its receive arguments are ignored. */
#include "mpi/move.h"

#include "shmcoll.h"

static shmcoll_status_t prepare(shmcoll_mpi_call_t *call, const void *margs) {
    return shmcoll_mpi_move_rooted_prepare(call, margs, 1);
}

/* Payload for the statistics (stats.h): p blocks for scatter; for scatterv the root's sum. */
static void payload(shmcoll_mpi_call_t *call, const void *margs) {
    const shmcoll_mpi_move_args_t *a = margs;
    const int p = call->state->size, is_root = call->state->rank == a->root;
    if (a->varying)
        call->share = is_root ? shmcoll_mpi_move_bytes(a, &a->send, p) : 0;
    else
        call->bytes = shmcoll_mpi_move_bytes(a, is_root ? &a->send : &a->recv, p);
}

static const shmcoll_mpi_coll_desc_t descs[2] =
    SHMCOLL_MPI_MOVE_DESCS(prepare, payload, SHMCOLL_MPI_SCATTER, Scatter, Iscatter,
                           SHMCOLL_MPI_SCATTERV, Scatterv, Iscatterv);

SHMCOLL_MPI_MOVE_ENTRIES(Scatter, Iscatter, SHMCOLL_MPI_MOVE_ROOTED_PARAMS,
                         SHMCOLL_MPI_MOVE_ROOTED_NAMES, descs, root)

/* Scatterv's parameters, with the count and displacement types of its form (call.h). */
#define SCATTERV_PARAMS(Count, Displ)                                                              \
    (const void *sendbuf, const Count sendcounts[], const Displ displs[], MPI_Datatype sendtype,   \
     void *recvbuf, Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
SHMCOLL_MPI_ENTRIES(Scatterv, Iscatterv, SCATTERV_PARAMS,
                    (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                     comm),
                    shmcoll_mpi_move_call,
                    (descs, sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount, NULL,
                     NULL, recvtype, root, 1, comm))

/* The root; every receiver's block against the root's send count (scatter: one size for all;
 * scatterv: the root's sendcounts[j] against rank j's block) (check.h). */
void shmcoll_mpi_check_scatter(const void *margs, int rank, int size, shmcoll_mpi_check_t *check) {
    shmcoll_mpi_move_check_rooted(margs, 1, rank, check);
}
