/* MPI_Bcast (and MPI-4's MPI_Bcast_c) over shared memory.
 *
 * MPI only requires the type *signatures* to match across ranks: the root may send 4 MPI_INT
 * while a receiver uses a vector type of the same 4 ints. So the decision and the protocol use
 * nothing but the signature's byte count (count * type size, equal on all ranks), and each rank
 * maps its own layout to those bytes: a dense layout (datatype.h) is moved in place, any other is
 * packed into a temporary buffer at the root and unpacked at the receivers. Without MPI_Pack_c
 * (MPI < 4) packing is limited to INT_MAX bytes; since a rank cannot know whether the others
 * pack, every rank sends larger broadcasts to the MPI library, decided from the byte count. */
#include "mpi/call.h"
#include "mpi/datatype.h"

#include "coll/coll.h"
#include "shmcoll.h"

#include <limits.h>
#include <stdlib.h>

static int pack(void *buf, MPI_Count count, MPI_Datatype datatype, void *packed, MPI_Count bytes,
                MPI_Comm comm) {
#if MPI_VERSION >= 4
    MPI_Count position = 0;
    int rc = PMPI_Pack_c(buf, count, datatype, packed, bytes, &position, comm);
#else
    int position = 0;
    int rc = PMPI_Pack(buf, (int)count, datatype, packed, (int)bytes, &position, comm);
#endif
    return rc == MPI_SUCCESS && position == bytes;
}

static int unpack(const void *packed, MPI_Count bytes, void *buf, MPI_Count count,
                  MPI_Datatype datatype, MPI_Comm comm) {
#if MPI_VERSION >= 4
    MPI_Count position = 0;
    int rc = PMPI_Unpack_c(packed, bytes, &position, buf, count, datatype, comm);
#else
    int position = 0;
    int rc = PMPI_Unpack(packed, (int)bytes, &position, buf, (int)count, datatype, comm);
#endif
    return rc == MPI_SUCCESS && position == bytes;
}

/* Broadcast of a non-dense layout through a packed copy. */
static shmcoll_status_t bcast_packed(shmcoll_team_t *team, void *buf, MPI_Count count,
                                     MPI_Datatype datatype, MPI_Count bytes, int root,
                                     MPI_Comm comm) {
    void *packed = malloc((size_t)bytes);
    if (!packed) return SHMCOLL_ERR_NO_MEMORY;
    shmcoll_status_t status = SHMCOLL_OK;
    if (team->rank == root && !pack(buf, count, datatype, packed, bytes, comm))
        status = SHMCOLL_ERR_INVALID;
    if (status == SHMCOLL_OK) status = shmcoll_bcast(team, packed, (size_t)bytes, root);
    if (status == SHMCOLL_OK && team->rank != root &&
        !unpack(packed, bytes, buf, count, datatype, comm))
        status = SHMCOLL_ERR_INVALID;
    free(packed);
    return status;
}

static int bcast(void *buf, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 int large) {
    const char *function = large ? "MPI_Bcast_c" : "MPI_Bcast";
    shmcoll_mpi_comm_t *state;
    shmcoll_mpi_layout_t layout;
    const char *reason;
    uint64_t bytes = 0;

    shmcoll_status_t status = shmcoll_mpi_call_begin(comm, &state, &reason);
    if (status == SHMCOLL_ERR_NOT_SUPPORTED) goto fallback;
    if (status != SHMCOLL_OK) return shmcoll_mpi_call_error(comm, state, function, status);
    if (count < 0 || root < 0 || root >= state->size ||
        shmcoll_mpi_datatype_layout(datatype, &layout) != SHMCOLL_OK) {
        reason = "invalid arguments"; /* the MPI library reports them */
        goto fallback;
    }
    bytes = (uint64_t)count * (uint64_t)layout.size;
    if (bytes == 0 || state->kind == SHMCOLL_MPI_COMM_SELF) {
        shmcoll_mpi_stats_record(SHMCOLL_MPI_BCAST, state, 1, bytes, bytes ? "self" : "empty", 0);
        return MPI_SUCCESS;
    }
#if MPI_VERSION < 4
    if (bytes > INT_MAX) {
        reason = "more than INT_MAX bytes (packing limit of this MPI)";
        goto fallback;
    }
#endif
    int dense = layout.predefined && layout.contiguous;
    if (!layout.predefined && shmcoll_mpi_datatype_dense(datatype, &dense) != SHMCOLL_OK) {
        reason = "invalid datatype"; /* only possible for an erroneous program */
        goto fallback;
    }

    shmcoll_team_t *team = state->team;
    uint64_t dav = team->dav;
    if (dense)
        status = shmcoll_bcast(team, buf, (size_t)bytes, root);
    else
        status = bcast_packed(team, buf, count, datatype, (MPI_Count)bytes, root, comm);
    if (status == SHMCOLL_ERR_NOT_SUPPORTED) {
        reason = "no bcast algorithm for these arguments";
        goto fallback;
    }
    if (status != SHMCOLL_OK) return shmcoll_mpi_call_error(comm, state, function, status);
    shmcoll_mpi_stats_record(SHMCOLL_MPI_BCAST, state, 1, bytes, team->last_algo, team->dav - dav);
    return MPI_SUCCESS;

fallback:
    if (!bytes) bytes = shmcoll_mpi_call_bytes(datatype, count);
    shmcoll_mpi_call_fallback(SHMCOLL_MPI_BCAST, function, state, bytes, reason);
#if MPI_VERSION >= 4
    if (large) return PMPI_Bcast_c(buf, count, datatype, root, comm);
#endif
    return PMPI_Bcast(buf, (int)count, datatype, root, comm);
}

SHMCOLL_API int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    return bcast(buffer, count, datatype, root, comm, 0);
}

#if MPI_VERSION >= 4
SHMCOLL_API int MPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                            MPI_Comm comm) {
    return bcast(buffer, count, datatype, root, comm, 1);
}
#endif
