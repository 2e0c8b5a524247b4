/* The machine's copy bandwidth at a size, measured in the same run as the collectives.
 *
 * Every rank memcpy's `bytes` from one buffer to another, repeatedly, all ranks at the same time
 * (they start each loop after a barrier), so the ranks compete for caches and memory as they do
 * in a collective. A copy loads and stores `bytes` each: 2 * bytes of data access per copy, the
 * same unit as shmcoll's DAV. The rate of every rank is summed. Below the cache size the buffers
 * stay in cache (a copy from cache); when the ranks' buffers together exceed the last-level cache
 * (16 MiB and up per rank on most machines) every copy streams from and to memory: that is the
 * ceiling a memory-bound collective can approach. The iteration count is calibrated like the
 * collectives' (or --iters), and agreed over ranks so all copy for about as long. */
#include "bench.h"

#include <string.h>

#define CALIBRATION_SECONDS 0.02
#define MIN_ITERS           3
#define MAX_ITERS           10000000L

/* Seconds this rank spends on `iters` copies, started together with the other ranks. */
static double copy_loop(void *dst, const void *src, size_t bytes, long iters, MPI_Comm comm) {
    PMPI_Barrier(comm);
    double start = PMPI_Wtime();
    for (long i = 0; i < iters; i++) {
        memcpy(dst, src, bytes);
        /* The same copy again is a dead store to the compiler: make it happen every time. */
        __asm__ volatile("" : : "r"(dst) : "memory");
    }
    return PMPI_Wtime() - start;
}

static double slowest(double seconds, MPI_Comm comm) {
    PMPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
    return seconds;
}

double shmcoll_bench_copy_measure(void *dst, const void *src, size_t bytes, MPI_Comm comm,
                                  const shmcoll_bench_options_t *o) {
    copy_loop(dst, src, bytes, 1, comm); /* warm-up: pages and, when they fit, caches */
    long iters = o->iters;
    if (!iters) {
        long n = 1;
        double t;
        while ((t = slowest(copy_loop(dst, src, bytes, n, comm), comm)) < CALIBRATION_SECONDS &&
               n < MAX_ITERS) {
            double grow = t > 0 ? 1.5 * CALIBRATION_SECONDS / t : 64;
            n = (long)((double)n * (grow < 2 ? 2 : grow > 64 ? 64 : grow));
        }
        /* Loops as long as those of the collectives that get the default shorter time. */
        double target = shmcoll_bench_options_target(o, SHMCOLL_BENCH_NCOLL);
        iters = (long)(target / (t / (double)n));
        if (iters < MIN_ITERS) iters = MIN_ITERS;
        if (iters > MAX_ITERS) iters = MAX_ITERS;
    }
    double seconds = 0;
    for (int r = 0; r < o->rounds; r++) seconds += copy_loop(dst, src, bytes, iters, comm);
    double gbs = seconds > 0 ? 2.0 * (double)bytes * (double)iters * o->rounds / seconds / 1e9 : 0;
    PMPI_Allreduce(MPI_IN_PLACE, &gbs, 1, MPI_DOUBLE, MPI_SUM, comm);
    return gbs;
}
