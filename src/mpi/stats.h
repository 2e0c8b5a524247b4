/* SHMCOLL_STATS=1: what the MPI layer did, summed over the job and printed by rank 0 of
 * MPI_COMM_WORLD at MPI_Finalize.
 *
 * Counting rule: an operation (one collective call on one communicator, made by all its ranks) is
 * counted once, by the communicator's counting rank (rank 0; see comm_state.c for
 * intercommunicators): its call, its payload bytes, the algorithm that served it
 * (the node team's last_algo; "self" on one process, "empty" for zero bytes, "pmpi" when it went to
 * the MPI library), and whether it was handled or fell back. DAV (bytes the kernels loaded and
 * stored) is different on every rank, so every rank adds its own, and so are the bytes a rank
 * handed to the network for a collective across nodes (net=, printed when any).
 *
 * Payload bytes:
 *   barrier                                 0
 *   bcast, reduce, allreduce, scan, exscan  count * type size
 *   reduce_scatter(_block)                  the whole vector reduced (the sum of the blocks)
 *   gathers, scatters, all-to-alls          the data all ranks send together: p blocks for
 *                                           allgather, gather and scatter, p * p for alltoall
 * A block sent "in place" counts as sent. For gatherv, scatterv and alltoallv no rank knows the
 * whole payload, so every rank adds its own share (what it sends) instead. On an
 * intercommunicator the payload of these twelve collectives is not counted (0).
 *
 * Forms: each collective's non-blocking and persistent forms are entries of their own
 * ("iallreduce", "allreduce_init"). A non-blocking operation is counted when it completes. A
 * persistent one counts its *_init as the call (handled or fell back) and every start it ran in
 * shared memory as a start (starts=), with the start's bytes, DAV and algorithm. */
#ifndef SHMCOLL_MPI_STATS_H
#define SHMCOLL_MPI_STATS_H

#include "mpi/comm_state.h"

#include <stdint.h>

typedef enum shmcoll_mpi_coll {
    SHMCOLL_MPI_BARRIER,
    SHMCOLL_MPI_BCAST,
    SHMCOLL_MPI_REDUCE,
    SHMCOLL_MPI_ALLREDUCE,
    SHMCOLL_MPI_REDUCE_SCATTER_BLOCK,
    SHMCOLL_MPI_REDUCE_SCATTER,
    SHMCOLL_MPI_SCAN,
    SHMCOLL_MPI_EXSCAN,
    SHMCOLL_MPI_ALLGATHER,
    SHMCOLL_MPI_ALLGATHERV,
    SHMCOLL_MPI_GATHER,
    SHMCOLL_MPI_GATHERV,
    SHMCOLL_MPI_SCATTER,
    SHMCOLL_MPI_SCATTERV,
    SHMCOLL_MPI_ALLTOALL,
    SHMCOLL_MPI_ALLTOALLV,
    SHMCOLL_MPI_COLL_COUNT
} shmcoll_mpi_coll_t;

typedef enum shmcoll_mpi_form {
    SHMCOLL_MPI_BLOCKING,
    SHMCOLL_MPI_NONBLOCKING, /* MPI_I* */
    SHMCOLL_MPI_PERSISTENT,  /* MPI_*_init, then MPI_Start */
    SHMCOLL_MPI_FORM_COUNT
} shmcoll_mpi_form_t;

/* Records one call on this rank (of a persistent collective: one start, or its *_init when it
 * fell back). `state` may be NULL (not counted: no counting rank known); `algo` names the
 * algorithm (NULL counts as "unknown"). `bytes` is counted by the counting rank, `share` (this
 * rank's part of a payload no rank knows whole) by every rank. */
void shmcoll_mpi_stats_record(shmcoll_mpi_coll_t coll, shmcoll_mpi_form_t form,
                              const shmcoll_mpi_comm_t *state, int handled, uint64_t bytes,
                              uint64_t share, const char *algo, uint64_t dav, uint64_t net);

/* Whether the payload of `coll` is counted on an intercommunicator (above: not that of the
 * twelve). */
int shmcoll_mpi_stats_inter_payload(shmcoll_mpi_coll_t coll);

/* Records the *_init of a persistent collective served in shared memory. */
void shmcoll_mpi_stats_record_init(shmcoll_mpi_coll_t coll, const shmcoll_mpi_comm_t *state);

/* Collective over MPI_COMM_WORLD: sums every rank's counters and prints them at rank 0. */
void shmcoll_mpi_stats_report(void);

/* Operations this rank counted that took the heap path (algorithm "heap"; heap_report.c). */
uint64_t shmcoll_mpi_stats_heap_calls(void);

#endif
