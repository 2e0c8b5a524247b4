/* How one case is measured.
 *
 * 1. Warm-up: a few untimed iterations of each implementation (the first call of shmcoll on a
 *    communicator sets up its shared segment; the first call at a size faults pages in).
 * 2. Calibration (unless --iters is given): loops of growing length of both implementations until
 *    the slower one takes 20 ms, agreed over ranks (PMPI_Allreduce MAX), so every rank runs the
 *    same iteration count; the best rate seen is scaled to the target time per loop (--time).
 * 3. `rounds` timed loops per implementation, alternating in ABBA order (MPI, shmcoll, shmcoll,
 *    MPI, ...) so slow drift and any advantage of going first or second cancel. Each loop starts
 *    after a PMPI_Barrier. Without cache-bust the loop is timed as a whole; with it each call is
 *    timed alone, after its (untimed) rewrite of the send buffer and a PMPI_Barrier.
 * 4. The per-rank mean time per call over all timed loops is reduced with MAX to rank 0: the
 *    slowest rank is what the application waits for.
 * Every loop, warm-up and calibration included, ends with a check of its last iteration's result
 * on the ranks that receive one; a wrong result aborts the job with a message naming the case. */
#include "bench.h"

#include <stdio.h>

/* The calibration stops once the slower implementation's loop takes this long. */
#define CALIBRATION_SECONDS 0.02
#define PROBE_MIN_SECONDS   0.001
/* Even the slowest case runs a few calls per loop, so one stall does not decide its mean. */
#define MIN_ITERS 3
#define MAX_ITERS 10000000L

/* A different tag for every loop of the run (and every iteration with cache-bust), so no loop can
 * pass its check with a stale result. Identical on all ranks: all run the same loops. */
static unsigned long next_tag;

/* One call. PMPI_* is the MPI library; MPI_* resolves to shmcoll, which is linked first. */
static int call(const shmcoll_bench_case_t *c, shmcoll_bench_impl_t impl) {
    const int lib = impl == SHMCOLL_BENCH_IMPL_MPI;
    MPI_Datatype type = shmcoll_bench_data_mpi_type(c->type, c->coll);
    int count = (int)c->count;
    switch (c->coll) {
    case SHMCOLL_BENCH_BARRIER:
        return lib ? PMPI_Barrier(c->comm) : MPI_Barrier(c->comm);
    case SHMCOLL_BENCH_BCAST:
        return lib ? PMPI_Bcast(c->sendbuf, count, type, c->root, c->comm)
                   : MPI_Bcast(c->sendbuf, count, type, c->root, c->comm);
    case SHMCOLL_BENCH_REDUCE:
        return lib ? PMPI_Reduce(c->sendbuf, c->recvbuf, count, type, MPI_SUM, c->root, c->comm)
                   : MPI_Reduce(c->sendbuf, c->recvbuf, count, type, MPI_SUM, c->root, c->comm);
    case SHMCOLL_BENCH_ALLREDUCE:
        return lib ? PMPI_Allreduce(c->sendbuf, c->recvbuf, count, type, MPI_SUM, c->comm)
                   : MPI_Allreduce(c->sendbuf, c->recvbuf, count, type, MPI_SUM, c->comm);
    default:
        return MPI_ERR_ARG;
    }
}

/* Write the inputs of an iteration with `tag`: the send buffer of every rank, or of the root
 * only for bcast (the other ranks' buffer is its destination). */
static void write_input(const shmcoll_bench_case_t *c, unsigned long tag) {
    if (c->coll == SHMCOLL_BENCH_BARRIER) return;
    if (c->coll == SHMCOLL_BENCH_BCAST && c->rank != c->root) return;
    shmcoll_bench_data_fill(c->type, c->sendbuf, c->count, c->rank, tag);
}

/* Before a loop: inputs, and poisoned destinations. */
static void prepare(const shmcoll_bench_case_t *c, unsigned long tag) {
    if (c->coll == SHMCOLL_BENCH_BARRIER) return;
    write_input(c, tag);
    if (c->coll == SHMCOLL_BENCH_BCAST) {
        if (c->rank != c->root) shmcoll_bench_data_poison(c->sendbuf, c->bytes);
    } else {
        shmcoll_bench_data_poison(c->recvbuf, c->bytes);
    }
}

