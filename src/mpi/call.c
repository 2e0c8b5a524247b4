/* Shared steps of the collective wrappers. See call.h. */
#include "mpi/call.h"
#include "mpi/init.h"

#include "core/config.h"
#include "core/log.h"

#include <string.h>

shmcoll_status_t shmcoll_mpi_call_begin(shmcoll_mpi_call_t *call, MPI_Comm comm,
                                        shmcoll_mpi_coll_t coll, const char *function) {
    *call = (shmcoll_mpi_call_t){.comm = comm, .coll = coll, .function = function};
    const shmcoll_config_t *config = shmcoll_config();
    if (config->disable) {
        call->reason = "SHMCOLL_DISABLE=1";
        /* Only the local part of the state, to know which rank counts the call. */
        if (config->stats && comm != MPI_COMM_NULL && shmcoll_mpi_init_ensure())
            shmcoll_mpi_comm_state_get(comm, 0, &call->state);
        return SHMCOLL_ERR_NOT_SUPPORTED;
    }
    if (comm == MPI_COMM_NULL || !shmcoll_mpi_init_ensure()) {
        call->reason = comm == MPI_COMM_NULL ? "MPI_COMM_NULL" : "MPI is not initialised";
        return SHMCOLL_ERR_NOT_SUPPORTED;
    }
    shmcoll_status_t status = shmcoll_mpi_comm_state_get(comm, 1, &call->state);
    if (status != SHMCOLL_OK) return status;
    switch (call->state->kind) {
    case SHMCOLL_MPI_COMM_TEAM:
        call->team = call->state->team;
        call->team_dav = call->team->dav;
        return call->team->failed;
    case SHMCOLL_MPI_COMM_SELF:
        return SHMCOLL_OK;
    default:
        call->reason = call->state->reason;
        return SHMCOLL_ERR_NOT_SUPPORTED;
    }
}

int shmcoll_mpi_call_counted(const shmcoll_mpi_call_t *call) {
    return call->state && shmcoll_config()->stats;
}

shmcoll_status_t shmcoll_mpi_call_reject(shmcoll_mpi_call_t *call, const char *reason) {
    call->reason = reason;
    return SHMCOLL_ERR_NOT_SUPPORTED;
}

shmcoll_status_t shmcoll_mpi_call_local(shmcoll_mpi_call_t *call, const char *algo) {
    call->algo = algo;
    return SHMCOLL_OK;
}

void shmcoll_mpi_call_copy(shmcoll_mpi_call_t *call, void *dst, const void *src, size_t bytes) {
    if (!bytes || dst == src) return;
    memcpy(dst, src, bytes);
    call->dav += 2 * bytes;
}

/* A timed-out or orphaned team cannot be trusted again (its peers may be anywhere in the
 * protocol), so the communicator stays failed: later calls raise the error again rather than
 * mixing shared memory on some ranks with the MPI library on others. */
static int raise_error(shmcoll_mpi_call_t *call, shmcoll_status_t status) {
    shmcoll_team_t *team = call->team;
    if (!team && call->state && call->state->kind == SHMCOLL_MPI_COMM_TEAM)
        team = call->state->team;
    if (team && team->failed == SHMCOLL_OK) team->failed = status;
    if (team && team->error[0])
        shmcoll_log_error("%s failed: %s", call->function, team->error);
    else
        shmcoll_log_error("%s failed: %s", call->function, shmcoll_status_string(status));
    PMPI_Comm_call_errhandler(call->comm, MPI_ERR_OTHER);
    return MPI_ERR_OTHER;
}

int shmcoll_mpi_call_end(shmcoll_mpi_call_t *call, shmcoll_status_t status) {
    if (status != SHMCOLL_OK) return raise_error(call, status);
    shmcoll_team_t *team = call->team;
    const char *algo = call->algo ? call->algo : team ? team->last_algo : "self";
    uint64_t dav = call->dav + (team ? team->dav - call->team_dav : 0);
    shmcoll_mpi_stats_record(call->coll, call->state, 1, call->bytes, call->share, algo, dav);
    return MPI_SUCCESS;
}

void shmcoll_mpi_call_fallback(shmcoll_mpi_call_t *call) {
    shmcoll_log_verbose("%s: passed to the MPI library: %s", call->function,
                        call->reason ? call->reason : "not supported by the algorithms");
    shmcoll_mpi_stats_record(call->coll, call->state, 0, call->bytes, call->share, "pmpi", 0);
}

int shmcoll_mpi_call_run(MPI_Comm comm, shmcoll_mpi_coll_t coll, const char *function,
                         shmcoll_mpi_serve_fn serve, shmcoll_mpi_payload_fn payload,
                         const void *args, int *rc) {
    shmcoll_mpi_call_t call;
    shmcoll_status_t status = shmcoll_mpi_call_begin(&call, comm, coll, function);
    if (shmcoll_mpi_call_counted(&call) && !call.state->inter) payload(&call, args);
    if (status == SHMCOLL_OK) status = serve(&call, args);
    if (status != SHMCOLL_ERR_NOT_SUPPORTED) {
        *rc = shmcoll_mpi_call_end(&call, status);
        return 1;
    }
    shmcoll_mpi_call_fallback(&call);
    return 0;
}

uint64_t shmcoll_mpi_call_bytes(MPI_Datatype datatype, MPI_Count count) {
    MPI_Count size = 0;
    if (!shmcoll_config()->stats || datatype == MPI_DATATYPE_NULL || count <= 0 ||
        PMPI_Type_size_x(datatype, &size) != MPI_SUCCESS || size <= 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

uint64_t shmcoll_mpi_call_bytes_sum(MPI_Datatype datatype, const void *counts, int wide, int n) {
    MPI_Count total = 0;
    if (!shmcoll_config()->stats || !counts) return 0;
    for (int j = 0; j < n; j++) {
        MPI_Count count = wide ? ((const MPI_Count *)counts)[j] : ((const int *)counts)[j];
        if (count > 0) total += count;
    }
    return shmcoll_mpi_call_bytes(datatype, total);
}
