/* How one case is measured.
 *
 * 1. Warm-up: a few untimed iterations of each implementation (the first call of shmcoll on a
 *    communicator sets up its shared segment; the first call at a size faults pages in).
 * 2. Calibration (unless --iters is given): loops of growing length of both implementations until
 *    the slower one takes 20 ms, agreed over ranks (PMPI_Allreduce MAX), so every rank runs the
 *    same iteration count; the best rate seen is scaled to the target time per loop (--time;
 *    by default 0.03 s for barrier, bcast, reduce, allreduce and 0.015 s for the others).
 * 3. `rounds` timed loops per implementation (more, an even number, where loops are short of
 *    SHMCOLL_BENCH_MIN_CALLS calls in all), alternating in ABBA order (MPI, shmcoll, shmcoll,
 *    MPI, ...) so slow drift and any advantage of going first or second cancel. Each loop starts
 *    after a PMPI_Barrier. Without cache-bust the loop is timed as a whole; with it each call is
 *    timed alone, after its (untimed) rewrite of the send buffer and a PMPI_Barrier.
 * 4. Each loop's mean time per call is reduced with MAX over the ranks (the slowest rank is what
 *    the application waits for; with --rank-mean the mean over the ranks, OSU's average latency,
 *    which counts a rank that leaves a call early, a root or an eager sender, as early), and each
 *    implementation's row shows the median over its loops:
 *    a loop that the machine stalled (another process's burst on one of the cores) moves a mean
 *    of all loops, not the median. (Two runs of `make bench` on MPICH, p = 2, with 6 rounds: rows
 *    below 0.95x 9 and 8 by the mean of the loops, 7 and 6 by their median, the same loops.)
 *    The MPI library's loops in two halves, one against the other, give the row's noise floor
 *    (mpi_against_itself), which the summary counts as the promise's rows are counted.
 * 5. shmcoll's DAV counter (bytes its kernels load and store on this rank) is read before and
 *    after the timed loops; the growth per call, summed over ranks, is the DAV per call.
 * Every loop, warm-up and calibration included, ends with a check of its last iteration's result
 * on the ranks that receive one (expect.c); a wrong result aborts the job naming the case.
 *
 * First calls (--first-calls N), as OSU-style benchmarks time a size: every loop runs on a fresh
 * duplicate of the communicator, N/10 untimed calls and then N calls, each timed alone after a
 * PMPI_Barrier; no calibration, `rounds` loops per implementation alternating as above. So the
 * rows include what a communicator's first calls of a size cost (shmcoll's measurement of its
 * ways, the MPI library's first uses), which the calibrated loops leave out. No DAV column.
 *
 * Forms (--form): a non-blocking call is timed from its post to the end of its MPI_Wait; a
 * persistent one is created once per case and implementation (not timed) and timed from its
 * MPI_Start to the end of its MPI_Wait.
 *
 * Overlap (--overlap, non-blocking form), as OSU's osu_iallreduce measures it: with t_pure the
 * post + wait time measured above, each iteration posts, computes (a busy loop) for t_pure and
 * waits; with t_total that iteration's time and t_compute the busy loop's own,
 * overlap = 1 - (t_total - t_compute) / t_pure, in percent, mean over the iterations, minimum over
 * the ranks. 100% means the collective cost nothing beyond the computation. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

#include "shmcoll_mpi.h"

/* The calibration stops once the slower implementation's loop takes this long. */
#define CALIBRATION_SECONDS 0.02
#define PROBE_MIN_SECONDS   0.001
/* Even the slowest case runs a few calls per loop, so one stall does not decide its mean. */
#define MIN_ITERS 3
#define MAX_ITERS 10000000L

/* A different tag for every loop of the run (and every iteration with cache-bust), so no loop can
 * pass its check with a stale result. Identical on all ranks: all run the same loops. */
static unsigned long next_tag;

/* Write the inputs of an iteration with `tag`: every rank's send buffer (nothing on the ranks
 * that send nothing: bcast and scatter(v) receivers). */
static void write_input(const shmcoll_bench_case_t *c, unsigned long tag) {
    if (c->send_elems) shmcoll_bench_data_fill(c->type, c->sendbuf, c->send_elems, c->rank, tag);
}

/* Before a loop: inputs, and poisoned destinations (bcast receives into its one buffer). */
static void prepare(const shmcoll_bench_case_t *c, unsigned long tag) {
    write_input(c, tag);
    void *dest = c->coll == SHMCOLL_BENCH_BCAST ? c->sendbuf : c->recvbuf;
    shmcoll_bench_data_poison(dest, c->recv_elems * shmcoll_bench_data_elem_size(c->type));
}

