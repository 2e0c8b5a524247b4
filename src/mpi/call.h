/* The steps every collective wrapper shares: deciding whether shmcoll serves a call on a
 * communicator, and accounting for a call that goes to the MPI library. */
#ifndef SHMCOLL_MPI_CALL_H
#define SHMCOLL_MPI_CALL_H

#include "mpi/comm_state.h"
#include "mpi/stats.h"

#include <mpi.h>
#include <stdint.h>

/* Run first by every wrapper. SHMCOLL_OK: *state is a handled communicator (team or self).
 * SHMCOLL_ERR_NOT_SUPPORTED: the call goes to the MPI library for *reason; *state is set when
 * known (for statistics). Any other status: the communicator's team failed earlier (or state could
 * not be made); the wrapper reports it through the communicator's error handler.
 * SHMCOLL_DISABLE=1 is checked before anything else. */
shmcoll_status_t shmcoll_mpi_call_begin(MPI_Comm comm, shmcoll_mpi_comm_t **state,
                                        const char **reason);

/* Logs (with SHMCOLL_VERBOSE=1) and counts a call that goes to the MPI library. */
void shmcoll_mpi_call_fallback(shmcoll_mpi_coll_t coll, const char *function,
                               const shmcoll_mpi_comm_t *state, uint64_t bytes, const char *reason);

/* Reports a failed shmcoll collective: logs team->error, marks the team failed for good and
 * raises MPI_ERR_OTHER through the communicator's error handler (MPI_ERRORS_ARE_FATAL aborts the
 * job). Returns the code the wrapper returns when the handler does return. */
int shmcoll_mpi_call_error(MPI_Comm comm, shmcoll_mpi_comm_t *state, const char *function,
                           shmcoll_status_t status);

/* Bytes of count elements of datatype for statistics; 0 when statistics are off or the type is
 * invalid (the MPI library will say so). */
uint64_t shmcoll_mpi_call_bytes(MPI_Datatype datatype, MPI_Count count);

#endif
