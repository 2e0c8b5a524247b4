/* The machine's state, measured at the start and the end of a run: the copy bandwidth of every
 * rank at once from memory to memory, and the time a cache line takes to go from one core to
 * another and back. Both swing on the machines measured here from one phase to the next (copies
 * 18 against 40 GB/s; a line's round trip 60-125 ns, then 350-550 ns for minutes), and each moves
 * a kind of row with it: the copy bandwidth the large rows, the round trip the tiny ones, where
 * every call hands a line from one core to the other. */
#include "bench.h"

#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define STATE_BYTES        ((size_t)16 << 20) /* per rank, beyond the caches */
#define ROUND_TRIPS        100000
#define ROUND_TRIP_SECONDS 0.05

/* GB/s of every rank copying STATE_BYTES at once (0: a rank could not allocate). */
static double copy_state(MPI_Comm comm, const shmcoll_bench_options_t *o) {
    char *a = malloc(STATE_BYTES), *b = malloc(STATE_BYTES);
    int ok = a && b, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    double gbs = 0;
    if (all_ok) {
        memset(a, 1, STATE_BYTES); /* pages in */
        memset(b, 2, STATE_BYTES);
        gbs = shmcoll_bench_copy_measure(b, a, STATE_BYTES, comm, o);
    }
    free(a);
    free(b);
    return gbs;
}

/* The value rank 0 answers with once it has its time, ending rank 1's loop. */
#define LINE_STOP LONG_MAX

/* Waits until *line holds more than `last`: spins, and yields now and then, since ranks that
 * share a core (oversubscribed) must let each other run. Returns the value. */
static long line_wait(_Atomic long *line, long last) {
    long v;
    for (unsigned spins = 1; (v = atomic_load_explicit(line, memory_order_acquire)) <= last;
         spins++)
        if (spins % 1024 == 0) sched_yield();
    return v;
}

/* Nanoseconds of a cache line's round trip between the node's first two ranks: rank 0 stores to
 * its line, rank 1 answers on its own, ROUND_TRIPS times or for ROUND_TRIP_SECONDS, whichever
 * ends first (oversubscribed, a round trip is a time slice). 0 where the node has one rank or the
 * MPI library gives no shared window. Collective over `comm`. */
static double line_state(MPI_Comm comm) {
    MPI_Comm node;
    int rank, size;
    if (PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return 0;
    PMPI_Comm_rank(node, &rank);
    PMPI_Comm_size(node, &size);
    double ns = 0;
    MPI_Win win;
    _Atomic long *lines = NULL; /* two lines 128 bytes apart (adjacent-line prefetch) on rank 0 */
    if (size >= 2 && PMPI_Win_allocate_shared(rank == 0 ? 256 : 0, 1, MPI_INFO_NULL, node, &lines,
                                              &win) == MPI_SUCCESS) {
        MPI_Aint bytes;
        int unit;
        PMPI_Win_shared_query(win, 0, &bytes, &unit, &lines);
        _Atomic long *mine = lines + (rank == 0 ? 0 : 16), *theirs = lines + (rank == 0 ? 16 : 0);
        if (rank < 2) atomic_store_explicit(mine, 0, memory_order_relaxed);
        PMPI_Barrier(node);
        const double start = PMPI_Wtime();
        long trips = 0;
        if (rank == 0) {
            while (trips < ROUND_TRIPS && PMPI_Wtime() - start < ROUND_TRIP_SECONDS) {
                atomic_store_explicit(mine, ++trips, memory_order_release);
                line_wait(theirs, trips - 1);
            }
            ns = (PMPI_Wtime() - start) / (double)trips * 1e9;
            atomic_store_explicit(mine, LINE_STOP, memory_order_release);
        } else if (rank == 1) {
            for (long v = 0; (v = line_wait(theirs, v)) != LINE_STOP;)
                atomic_store_explicit(mine, v, memory_order_release);
        }
        PMPI_Win_free(&win);
    }
    PMPI_Bcast(&ns, 1, MPI_DOUBLE, 0, node);
    PMPI_Comm_free(&node);
    return ns;
}

shmcoll_bench_state_t shmcoll_bench_state(MPI_Comm comm, const shmcoll_bench_options_t *o) {
    return (shmcoll_bench_state_t){.copy_gbs = o->copy ? copy_state(comm, o) : 0,
                                   .round_trip_ns = line_state(comm)};
}