/* This rank's cumulative DAV on the case's communicator, from libshmcoll's public query. The
 * reference is weak so the benchmark also runs on a library without it: then 0 is returned
 * and the DAV column shows "-". */
#pragma weak shmcoll_stats_dav
static int dav_read(const shmcoll_bench_case_t *c, unsigned long long *dav) {
    *dav = 0;
    return shmcoll_stats_dav && shmcoll_stats_dav(c->comm, dav) == MPI_SUCCESS;
}

static void call_or_abort(const shmcoll_bench_case_t *c, shmcoll_bench_impl_t impl) {
    int rc = shmcoll_bench_call_run(c, impl);
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

/* Whether the MPI library's own result was wrong on this rank in the row being measured:
 * printed once (expect.c), and its later loops of the row are not checked again. */
static int mpi_wrong;

static void check_result(const shmcoll_bench_case_t *c, shmcoll_bench_impl_t impl,
                         unsigned long tag) {
    if (impl == SHMCOLL_BENCH_IMPL_MPI && mpi_wrong) return;
    mpi_wrong |= shmcoll_bench_expect_check(c, impl, tag);
}

/* One checked loop of `untimed` and then `iters` calls, each timed alone after a PMPI_Barrier
 * (with cache-bust, after its untimed rewrite of the send buffer: without the barrier, ranks that
 * rewrite nothing, bcast's receivers, would time the root's rewrite); returns this rank's seconds
 * in the timed calls. With own_barrier, shmcoll's calls follow MPI_Barrier, shmcoll's barrier, as
 * in a benchmark run preloaded against the same run without it: where a rooted collective's
 * receivers leave a barrier before its root, they wait in the call for the difference. */
static double alone_loop(const shmcoll_bench_case_t *c, shmcoll_bench_impl_t impl, long untimed,
                         long iters) {
    unsigned long tag = next_tag;
    next_tag += c->cache_bust ? (unsigned long)(untimed + iters) : 1;
    prepare(c, tag);
    double seconds = 0;
    for (long i = -untimed; i < iters; i++) {
        if (c->cache_bust && i > -untimed) write_input(c, ++tag);
        if (c->own_barrier && impl == SHMCOLL_BENCH_IMPL_SHMCOLL)
            MPI_Barrier(c->comm);
        else
            PMPI_Barrier(c->comm);
        const double start = PMPI_Wtime();
        call_or_abort(c, impl);
        if (i >= 0) seconds += PMPI_Wtime() - start;
    }
    check_result(c, impl, tag);
    return seconds;
}

/* One checked loop of `iters` calls; returns this rank's seconds spent in the calls. */
static double timed_loop(const shmcoll_bench_case_t *c, shmcoll_bench_impl_t impl, long iters) {
    if (c->cache_bust) return alone_loop(c, impl, 0, iters);
    const unsigned long tag = next_tag++;
    prepare(c, tag);
    PMPI_Barrier(c->comm);
    const double start = PMPI_Wtime();
    for (long i = 0; i < iters; i++) call_or_abort(c, impl);
    const double seconds = PMPI_Wtime() - start;
    check_result(c, impl, tag);
    return seconds;
}

/* --first-calls: one loop on a fresh duplicate of the case's communicator (see the top); returns
 * this rank's seconds in the timed calls. */
static double first_calls_loop(const shmcoll_bench_case_t *c_, shmcoll_bench_impl_t impl,
                               long calls) {
    shmcoll_bench_case_t fresh = *c_;
    MPI_Comm_dup(c_->comm, &fresh.comm); /* through shmcoll: it knows the communicator anew */
    const double seconds = alone_loop(&fresh, impl, calls / 10, calls);
    MPI_Comm_free(&fresh.comm);
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
        /* A call so slow that even twice the rate would give the minimum count: a second probe
         * cannot change the outcome and costs seconds at the largest sizes. */
        if (n == 1 && t * MIN_ITERS >= 2 * target) break;
        /* Aim past the threshold from the rate seen so far, growing 2- to 64-fold a step. */
        double grow = t > 0 ? 1.5 * CALIBRATION_SECONDS / t : 64;
        n = (long)((double)n * (grow < 2 ? 2 : grow > 64 ? 64 : grow));
        if (n > MAX_ITERS) n = MAX_ITERS;
    }
    double iters = best > 0 ? target / best : (double)MAX_ITERS;
    if (iters < MIN_ITERS) return MIN_ITERS;
    return iters > MAX_ITERS ? MAX_ITERS : (long)iters;
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of `n` values (sorted in place). */
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The noise floor of a row: the MPI library's loops in two halves, each the median of its loops,
 * the one half's against the other's as a speedup. The halves take rounds 0, 3, 4, 7, 8, ... and
 * 1, 2, 5, 6, ...: in the ABBA order each half has the MPI library going first and going second
 * as often (within one for 6 rounds), so the ratio holds the run's noise and not the order's.
 * Each half has half the loops of a column, so the ratio spreads somewhat more than a speedup
 * does. 0 below 4 rounds. `loops` is reordered. */
static double mpi_against_itself(double *loops, int rounds) {
    if (rounds < 4) return 0;
    int n = 0; /* the first half moves to the front; what it passes is all of the second */
    for (int r = 0; r < rounds; r++)
        if (r % 4 == 0 || r % 4 == 3) {
            const double t = loops[n];
            loops[n++] = loops[r];
            loops[r] = t;
        }
    const double first = median(loops, n), second = median(loops + n, rounds - n);
    return second > 0 ? first / second : 0;
}

/* Busy computation for `seconds` (touching no memory beyond a counter); returns its own time. */
static double compute(double seconds) {
    volatile unsigned long spin = 0;
    const double start = PMPI_Wtime();
    double now;
    while ((now = PMPI_Wtime()) - start < seconds) spin = spin + 1;
    return now - start;
}

/* Percent overlap of `impl` (see the top), agreed as the minimum over ranks. */
static double overlap_measure(shmcoll_bench_case_t *c, shmcoll_bench_impl_t impl, long iters,
                              double pure_usec) {
    const double pure = pure_usec * 1e-6;
    double total = 0, busy = 0;
    prepare(c, next_tag);
    for (long i = 0; i < iters; i++) {
        MPI_Request request;
        PMPI_Barrier(c->comm);
        const double start = PMPI_Wtime();
        if (shmcoll_bench_call_post(c, impl, SHMCOLL_BENCH_FORM_NONBLOCKING, &request) !=
            MPI_SUCCESS)
            call_or_abort(c, impl); /* reports the failure */
        busy += compute(pure);
        shmcoll_bench_call_wait(c, impl, &request);
        total += PMPI_Wtime() - start;
    }
    check_result(c, impl, next_tag++);
    double percent = pure > 0 ? 100.0 * (1.0 - (total - busy) / ((double)iters * pure)) : 0;
    if (percent < 0) percent = 0;
    PMPI_Allreduce(MPI_IN_PLACE, &percent, 1, MPI_DOUBLE, MPI_MIN, c->comm);
    return percent;
}

/* The persistent form's requests, one per implementation, for the case's buffers. */
static void persistent_create(shmcoll_bench_case_t *c) {
    for (int impl = 0; impl < SHMCOLL_BENCH_NIMPL; impl++)
        if (shmcoll_bench_call_post(c, (shmcoll_bench_impl_t)impl, SHMCOLL_BENCH_FORM_PERSISTENT,
                                    &c->persistent[impl]) != MPI_SUCCESS) {
            fprintf(stderr, "shmcoll-bench: %s_init failed on rank %d\n",
                    shmcoll_bench_coll_name(c->coll), c->rank);
            MPI_Abort(MPI_COMM_WORLD, 4);
        }
}

static void persistent_free(shmcoll_bench_case_t *c) {
    PMPI_Request_free(&c->persistent[SHMCOLL_BENCH_IMPL_MPI]);
    MPI_Request_free(&c->persistent[SHMCOLL_BENCH_IMPL_SHMCOLL]);
}

void shmcoll_bench_measure_run(const shmcoll_bench_case_t *c_, const shmcoll_bench_options_t *o,
                               shmcoll_bench_result_t *result) {
    shmcoll_bench_case_t case_copy = *c_, *c = &case_copy;
    mpi_wrong = 0;
    if (c->form == SHMCOLL_BENCH_FORM_PERSISTENT) persistent_create(c);
    long iters = o->first_calls;
    if (!iters) {
        /* Calibration starts with single calls, which warm up further. */
        long warmup = o->iters ? (o->iters + 9) / 10 : 1;
        timed_loop(c, SHMCOLL_BENCH_IMPL_MPI, warmup);
        timed_loop(c, SHMCOLL_BENCH_IMPL_SHMCOLL, warmup);
        iters = o->iters ? o->iters : calibrate(c, shmcoll_bench_options_target(o, c->coll));
    }
    int rounds = o->rounds;
    if (!o->iters && !o->first_calls && (long)rounds * iters < SHMCOLL_BENCH_MIN_CALLS) {
        rounds = (int)((SHMCOLL_BENCH_MIN_CALLS + iters - 1) / iters);
        rounds += rounds % 2;
    }

    /* The DAV counter only grows in shmcoll's calls, so its growth over the whole run of timed
     * loops (the MPI library's loops add nothing) divided by the calls is the DAV per call. */
    unsigned long long dav_start, dav_end;
    int dav_known = !o->first_calls && dav_read(c, &dav_start);
    /* Each loop's time per call on this rank, impl-major, then the two flags below. */
    const int nvals = SHMCOLL_BENCH_NIMPL * rounds + 2;
    double *mine = calloc((size_t)nvals, sizeof *mine),
           *worst = calloc((size_t)nvals, sizeof *worst);
    if (!mine || !worst) {
        fprintf(stderr, "shmcoll-bench: out of memory for %d rounds\n", rounds);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    for (int r = 0; r < rounds; r++) {
        shmcoll_bench_impl_t first = r % 2 ? SHMCOLL_BENCH_IMPL_SHMCOLL : SHMCOLL_BENCH_IMPL_MPI;
        shmcoll_bench_impl_t second = r % 2 ? SHMCOLL_BENCH_IMPL_MPI : SHMCOLL_BENCH_IMPL_SHMCOLL;
        mine[first * rounds + r] =
            o->first_calls ? first_calls_loop(c, first, iters) : timed_loop(c, first, iters);
        mine[second * rounds + r] =
            o->first_calls ? first_calls_loop(c, second, iters) : timed_loop(c, second, iters);
    }
    dav_known = dav_read(c, &dav_end) && dav_known;
    const double calls = (double)iters * rounds;
    for (int i = 0; i < SHMCOLL_BENCH_NIMPL * rounds; i++) mine[i] *= 1e6 / (double)iters;
    mine[nvals - 2] = !dav_known;
    mine[nvals - 1] = mpi_wrong;
    double dav = dav_known ? (double)(dav_end - dav_start) / calls : 0;
    PMPI_Reduce(mine, worst, nvals, MPI_DOUBLE, MPI_MAX, 0, c->comm);
    if (o->rank_mean) { /* the loops' times: the mean over the ranks instead (the flags stay) */
        PMPI_Reduce(mine, worst, nvals - 2, MPI_DOUBLE, MPI_SUM, 0, c->comm);
        for (int i = 0; i < nvals - 2; i++) worst[i] /= c->nprocs;
    }
    PMPI_Reduce(&dav, &result->dav, 1, MPI_DOUBLE, MPI_SUM, 0, c->comm);
    /* First: the medians below sort each implementation's loops out of their rounds' order. */
    result->mpi_self = mpi_against_itself(worst + SHMCOLL_BENCH_IMPL_MPI * rounds, rounds);
    for (int i = 0; i < SHMCOLL_BENCH_NIMPL; i++)
        result->usec[i] = median(worst + i * rounds, rounds);
    result->dav_known = worst[nvals - 2] == 0;
    result->mpi_wrong = worst[nvals - 1] != 0;
    result->iters = iters;
    result->rounds = rounds;
    result->copy_gbs = 0;
    for (int i = 0; i < SHMCOLL_BENCH_NIMPL; i++) result->overlap[i] = -1;
    if (o->overlap && c->form == SHMCOLL_BENCH_FORM_NONBLOCKING && !c->cache_bust) {
        /* Every rank computes for the slowest rank's time (rank 0 has it), as OSU does. */
        double pure[SHMCOLL_BENCH_NIMPL] = {result->usec[0], result->usec[1]};
        PMPI_Bcast(pure, SHMCOLL_BENCH_NIMPL, MPI_DOUBLE, 0, c->comm);
        long n = iters < 1000 ? iters : 1000;
        for (int i = 0; i < SHMCOLL_BENCH_NIMPL; i++)
            result->overlap[i] = overlap_measure(c, (shmcoll_bench_impl_t)i, n, pure[i]);
    }
    free(mine);
    free(worst);
    if (c->form == SHMCOLL_BENCH_FORM_PERSISTENT) persistent_free(c);
}
