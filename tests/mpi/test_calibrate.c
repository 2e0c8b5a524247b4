/* The selector's measurement (src/mpi/calibrate.h): the first calls of each size band take turns,
 * in blocks of 4 calls (bands below 64 KiB), between the band's candidates — the node team's
 * choice, the other rows of the kind that serve the call, the MPI library's own (always last) — a
 * warm-up round and then SHMCOLL_CALIBRATE / 4 timed rounds; then the verdict's way serves every
 * call of the band, the same on every rank, until the band is measured again after 64 times the
 * calls its turns and its loop check's two stretches (below) took; another row measured more than 2
 * times as slow as the verdict sits out the next measurements (the node team's choice and the MPI
 * library's never do). From 16 KiB the turns follow a probe: three calls of each candidate, the MPI
 * library's last, and only the candidates it kept take turns (none when it kept one), with no
 * warm-up round: the probe's calls warmed every way up. Below 64 KiB a verdict is checked in a loop
 * first (calibrate.c, check_begin): 128 calls of the verdict's way, 128 of the rival's (the MPI
 * library's, or where that is the verdict, shmcoll's fastest), then the way they chose, for the
 * interval; not where the rival was measured more than twice as slow.
 *
 * Run with SHMCOLL_CALIBRATE=4 (one timed round): with n candidates, call c of a band below 16
 * KiB is the MPI library's when (c / 4) % n == n - 1, for c < 8n; then the verdict's way for
 * 64 x (8n + 256) calls; then the turns again, of n2 candidates (n minus those left out; the MPI
 * library's block still the last of a turn).
 * Which way a call took shows in this rank's DAV (shmcoll_stats_dav): shmcoll's ways move bytes
 * through shared memory on every rank of the shapes run here, the MPI library's none. Two bands of
 * allreduce (two candidates: reductions have no alternative rows) and one of bcast are called
 * interleaved, so each band must keep its own count; every rank must have taken the same way on
 * every call, and every result is checked. */
#include "mpi_check.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TIMED   4    /* SHMCOLL_CALIBRATE */
#define BLOCK   4    /* calls of a candidate in a row, below 64 KiB */
#define RECHECK 64   /* measured again after this many times the measurement's calls */
#define SMALL   8    /* doubles */
#define LARGE   2048 /* doubles: another band */
#define BANDS   3
#define PROBED  16384 /* bytes: bands from here are probed first (calibrate.c, PROBE_BYTES) */
#define PROBE   3     /* ... with this many calls of each way (PROBE_CALLS) */
#define STRETCH 128   /* calls of each way in a loop check (calibrate.c) */

typedef int (*dav_fn)(MPI_Comm, unsigned long long *);

static unsigned long long dav_now(dav_fn dav) {
    unsigned long long bytes = 0;
    dav(MPI_COMM_WORLD, &bytes);
    return bytes;
}

/* One call of band b (0, 1: allreduce of SMALL, LARGE doubles; 2: bcast of SMALL doubles from
 * the last rank), its result checked. */
