/* Shared steps of the collective wrappers. See call.h. */
#include "mpi/call.h"
#include "mpi/init.h"

#include "core/config.h"
#include "core/log.h"

shmcoll_status_t shmcoll_mpi_call_begin(MPI_Comm comm, shmcoll_mpi_comm_t **state,
                                        const char **reason) {
    *state = NULL;
    const shmcoll_config_t *config = shmcoll_config();
    if (config->disable) {
        *reason = "SHMCOLL_DISABLE=1";
        /* Only the local part of the state, to know which rank counts the call. */
        if (config->stats && comm != MPI_COMM_NULL && shmcoll_mpi_init_ensure())
            shmcoll_mpi_comm_state_get(comm, 0, state);
        return SHMCOLL_ERR_NOT_SUPPORTED;
    }
    if (comm == MPI_COMM_NULL || !shmcoll_mpi_init_ensure()) {
        *reason = comm == MPI_COMM_NULL ? "MPI_COMM_NULL" : "MPI is not initialised";
        return SHMCOLL_ERR_NOT_SUPPORTED;
    }
    shmcoll_status_t status = shmcoll_mpi_comm_state_get(comm, 1, state);
    if (status != SHMCOLL_OK) return status;
    switch ((*state)->kind) {
    case SHMCOLL_MPI_COMM_TEAM:
        return (*state)->team->failed;
    case SHMCOLL_MPI_COMM_SELF:
        return SHMCOLL_OK;
    default:
        *reason = (*state)->reason;
        return SHMCOLL_ERR_NOT_SUPPORTED;
    }
}

void shmcoll_mpi_call_fallback(shmcoll_mpi_coll_t coll, const char *function,
                               const shmcoll_mpi_comm_t *state, uint64_t bytes,
                               const char *reason) {
    shmcoll_log_verbose("%s: passed to the MPI library: %s", function, reason);
    shmcoll_mpi_stats_record(coll, state, 0, bytes, "pmpi", 0);
}

int shmcoll_mpi_call_error(MPI_Comm comm, shmcoll_mpi_comm_t *state, const char *function,
                           shmcoll_status_t status) {
    shmcoll_team_t *team = state && state->kind == SHMCOLL_MPI_COMM_TEAM ? state->team : NULL;
    if (team && team->failed == SHMCOLL_OK) team->failed = status;
    if (team && team->error[0])
        shmcoll_log_error("%s failed: %s", function, team->error);
    else
        shmcoll_log_error("%s failed: %s", function, shmcoll_status_string(status));
    /* A timed-out or orphaned team cannot be trusted again (its peers may be anywhere in the
     * protocol), so the communicator stays failed: later calls raise the error again rather
     * than mixing shared memory on some ranks with the MPI library on others. */
    PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
    return MPI_ERR_OTHER;
}

uint64_t shmcoll_mpi_call_bytes(MPI_Datatype datatype, MPI_Count count) {
    MPI_Count size = 0;
    if (!shmcoll_config()->stats || datatype == MPI_DATATYPE_NULL || count <= 0 ||
        PMPI_Type_size_x(datatype, &size) != MPI_SUCCESS || size <= 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}
