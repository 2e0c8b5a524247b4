/* SHMCOLL_STATS=1: what the MPI layer did, summed over the job and printed by rank 0 of
 * MPI_COMM_WORLD at MPI_Finalize.
 *
 * Counting rule: an operation (one collective call on one communicator, made by all its ranks) is
 * counted once, by the communicator's counting rank (rank 0; see comm_state.c for
 * intercommunicators): its call, its payload bytes (count * type size; 0 for barrier), the
 * algorithm that served it (team->last_algo; "self" on one process, "empty" for zero bytes,
 * "pmpi" when it went to the MPI library), and whether it was handled or fell back. DAV (bytes the
 * kernels loaded and stored) is different on every rank, so every rank adds its own. */
#ifndef SHMCOLL_MPI_STATS_H
#define SHMCOLL_MPI_STATS_H

#include "mpi/comm_state.h"

#include <stdint.h>

typedef enum shmcoll_mpi_coll {
    SHMCOLL_MPI_BARRIER,
    SHMCOLL_MPI_BCAST,
    SHMCOLL_MPI_REDUCE,
    SHMCOLL_MPI_ALLREDUCE,
    SHMCOLL_MPI_COLL_COUNT
} shmcoll_mpi_coll_t;

/* Records one call on this rank. `state` may be NULL (not counted: no counting rank known);
 * `algo` names the algorithm (NULL counts as "unknown"). */
void shmcoll_mpi_stats_record(shmcoll_mpi_coll_t coll, const shmcoll_mpi_comm_t *state, int handled,
                              uint64_t bytes, const char *algo, uint64_t dav);

/* Collective over MPI_COMM_WORLD: sums every rank's counters and prints them at rank 0. */
void shmcoll_mpi_stats_report(void);

#endif
