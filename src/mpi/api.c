/* Public queries of shmcoll (include/shmcoll_mpi.h): its counters and its fingerprint. */
#include "base/config.h"
#include "mpi/comm_state.h"
#include "mpi/init.h"
#include "select/tune.h"
#include "shmcoll_mpi.h"

SHMCOLL_API int shmcoll_stats_dav(MPI_Comm comm, unsigned long long *dav_bytes) {
    if (!dav_bytes) return MPI_ERR_ARG;
    *dav_bytes = 0;
    /* Disabled, or MPI not initialised yet: shmcoll has served nothing (and has no keyval). */
    if (shmcoll_config()->disable || !shmcoll_mpi_init_ensure()) return MPI_SUCCESS;
    shmcoll_mpi_comm_t *state = NULL;
    if (comm == MPI_COMM_NULL ||
        shmcoll_mpi_comm_state_get(comm, SHMCOLL_MPI_COMM_LOOK, &state) != SHMCOLL_OK)
        return MPI_SUCCESS;
    if (state && state->kind == SHMCOLL_MPI_COMM_GROUP)
        *dav_bytes = shmcoll_team_dav(state->group->team);
    return MPI_SUCCESS;
}

SHMCOLL_API int shmcoll_fingerprint(char *text, int len) {
    if (!text || len <= 0) return MPI_ERR_ARG;
    shmcoll_mpi_init_ensure(); /* the MPI library's version is part of it */
    shmcoll_tune_fingerprint(text, (size_t)len);
    return MPI_SUCCESS;
}
