/* The MPI library's own checks of a collective's arguments on the calling rank. See
 * library_checks.h. */
#include "mpi/library_checks.h"
#include "mpi/blocks.h"
#include "mpi/call.h"
#include "mpi/comm_state.h"
#include "mpi/init.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char aliased[] = "the send buffer is the receive buffer (the MPI library refuses "
                              "aliased buffers)";
static const char recv_in_place[] = "MPI_IN_PLACE as the receive buffer (the MPI library refuses "
                                    "it)";

/* Whether a check the environment can turn off is on: its variable (under each prefix given) is
 * not "0". Read once (every thread reads the same environment). */
static int turned_on(atomic_int *cache, const char *const names[], int n) {
    int on = atomic_load_explicit(cache, memory_order_relaxed);
    if (on >= 0) return on;
    on = 1;
    for (int i = 0; i < n; i++) {
        const char *value = getenv(names[i]);
        if (value && strcmp(value, "0") == 0) on = 0;
    }
    atomic_store_explicit(cache, on, memory_order_relaxed);
    return on;
}

#if defined(MPICH_NUMVERSION)
/* MPICH's error checks (MPIR_CVAR_ERROR_CHECKING, read under its three prefixes). */
static int errors_checked(void) {
    static atomic_int cache = -1;
    static const char *const names[] = {"MPIR_CVAR_ERROR_CHECKING", "MPICH_ERROR_CHECKING",
                                        "MPIR_PARAM_ERROR_CHECKING"};
    return turned_on(&cache, names, 3);
}

/* ... and among them, the check for aliased buffers (MPIR_CVAR_COLL_ALIAS_CHECK). */
static int aliasing_checked(void) {
    static atomic_int cache = -1;
    static const char *const names[] = {"MPIR_CVAR_COLL_ALIAS_CHECK", "MPICH_COLL_ALIAS_CHECK",
                                        "MPIR_PARAM_COLL_ALIAS_CHECK"};
    return errors_checked() && turned_on(&cache, names, 3);
}
#else
static const char send_in_place_off_root[] = "MPI_IN_PLACE as a reduce's send buffer off the root "
                                             "(the MPI library refuses it)";

/* Open MPI's parameter check (the MCA parameter mpi_param_check). */
static int errors_checked(void) {
    static atomic_int cache = -1;
    static const char *const names[] = {"OMPI_MCA_mpi_param_check"};
    return turned_on(&cache, names, 1);
}
#endif

/* This rank in an intracommunicator (the checks below are the libraries' intracommunicator
 * ones), or -1: from the communicator's state, which the call looks up next anyway (its thread's
 * last one is at hand: no call into the MPI library, which cost 10-12 ns a call, as much as 5% of
 * an 8-byte gather's time). */
static int intra_rank(MPI_Comm comm) {
    shmcoll_mpi_comm_t *state = NULL;
    if (comm == MPI_COMM_NULL || !shmcoll_mpi_init_ensure() ||
        shmcoll_mpi_comm_state_get(comm, SHMCOLL_MPI_COMM_LOOK, &state) != SHMCOLL_OK ||
        state->inter)
        return -1;
    return state->rank;
}

const char *shmcoll_mpi_refused_reduction(shmcoll_coll_kind_t kind, const void *sendbuf,
                                          const void *recvbuf, MPI_Count count, int root,
                                          MPI_Comm comm) {
    if (!errors_checked()) return NULL;
    if (kind == SHMCOLL_KIND_REDUCE) {
#if defined(MPICH_NUMVERSION)
        if (count <= 0 || (recvbuf != MPI_IN_PLACE && sendbuf != recvbuf)) return NULL;
        if (intra_rank(comm) != root) return NULL;
        return recvbuf == MPI_IN_PLACE ? recv_in_place : aliasing_checked() ? aliased : NULL;
#else
        if (sendbuf != MPI_IN_PLACE && recvbuf != MPI_IN_PLACE && sendbuf != recvbuf) return NULL;
        const int rank = intra_rank(comm);
        if (rank < 0) return NULL;
        if (rank != root) return sendbuf == MPI_IN_PLACE ? send_in_place_off_root : NULL;
        return recvbuf == MPI_IN_PLACE            ? recv_in_place
               : sendbuf == recvbuf && count != 0 ? aliased
                                                  : NULL;
#endif
    }
#if defined(MPICH_NUMVERSION)
    if (kind == SHMCOLL_KIND_ALLREDUCE && count > 0 && recvbuf == MPI_IN_PLACE)
        return intra_rank(comm) >= 0 ? recv_in_place : NULL;
    if (count != 0 && sendbuf != MPI_IN_PLACE && sendbuf == recvbuf && aliasing_checked())
        return intra_rank(comm) >= 0 ? aliased : NULL;
#else
    if (kind != SHMCOLL_KIND_ALLREDUCE) return NULL; /* its scans accept both */
    if (recvbuf == MPI_IN_PLACE) return recv_in_place;
    if (sendbuf == recvbuf && sendbuf != MPI_BOTTOM && count > 1) return aliased;
#endif
    return NULL;
}

