/* The steps every collective wrapper shares: deciding whether shmcoll serves a call on a
 * communicator, accounting for it, and handing it to the MPI library or raising an error.
 *
 * A wrapper runs
 *     status = shmcoll_mpi_call_begin(&call, comm, coll, function);
 *     if (status == SHMCOLL_OK) status = <serve the call>;   (may reject: NOT_SUPPORTED)
 *     if (status != SHMCOLL_ERR_NOT_SUPPORTED) return shmcoll_mpi_call_end(&call, status);
 *     shmcoll_mpi_call_fallback(&call);
 *     return PMPI_<collective>(...);
 * Serving may decide to fall back only from arguments every rank shares, before anything is
 * communicated, so that all ranks take the same path. */
#ifndef SHMCOLL_MPI_CALL_H
#define SHMCOLL_MPI_CALL_H

#include "mpi/comm_state.h"
#include "mpi/stats.h"

#include <mpi.h>
#include <stdint.h>

typedef struct shmcoll_mpi_call {
    MPI_Comm comm;
    shmcoll_mpi_coll_t coll;
    const char *function;      /* "MPI_Allgather_c", for messages */
    shmcoll_mpi_comm_t *state; /* NULL when unknown (MPI_COMM_NULL, MPI not initialised) */
    shmcoll_team_t *team;      /* the team serving the call; NULL on one process */
    const char *reason;        /* why the call goes to the MPI library */
    const char *algo;          /* set for calls served without the team; else team->last_algo */
    uint64_t bytes;            /* payload, counted by the counting rank (stats.h) */
    uint64_t share;            /* this rank's share of a payload no rank knows whole */
    uint64_t dav;              /* DAV of copies made without the team (one process) */
    uint64_t team_dav;         /* team->dav when the call began */
} shmcoll_mpi_call_t;

/* Run first by every wrapper. SHMCOLL_OK: the communicator is handled (call->team is its team,
 * or NULL on one process). SHMCOLL_ERR_NOT_SUPPORTED: the call goes to the MPI library for
 * call->reason; call->state is set when known (for statistics). Any other status: the
 * communicator's team failed earlier (or its state could not be made); shmcoll_mpi_call_end
 * raises it. SHMCOLL_DISABLE=1 is checked before anything else. */
shmcoll_status_t shmcoll_mpi_call_begin(shmcoll_mpi_call_t *call, MPI_Comm comm,
                                        shmcoll_mpi_coll_t coll, const char *function);

/* Whether statistics want this call's payload (stats on and the communicator's state known). */
int shmcoll_mpi_call_counted(const shmcoll_mpi_call_t *call);

/* Sends the call to the MPI library for `reason`: returns SHMCOLL_ERR_NOT_SUPPORTED. */
shmcoll_status_t shmcoll_mpi_call_reject(shmcoll_mpi_call_t *call, const char *reason);

/* Ends a call served without the team (one process, or nothing to move) under the name `algo`:
 * returns SHMCOLL_OK. */
shmcoll_status_t shmcoll_mpi_call_local(shmcoll_mpi_call_t *call, const char *algo);

/* A copy made without the team (one process); counted in the DAV like the kernels' copies. */
void shmcoll_mpi_call_copy(shmcoll_mpi_call_t *call, void *dst, const void *src, size_t bytes);

/* Ends a served call: SHMCOLL_OK counts it and returns MPI_SUCCESS. A failure is logged (with
 * team->error), marks the team failed for good and is raised as MPI_ERR_OTHER through the
 * communicator's error handler (MPI_ERRORS_ARE_FATAL aborts the job); the code is returned when
 * the handler does return. */
int shmcoll_mpi_call_end(shmcoll_mpi_call_t *call, shmcoll_status_t status);

/* Logs (with SHMCOLL_VERBOSE=1) and counts a call that goes to the MPI library. */
void shmcoll_mpi_call_fallback(shmcoll_mpi_call_t *call);

/* The whole sequence above for a wrapper whose arguments travel in one struct: begin, the payload
 * (`payload`, when statistics want it, on an intracommunicator), `serve`, end or fallback.
 * Returns 1 with the MPI return code in *rc when shmcoll served the call (or raised its error),
 * 0 when the call goes to the MPI library (already counted): the wrapper then calls PMPI_X. */
typedef shmcoll_status_t (*shmcoll_mpi_serve_fn)(shmcoll_mpi_call_t *call, const void *args);
typedef void (*shmcoll_mpi_payload_fn)(shmcoll_mpi_call_t *call, const void *args);
int shmcoll_mpi_call_run(MPI_Comm comm, shmcoll_mpi_coll_t coll, const char *function,
                         shmcoll_mpi_serve_fn serve, shmcoll_mpi_payload_fn payload,
                         const void *args, int *rc);

/* Bytes of count elements of datatype for statistics; 0 when statistics are off or the type is
 * invalid (the MPI library will say so). */
uint64_t shmcoll_mpi_call_bytes(MPI_Datatype datatype, MPI_Count count);

/* The same for the sum of n counts (int, or MPI_Count when wide). */
uint64_t shmcoll_mpi_call_bytes_sum(MPI_Datatype datatype, const void *counts, int wide, int n);

#endif