static void call_band(int b, int call, double *in, double *out) {
    const int p = check_size, n = b == 1 ? LARGE : SMALL;
    for (int i = 0; i < n; i++) in[i] = (double)(check_rank + 1) * (i + call);
    if (b < 2) {
        MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            if (!CHECK(out[i] == (double)p * (p + 1) / 2 * (i + call), "band %d call %d [%d]", b,
                       call, i))
                break;
        return;
    }
    MPI_Bcast(in, n, MPI_DOUBLE, p - 1, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
        if (!CHECK(in[i] == (double)p * (i + call), "bcast call %d [%d]", call, i)) break;
}

/* The candidates of the turns that begin at `ours` (the first block the MPI library took: the
 * blocks before it are shmcoll's rows). */
static int candidates(const char *ours, int calls) {
    int n = 1;
    while (n * BLOCK < calls && ours[(n - 1) * BLOCK]) n++;
    return n;
}

/* The loop check of a verdict reached at call c: where the call STRETCH later took the other way,
 * the verdict's stretch and the rival's, each one way throughout. Returns the call from which the
 * way they chose serves (c where the band was not checked). */
static int after_check(int b, const char *ours, int c, int calls) {
    if (c + 2 * STRETCH > calls || ours[c + STRETCH] == ours[c]) return c;
    for (int i = 0; i < 2 * STRETCH; i++)
        if (!CHECK(ours[c + i] == ours[i < STRETCH ? c : c + STRETCH],
                   "band %d call %d: a stretch of the loop check took both ways", b, c + i))
            break;
    return c + 2 * STRETCH;
}

/* The calls of a band below PROBED (`ours[c]`: whether call c took one of shmcoll's ways): the
 * candidates, the turns, the loop check, the settled way, and the turns again (of as many
 * candidates or fewer). */
static void check_turns(int b, const char *ours, int calls) {
    const int n = candidates(ours, calls);
    CHECK(n >= 2 && n <= 4, "band %d: %d candidates", b, n);
    const int measure = n * BLOCK * (1 + TIMED / BLOCK);
    const int settled = RECHECK * (measure + 2 * STRETCH);
    CHECK(calls >= 2 * measure + settled + 2 * STRETCH, "band %d: too few calls (%d) for the test",
          b, calls);
    const int from = after_check(b, ours, measure, calls); /* the settled way's first call */
    const int n2 = candidates(ours + from + settled, calls - from - settled);
    CHECK(n2 >= 2 && n2 <= n, "band %d: %d candidates measured again, of %d", b, n2, n);
    const int measure2 = n2 * BLOCK * (1 + TIMED / BLOCK);
    for (int c = 0; c < calls; c++) {
        const int in_turns = c < measure || (c >= from + settled && c < measure2 + from + settled);
        const int phase = c < measure ? c : c - from - settled;
        if (in_turns) {
            const int ways = c < measure ? n : n2;
            const int want = phase / BLOCK % ways != ways - 1;
            if (!CHECK(ours[c] == want, "band %d call %d: took %s's way in a turn of the other", b,
                       c, ours[c] ? "shmcoll" : "the MPI library"))
                return;
        } else if (c > from && c < from + settled) {
            if (!CHECK(ours[c] == ours[from],
                       "band %d call %d: calls after the verdict took "
                       "both ways",
                       b, c))
                return;
        }
    }
    if (check_rank == 0)
        printf("band %d: %d candidates, %s's way after the measurement%s\n", b, n,
               ours[from] ? "shmcoll" : "the MPI library",
               from > measure ? " and its loop check" : "");
}

/* The length of the run of calls from c that took the same way as call c. */
static int run_from(const char *ours, int c, int calls) {
    int end = c;
    while (end < calls && ours[end] == ours[c]) end++;
    return end - c;
}

/* A measurement's probe at call c (calibrate.c, probe_turn): PROBE calls of each of shmcoll's
 * candidates not pruned, then PROBE of the MPI library's; returns shmcoll's calls (0: none). */
static int probe_at(const char *ours, int c, int calls) {
    const int mine = ours[c] ? run_from(ours, c, calls) : 0;
    if (mine < PROBE || mine > 3 * PROBE || mine % PROBE || c + mine + PROBE > calls) return 0;
    for (int i = 0; i < PROBE; i++)
        if (ours[c + mine + i]) return 0;
    return mine;
}

/* The calls of a band from PROBED: the probe, the turns in blocks, the verdict's run of calls,
 * and the next measurement's probe. Which ways the probe leaves out depends on their times, so the
 * turns' number is not fixed (none when the probe left one way): the verdict's run begins by the
 * end of the timed turns of every candidate and, below 64 KiB, a loop check's two stretches, and
 * lasts at least 64 times the calls of two candidates' probe and turns and of the loop check. */
static void check_probed(int b, const char *ours, int calls) {
    const int mine = probe_at(ours, 0, calls), n = mine / PROBE + 1;
    if (!CHECK(mine > 0, "band %d: no probe (%d of shmcoll's calls, then the MPI library's two)", b,
               mine))
        return;
    const int turns = mine + PROBE;                                     /* the first turn's call */
    const int shortest = RECHECK * (2 * (PROBE + TIMED) + 2 * STRETCH); /* two ways */
    int verdict = -1;
    const int last = turns + n * TIMED + 2 * STRETCH;
    for (int c = turns; c <= last && verdict < 0; c++)
        if (run_from(ours, c, calls) >= shortest) verdict = c;
    if (!CHECK(verdict >= 0, "band %d: no verdict's run of %d calls after the turns", b, shortest))
        return;
    /* The run ends where the next probe's calls take the other way: a verdict of shmcoll's runs
     * into the probe's calls of shmcoll's and ends at the MPI library's two. */
    const int end = verdict + run_from(ours, verdict, calls);
    int next = -1;
    if (!ours[verdict]) next = end;
    for (int m = PROBE; ours[verdict] && m <= mine && end - m >= verdict; m += PROBE)
        if (probe_at(ours, end - m, calls) == m) next = end - m;
    if (!CHECK(end < calls && next >= 0 && probe_at(ours, next, calls) > 0,
               "band %d: the verdict's run (calls %d-%d) is not followed by a probe", b, verdict,
               end))
        return;
    if (check_rank == 0)
        printf("band %d: %d candidates, %s's way from call %d, measured again at call %d\n", b, n,
               ours[verdict] ? "shmcoll" : "the MPI library", verdict, next);
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    dav_fn dav = (dav_fn)dlsym(RTLD_DEFAULT, "shmcoll_stats_dav");
    CHECK(dav != NULL, "shmcoll_stats_dav is not exported");
    /* The most candidates a band may have (4) fix how many calls the test makes. */
    const int most = 4 * BLOCK * (1 + TIMED / BLOCK);
    const int calls = 2 * most + RECHECK * (most + 2 * STRETCH) + 2 * STRETCH;
    static double in[LARGE], out[LARGE];
    char *ours = calloc((size_t)BANDS * calls, 1); /* [band][call]: took shmcoll's way */
    char *all = calloc((size_t)BANDS * calls * check_size, 1);
    if (!CHECK(ours && all, "no memory")) return check_finish("test_calibrate");
    for (int call = 0; dav && call < calls; call++)
        for (int b = 0; b < BANDS; b++) {
            const unsigned long long before = dav_now(dav);
            call_band(b, call, in, out);
            ours[b * calls + call] = dav_now(dav) > before;
        }
    MPI_Allgather(ours, BANDS * calls, MPI_CHAR, all, BANDS * calls, MPI_CHAR, MPI_COMM_WORLD);
    for (int r = 0; r < check_size; r++)
        for (int i = 0; i < BANDS * calls; i++)
            if (!CHECK(all[(size_t)r * BANDS * calls + i] == ours[i],
                       "band %d call %d: rank %d took another way than %d", i / calls, i % calls, r,
                       check_rank))
                break;
    for (int b = 0; b < BANDS; b++)
        (b == 1 && LARGE * sizeof(double) >= PROBED ? check_probed
                                                    : check_turns)(b, ours + b * calls, calls);
    free(ours);
    free(all);
    return check_finish("test_calibrate");
}