#if defined(MPICH_NUMVERSION)
/* Whether `block` is `base` plus `elements` elements of `datatype` (MPICH compares by the type's
 * size, not its extent; asked only where the distance is a multiple of them). */
static int at_element(const void *block, const void *base, MPI_Count elements,
                      MPI_Datatype datatype) {
    const intptr_t distance = (intptr_t)block - (intptr_t)base;
    if (elements == 0) return distance == 0;
    return distance > 0 && distance % elements == 0 &&
           (uint64_t)(distance / elements) == shmcoll_mpi_call_bytes(datatype, 1);
}

/* One side's buffer of blocks: count elements a block, or counts/displs per block. */
typedef struct side {
    const void *buf;
    MPI_Count count;
    const void *counts, *displs;
    MPI_Datatype datatype;
} side_t;

/* MPICH's rule for the one block a rank has on both sides: `mine` (its send block for gather
 * and allgather, its receive block for scatter) aliased to its place in the other side's buffer
 * `all`; `root` is -1 where every rank checks. */
static int own_block_aliased(const void *mine, MPI_Count count, const side_t *all, int wide,
                             int root, MPI_Comm comm) {
    if (count == 0 || (const char *)mine < (const char *)all->buf) return 0;
    const int rank = intra_rank(comm);
    if (rank < 0 || (root >= 0 && rank != root)) return 0;
    if (!all->counts)
        return all->count == count && at_element(mine, all->buf, rank * count, all->datatype);
    if (!all->displs || shmcoll_mpi_count_at(all->counts, wide, rank) == 0) return 0;
    const MPI_Aint displ =
        wide ? ((const MPI_Aint *)all->displs)[rank] : ((const int *)all->displs)[rank];
    return at_element(mine, all->buf, displ, all->datatype);
}

const char *shmcoll_mpi_refused_move(shmcoll_mpi_coll_t coll, const void *sendbuf,
                                     MPI_Count sendcount, const void *sendcounts,
                                     const void *sdispls, MPI_Datatype sendtype,
                                     const void *recvbuf, MPI_Count recvcount,
                                     const void *recvcounts, const void *rdispls,
                                     MPI_Datatype recvtype, int root, int wide, MPI_Comm comm) {
    if (sendtype != recvtype || sendbuf == MPI_IN_PLACE || !aliasing_checked()) return NULL;
    const side_t send = {sendbuf, sendcount, sendcounts, sdispls, sendtype};
    const side_t recv = {recvbuf, recvcount, recvcounts, rdispls, recvtype};
    int refused = 0;
    switch (coll) {
    case SHMCOLL_MPI_ALLTOALL:
        refused =
            sendbuf == recvbuf && sendcount == recvcount && sendcount != 0 && intra_rank(comm) >= 0;
        break;
    case SHMCOLL_MPI_ALLTOALLV:
        refused = sendbuf == recvbuf && sendcounts == recvcounts && intra_rank(comm) >= 0;
        break;
    case SHMCOLL_MPI_GATHER:
    case SHMCOLL_MPI_GATHERV:
    case SHMCOLL_MPI_ALLGATHER:
    case SHMCOLL_MPI_ALLGATHERV: {
        const int rooted = coll == SHMCOLL_MPI_GATHER || coll == SHMCOLL_MPI_GATHERV;
        refused = own_block_aliased(sendbuf, sendcount, &recv, wide, rooted ? root : -1, comm);
        break;
    }
    case SHMCOLL_MPI_SCATTER:
    case SHMCOLL_MPI_SCATTERV:
        refused = own_block_aliased(recvbuf, recvcount, &send, wide, root, comm);
        break;
    default:
        break;
    }
    return refused ? aliased : NULL;
}

const char *shmcoll_mpi_refused_reduce_scatter(const void *sendbuf, const void *recvbuf,
                                               const void *recvcounts, MPI_Count count, int wide,
                                               MPI_Comm comm) {
    if (sendbuf == MPI_IN_PLACE || sendbuf != recvbuf || !aliasing_checked()) return NULL;
    int size = 0;
    if (recvcounts) { /* the whole vector's count */
        if (PMPI_Comm_size(comm, &size) != MPI_SUCCESS) return NULL;
        count = 0;
        for (int j = 0; j < size; j++) count += shmcoll_mpi_count_at(recvcounts, wide, j);
    }
    return count != 0 && intra_rank(comm) >= 0 ? aliased : NULL;
}
#endif