static void check(const shmcoll_bench_case_t *c, shmcoll_bench_impl_t impl, unsigned long tag) {
    const void *result;
    switch (c->coll) {
    case SHMCOLL_BENCH_BCAST:
        result = c->sendbuf;
        break;
    case SHMCOLL_BENCH_REDUCE:
        result = c->rank == c->root ? c->recvbuf : NULL;
        break;
    case SHMCOLL_BENCH_ALLREDUCE:
        result = c->recvbuf;
        break;
    default:
        result = NULL;
        break;
    }
    if (result == NULL) return;
    double got, want;
    size_t bad = shmcoll_bench_data_check(c, result, tag, &got, &want);
    if (bad == (size_t)-1) return;
    char root[32] = "";
    if (c->coll != SHMCOLL_BENCH_ALLREDUCE) snprintf(root, sizeof root, ", root %d", c->root);
    fprintf(stderr,
            "shmcoll-bench: WRONG RESULT of %s (%s implementation), %zu bytes of %s%s, "
            "rank %d of %d: element %zu is %.17g, expected %.17g\n",
            shmcoll_bench_coll_name(c->coll), shmcoll_bench_impl_name(impl), c->bytes,
            shmcoll_bench_type_name(c->type), root, c->rank, c->nprocs, bad, got, want);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

static void call_or_abort(const shmcoll_bench_case_t *c, shmcoll_bench_impl_t impl) {
    int rc = call(c, impl);
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    PMPI_Error_string(rc, text, &len);
    fprintf(stderr, "shmcoll-bench: %s (%s implementation), %zu bytes, rank %d failed: %s\n",
            shmcoll_bench_coll_name(c->coll), shmcoll_bench_impl_name(impl), c->bytes, c->rank,
            text);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 4);
}

/* One checked loop of `iters` calls; returns this rank's seconds spent in the calls. */
static double timed_loop(const shmcoll_bench_case_t *c, shmcoll_bench_impl_t impl, long iters) {
    unsigned long tag = next_tag;
    next_tag += c->cache_bust ? (unsigned long)iters : 1;
    prepare(c, tag);
    PMPI_Barrier(c->comm);
    double seconds = 0;
    if (!c->cache_bust) {
        double start = PMPI_Wtime();
        for (long i = 0; i < iters; i++) call_or_abort(c, impl);
        seconds = PMPI_Wtime() - start;
    } else {
        for (long i = 0; i < iters; i++) {
            write_input(c, tag + (unsigned long)i);
            /* Without it, ranks that rewrite nothing (bcast) would time the root's rewrite. */
            PMPI_Barrier(c->comm);
            double start = PMPI_Wtime();
            call_or_abort(c, impl);
            seconds += PMPI_Wtime() - start;
        }
        tag += (unsigned long)iters - 1;
    }
    check(c, impl, tag);
    return seconds;
}

/* Iterations per timed loop so that the slower implementation takes about `target` seconds.
 * The rate is the best seen over probes long enough to time (>= 1 ms), and at least two such
 * probes are taken: one loop stalled by a descheduled rank must not shrink the count to a few
 * iterations. */
static long calibrate(const shmcoll_bench_case_t *c, double target) {
    long n = 1;
    int timed = 0;
    double best = 0; /* seconds per iteration */
    for (;;) {
        double t = timed_loop(c, SHMCOLL_BENCH_IMPL_MPI, n);
        double ts = timed_loop(c, SHMCOLL_BENCH_IMPL_SHMCOLL, n);
        if (ts > t) t = ts;
        PMPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, c->comm);
        if (t >= PROBE_MIN_SECONDS) {
            double rate = t / (double)n;
            if (timed++ == 0 || rate < best) best = rate;
        }
        if ((t >= CALIBRATION_SECONDS && timed >= 2) || n >= MAX_ITERS) break;
        /* Aim past the threshold from the rate seen so far, growing 2- to 64-fold a step. */
        double grow = t > 0 ? 1.5 * CALIBRATION_SECONDS / t : 64;
        n = (long)((double)n * (grow < 2 ? 2 : grow > 64 ? 64 : grow));
        if (n > MAX_ITERS) n = MAX_ITERS;
    }
    double iters = best > 0 ? target / best : (double)MAX_ITERS;
    if (iters < MIN_ITERS) return MIN_ITERS;
    return iters > MAX_ITERS ? MAX_ITERS : (long)iters;
}

void shmcoll_bench_measure_run(const shmcoll_bench_case_t *c, const shmcoll_bench_options_t *o,
                               shmcoll_bench_result_t *result) {
    long warmup = o->iters ? (o->iters + 9) / 10 : 2;
    timed_loop(c, SHMCOLL_BENCH_IMPL_MPI, warmup);
    timed_loop(c, SHMCOLL_BENCH_IMPL_SHMCOLL, warmup);
    long iters = o->iters ? o->iters : calibrate(c, o->target);

    double seconds[SHMCOLL_BENCH_NIMPL] = {0, 0};
    for (int r = 0; r < o->rounds; r++) {
        shmcoll_bench_impl_t first = r % 2 ? SHMCOLL_BENCH_IMPL_SHMCOLL : SHMCOLL_BENCH_IMPL_MPI;
        shmcoll_bench_impl_t second = r % 2 ? SHMCOLL_BENCH_IMPL_MPI : SHMCOLL_BENCH_IMPL_SHMCOLL;
        seconds[first] += timed_loop(c, first, iters);
        seconds[second] += timed_loop(c, second, iters);
    }
    double usec[SHMCOLL_BENCH_NIMPL];
    for (int i = 0; i < SHMCOLL_BENCH_NIMPL; i++) {
        usec[i] = 1e6 * seconds[i] / ((double)iters * o->rounds);
    }
    PMPI_Reduce(usec, result->usec, SHMCOLL_BENCH_NIMPL, MPI_DOUBLE, MPI_MAX, 0, c->comm);
    result->iters = iters;
    result->rounds = o->rounds;
}
