/* MPI_Barrier over shared memory. */
#include "mpi/call.h"

#include "coll/coll.h"
#include "shmcoll.h"

SHMCOLL_API int MPI_Barrier(MPI_Comm comm) {
    shmcoll_mpi_comm_t *state;
    const char *reason;
    shmcoll_status_t status = shmcoll_mpi_call_begin(comm, &state, &reason);
    if (status == SHMCOLL_ERR_NOT_SUPPORTED) goto fallback;
    if (status != SHMCOLL_OK) return shmcoll_mpi_call_error(comm, state, "MPI_Barrier", status);

    if (state->kind == SHMCOLL_MPI_COMM_SELF) {
        shmcoll_mpi_stats_record(SHMCOLL_MPI_BARRIER, state, 1, 0, "self", 0);
        return MPI_SUCCESS;
    }
    shmcoll_team_t *team = state->team;
    uint64_t dav = team->dav;
    status = shmcoll_barrier(team);
    if (status == SHMCOLL_ERR_NOT_SUPPORTED) {
        reason = "no barrier algorithm for this team";
        goto fallback;
    }
    if (status != SHMCOLL_OK) return shmcoll_mpi_call_error(comm, state, "MPI_Barrier", status);
    shmcoll_mpi_stats_record(SHMCOLL_MPI_BARRIER, state, 1, 0, team->last_algo, team->dav - dav);
    return MPI_SUCCESS;

fallback:
    shmcoll_mpi_call_fallback(SHMCOLL_MPI_BARRIER, "MPI_Barrier", state, 0, reason);
    return PMPI_Barrier(comm);
}
