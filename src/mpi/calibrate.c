/* The selector's measurement: the candidates of a size band timed in turns, one verdict for every
 * rank, measured again now and then. See calibrate.h. */
#include "mpi/calibrate.h"

#include "base/config.h"
#include "base/log.h"
#include "core/task.h"
#include "group/compose.h"
#include "mpi/stats_view.h"
#include "select/loop_time.h"
#include "select/select.h"
#include "select/tune.h"
#include "shm/wait.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WAYS     4          /* the node team's choice, two other rows, the MPI library's */
#define RECHECK      64         /* measured again after this many times the calls it took */
#define RECHECK_MAX  (1u << 30) /* under given tuning: never measured */
#define RECHECK_GROW 64         /* the interval grows to at most this many times its start */
#define MEDIUM_BYTES ((size_t)64 << 10)
#define LARGE_BYTES  ((size_t)1 << 20)
#define HUGE_BYTES   ((size_t)8 << 20)
#define SPREAD       8     /* large bands: at least this many blocks per trial block (gap) */
#define SPREAD_MAX   64    /* ... and at most this many */
#define TRIAL_SHARE  0.025 /* ... so that the trials cost about this share of the band's time */
#define PRUNE        2.0   /* another row this many times slower than the verdict sits out ... */
#define PRUNE_ROUNDS 4     /* ... this many measurements (see prune) */
#define PROBE_BYTES  ((size_t)16 << 10) /* bands probed first: from here (see probe_turn) */
#define PROBE_CALLS  3    /* ... with this many calls of each way, the fastest counting */
#define PROBE_SLOWER 1.5  /* shmcoll's way this much slower in the probe sits out (probe_end) */
#define PROBE_MPI    3.0  /* ... the MPI library's, this many times slower than shmcoll's */
#define ROUND_SLOWER 1.2  /* a way this much slower after a round sits out the rest (round_end) */
#define ROUND_SINGLE 1.5  /* ... after a round of one call of each way (from HUGE_BYTES) */
#define TIE          1.05 /* a new verdict within this of the last one's time: a tie (settle) */
#define DRIFT        1.5 /* a band's watched calls (see watch) this much slower than measured ... */
#define DRIFT_CALLS  2   /* ... this many times in a row: measured again at once (see watch) */
#define AGREE_SHARE  0.005 /* agreements (watch, share_key) cost at most this share of the time */
#define WATCH_SPARSE 8     /* the watch comes at most this many times less often than watch_every */
#define SHARE_EVERY  256   /* a shared key is agreed at least every this many calls (share_key) */
#define SHARE_LAG    16    /* ... posted this many calls before its sums are taken, on one node */
#define STRETCH      128   /* the loop check's calls of each way (see check_begin) ... */
#define WARM_UP      64    /* ... the first this many of which are not counted */
#define CHECK_RANGE  2.0   /* ... where the rival's measured time is within this of the verdict's */
#define OUTLIER      32.0  /* ... its periods this many times the median left out */
#define RECOVERY     2     /* ... and this many periods after each of those */
#define MIN_PERIODS  16    /* ... and deciding only with this many periods of each way */
#define ROOT_LEAD    0.25  /* a barrier lets rank 0 out first (see exits_root_first) ... */
#define EXIT_SLOTS   32    /* ... told from at most this many of its calls, the first timed */
#define MIN_EXITS    4     /* ... and from no fewer */

/* The rows of each kind that move data in ways whose speed depends on the machine's state (single
 * copy against copy-in/copy-out; across nodes, allreduce's forms: one leader's step of the whole
 * vector against the leaders' shares), measured besides the node team's choice (the composition's)
 * where they serve: at most two of them. The barrier's: one that lets the last rank to arrive out
 * first and one that lets rank 0 out first (see choose). */
static const char *const alternatives[SHMCOLL_KIND_COUNT][3] = {
    [SHMCOLL_KIND_ALLREDUCE] = {"one-leader", "shares", "segments"},
    [SHMCOLL_KIND_REDUCE] = {"single-copy"},
    [SHMCOLL_KIND_BCAST] = {"single-copy", "pipeline"},
    [SHMCOLL_KIND_ALLGATHER] = {"single-copy", "pipeline"},
    [SHMCOLL_KIND_ALLGATHERV] = {"single-copy", "pipeline"},
    [SHMCOLL_KIND_GATHER] = {"single-copy", "pipeline"},
    [SHMCOLL_KIND_SCATTER] = {"single-copy", "pipeline"},
    [SHMCOLL_KIND_ALLTOALL] = {"single-copy", "rotated"},
    [SHMCOLL_KIND_BARRIER] = {"dissem", "root-first"},
};

/* The barrier's rows that let rank 0 out first: it releases the others once all arrived. */
static int releases_root_first(const char *row) {
    return row && (!strcmp(row, "root-first") || !strcmp(row, "knomial") || !strcmp(row, "hier"));
}

/* The key every rank takes for a collective whose sizes only some ranks know (key_local, call.h:
 * gatherv, scatterv, alltoallv): the ranks' mean share, agreed every few calls (see share_key). */
typedef struct shmcoll_mpi_calib_shared {
    size_t key;                          /* the ranks' mean share at the last agreement */
    uint32_t left;                       /* calls before the next agreement (0: at the next) */
    uint32_t every;                      /* calls between agreements */
    struct shmcoll_mpi_calib_band *band; /* the band of key, once a call has looked it up */
    double since;                        /* when the last agreement ended (posted, on one node) */
    double cost;                         /* this rank's time of the last allreduce */
    uint64_t posted;                     /* agreements posted in the team's mailbox ... */
    int box;                             /* ... box + 1 (0: none yet) */
    int pending;                         /* one posted, its sums taken when left reaches 0 */
} calib_shared_t;

typedef struct shmcoll_mpi_calib_band {
    uint32_t calls;             /* calls of the measurement so far */
    uint32_t spread;            /* large bands: calls since the measurement began, trials or not */
    uint8_t measuring;          /* 1 while the candidates take turns */
    uint8_t nways;              /* candidates (0: not found yet; the last is the MPI library's) */
    uint8_t verdict;            /* the way that serves, once measured */
    uint8_t check;              /* the loop check's stretch under way: 1 the measurement's
                                 * verdict's, 2 its rival's (0: none; see check_begin) */
    uint8_t check_ways[2];      /* the verdict and its rival in the check */
    uint8_t check_old;          /* the verdict before the measurement (0xff: none) */
    uint8_t measured;           /* a verdict was reached before */
    uint8_t skip;               /* ways (bit w) this measurement leaves out (pruned) */
    uint8_t skip_now;           /* ... and ways its probe left out (see probe_end) */
    uint8_t probing;            /* 1 while the measurement's probe runs (see probe_turn) */
    uint8_t probed;             /* the measurement opened with a probe (see warmup_calls) */
    uint8_t probe_at;           /* the way the probe's next call runs */
    uint8_t probe_again;        /* calls the probe's way in hand made */
    uint8_t round;              /* timed rounds of the measurement so far (see round_end) */
    uint8_t turn_k;             /* the round's block in hand: of the k-th way tried */
    uint32_t in_block;          /* calls of that block so far */
    uint8_t skip_rounds;        /* measurements the pruned ways still sit out */
    uint8_t gap;                /* large bands measured again: blocks per trial block */
    uint8_t urgent;             /* measured again because the verdict drifted: not spread */
    uint8_t drifted;            /* watched calls in a row slower than the verdict's time */
    uint8_t drift_kept;         /* a drift's measurement kept the verdict at its measured time
                                 * (see settle): a second drift before the band is due takes the
                                 * watched time */
    uint8_t watch_off;          /* not watched: a drift's verdict till due, a drifted verdict of
                                 * the MPI library's till its measurement ends */
    uint8_t tuned;              /* given tuning chooses (never measured) */
    uint8_t provisional;        /* a large band's first measurement, spread: the node team's
                                 * choice serves meanwhile (see band_for) */
    uint8_t interim;            /* ... or, once a trial was faster, the verdict field's way
                                 * (see interim) */
    uint8_t root_first;         /* the barrier's ways (bit w) that let rank 0 out first ... */
    uint8_t mpi_root_first;     /* ... and whether the MPI library's does (see settle) */
    uint32_t epoch;             /* changes with every verdict */
    uint32_t countdown;         /* calls the verdict serves before it is measured again */
    uint32_t interval;          /* the countdown's start */
    uint32_t watch_every;       /* one call in this many taking the verdict is watched (0: none) */
    const char *pick;           /* the node team's choice at the first call, for messages */
    const char *rows[MAX_WAYS]; /* way i's row (NULL: the node team's choice) */
    double gain;             /* the verdict's time per call below the MPI library's (statistics) */
    double settled;          /* the verdict's time per byte (the slowest rank's), watched against */
    double drift_seen;       /* the drifted verdict's last watched time per byte (see settle) */
    double agree_cost;       /* this rank's time of the last watched call's agreement */
    double best[MAX_WAYS];   /* this rank's fastest timed block of each way, per call (0: none) */
    double probe[MAX_WAYS];  /* this rank's time of each way's probe call */
    double block;            /* the time of the current block's calls so far */
    double between;          /* a provisional band's calls between trials: this rank's fastest
                              * block per call since the way serving them last changed ... */
    double between_block;    /* ... and the current block's time so far (see interim) */
    double *exits;           /* a barrier's first timed calls of the MPI library's way: their
                              * ends (EXIT_SLOTS, with root_first) ... */
    uint32_t exit_calls;     /* ... and how many */
    double *check_stamps;    /* the loop check's stamped calls' starts, STRETCH of each way ... */
    uint32_t check_calls[2]; /* ... and their number (see check_begin) */
    uint32_t check_grown;    /* the interval after the loop check where it keeps the old verdict */
    uint32_t check_base;     /* ... and where it does not */
    shmcoll_mpi_express_run_t lean;         /* the loop check's calls of the MPI library's way */
    uint64_t check_breaks[2][STRETCH / 64]; /* the stamps after calls of the band not stamped */
    int check_unstamped; /* a call of the band not stamped since the last stamp (check_mark) */
} calib_band_t;

/* A communicator's (its state's calib). */
typedef struct calib {
    calib_band_t *bands[SHMCOLL_MPI_COLL_COUNT];   /* [SHMCOLL_SELECT_BANDS] each, on first use */
    calib_shared_t shared[SHMCOLL_MPI_COLL_COUNT]; /* the key_local collectives' */
    int boxes;                                     /* mailboxes they took, in order of first use */
    int tuned; /* tuning was given when this state was made (unmeasured_row; a look-up per call
                * would format and compare the tuning's key under a lock) */
} calib_t;

static void calib_free(void *p) {
    calib_t *calib = p;
    for (int c = 0; c < SHMCOLL_MPI_COLL_COUNT; c++) {
        for (int b = 0; calib->bands[c] && b < SHMCOLL_SELECT_BANDS; b++) {
            free(calib->bands[c][b].check_stamps);
            free(calib->bands[c][b].exits);
        }
        free(calib->bands[c]);
    }
    free(calib);
}

/* Calls of one candidate in a row (a block): calls in a row overlap (a rank leaves a call while
 * a peer still finishes it, slots are double-buffered), which one call's time does not show, as
 * applications' loops and benchmarks make them: 4 below 64 KiB, 8 up to 1 MiB (a 256 KiB bcast
 * took 14-20 us a call in blocks of 2 and 27 us in a loop, as in blocks of 8), 4 up to 8 MiB
 * (Open MPI's segmented 2 MiB bcast took 270-380 us a call alone and 190 in a loop), 1 beyond.
 * Each call is timed from its start to its end, the first after the barrier too: timing the
 * calls' period instead (from the end of the first call to the end of the last) measured loops
 * better, but a call after a barrier worse, and the benchmark's rows that rewrite the buffer and
 * meet in a barrier before each call lost up to 3x (Open MPI, geometric mean over the rows 1.38
 * -> 1.23x, two runs each, alternated). */
static uint32_t block_calls(size_t bytes) {
    return bytes >= HUGE_BYTES ? 1 : bytes >= LARGE_BYTES ? 4 : bytes >= MEDIUM_BYTES ? 8 : 4;
}

/* Timed blocks of each candidate: SHMCOLL_CALIBRATE calls up to 1 MiB (at least one block), one
 * block up to 8 MiB, two blocks of one call beyond: a large call is long against the machine's
 * noise, and the band is measured again anyway, but one call of a candidate now and then takes
 * half as long again (faults, the memory state): Open MPI's 16 MiB alltoall measured single-copy
 * 11.4 ms against the MPI library's 6.9 ms once, 6.4-7.8 ms against 7.4-8.8 ms in the runs around
 * it; the best of two calls is that outlier only when both are, and a block of 4 calls averages
 * it. (Two blocks of 4 from 1 MiB cost more in trials of slow candidates than they saved: a
 * 2 MiB alltoall fell to 0.87x the MPI library's, its rotated row 4x slower.) */
static uint32_t timed_blocks(size_t bytes) {
    if (bytes >= LARGE_BYTES) return bytes >= HUGE_BYTES ? 2 : 1;
    const long blocks = shmcoll_config()->calibrate / (long)block_calls(bytes);
    return blocks > 1 ? (uint32_t)blocks : 1;
}

/* The ways (bit w) the measurement leaves out: pruned by earlier ones, or by its probe. */
static unsigned left_out(const calib_band_t *band) {
    return (unsigned)(band->skip | band->skip_now);
}

/* The candidates a measurement tries: all but the left out (1 before they are found). */
static uint32_t tried_ways(const calib_band_t *band) {
    return band->nways ? (uint32_t)(band->nways - __builtin_popcount(left_out(band))) : 1u;
}

/* The k-th candidate a measurement tries; a provisional band's (see interim) the MPI library's
 * first, the way shmcoll must never be slower than. */
static int tried_way(const calib_band_t *band, uint32_t k) {
    if (band->provisional && band->nways) k = (k + tried_ways(band) - 1) % tried_ways(band);
    for (int w = 0; w < band->nways; w++)
        if (!(left_out(band) >> w & 1) && k-- == 0) return w;
    return 0; /* before the candidates are found */
}

/* Whether a way serves the band's calls while it is measured: a verdict, or the node team's
 * choice for a first measurement spread (provisional, see band_for). */
static int has_way(const calib_band_t *band) {
    return band->measured || band->provisional;
}

/* Without a verdict, the way of a call that moves blocks: single copy where it serves (from
 * SHMCOLL_CMA_MIN, where the team may use cross-memory attach), the way that moves each byte once,
 * as the MPI library's rendezvous does; smaller calls the node team's choice. Copy-in/copy-out
 * moves each byte twice, through lines that one core writes and the other reads, and its speed
 * depends on the machine's state, which only a measurement sees. p = 2, 2-core AMD EPYC guest,
 * MPICH, MPI_Ibcast against the MPI library's: through the slot pipeline 0.79x at 128 KiB,
 * 0.20-0.39x at 32-128 KiB and 0.21-0.31x at 256 KiB-2 MiB in the state where a cache line's round
 * trip between the two cores takes 550-800 ns instead of 140 (host placement, minutes at a time);
 * single copy 1.08-1.30x at 32-128 KiB and 1.06-1.14x at 256 KiB-2 MiB in both states. The
 * collectives whose sizes only some ranks know (key_local) decide inside their row, and under
 * given tuning its rules choose. A band of 1 to 8 MiB measured first (provisional, see band_for)
 * serves its calls so too, and there reduce too takes single copy: Open MPI's reduce
 * of 2 MiB (OSU-style, p = 2) by the movement-avoiding chain took 1000-1150 us a call in the slow
 * state against the MPI library's 270-450, by single copy about the MPI library's time in both
 * states (the chain's row 0.29x, its provisional calls in that state). In the fast state the
 * chain took half single copy's time at 256 KiB-2 MiB, which a non-blocking reduce without a
 * verdict keeps. Not allreduce, whose chain's row stayed at 1.0-1.7x in the slow state's windows
 * where single copy's took 0.5-4.5x (Open MPI, 1-4 MiB, native, before and after alternated). */
static const char *unmeasured_row(const calib_t *calib, const shmcoll_mpi_coll_desc_t *desc,
                                  int provisional) {
    static const char single[SHMCOLL_MPI_COLL_COUNT] = {
        [SHMCOLL_MPI_BCAST] = 1,  [SHMCOLL_MPI_ALLGATHER] = 1, [SHMCOLL_MPI_ALLGATHERV] = 1,
        [SHMCOLL_MPI_GATHER] = 1, [SHMCOLL_MPI_SCATTER] = 1,   [SHMCOLL_MPI_ALLTOALL] = 1};
    if (desc->key_local || calib->tuned) return NULL;
    return single[desc->coll] || (provisional && desc->coll == SHMCOLL_MPI_REDUCE) ? "single-copy"
                                                                                   : NULL;
}

/* Untimed calls that open a measurement: a block of each candidate up to 1 MiB, none after a
 * probe, whose three calls of each candidate warmed it up (they fault in the pages of its slots
 * and buffers): an OSU-style row makes 110 calls of a size, and a 256 KiB reduce's measurement
 * took 81 of them with the warm-up's 24; beyond 1 MiB, one call on the band's first measurement
 * (its first call often faults the buffers' pages in), the MPI library's, which costs what it
 * would without shmcoll; none later (the calls between the spread trials warm up). So a large
 * band has a verdict after one block (beyond 8 MiB two calls) per candidate and one call more,
 * and a candidate twice as slow as the MPI library's costs that much time once. */
static uint32_t warmup_calls(const calib_band_t *band, size_t bytes) {
    if (bytes >= LARGE_BYTES) return has_way(band) ? 0 : 1;
    return band->probed ? 0 : tried_ways(band) * block_calls(bytes);
}

/* Calls of a measurement: its probe or warm-up and the timed blocks of every candidate not pruned
 * (no way left out during it); the band's interval between measurements counts in these. */
static uint32_t measure_calls(const calib_band_t *band, size_t bytes) {
    const uint32_t opening =
        band->probed ? PROBE_CALLS * tried_ways(band) : warmup_calls(band, bytes);
    return opening + tried_ways(band) * block_calls(bytes) * timed_blocks(bytes);
}

/* One call in this many taking a band's verdict is watched (see watch), where the agreement is
 * cheap (watch_interval): from 64 KiB one in four blocks' worth (32 calls: the agreement's
 * microsecond on one node is under 1% of a 64 KiB call's time there), from 1 MiB one in a block's
 * worth (4 calls), from 8 MiB every call; none below. */
static uint32_t watch_every(size_t bytes) {
    return bytes >= LARGE_BYTES    ? block_calls(bytes)
           : bytes >= MEDIUM_BYTES ? 4 * block_calls(bytes)
                                   : 0;
}

/* One call in this many taking the verdict is watched at the call's size: watch_every, or more
 * where the watch's agreement (`agree` seconds, the fastest rank's last) costs more than
 * AGREE_SHARE of the `call`-second calls it watches (across nodes one PMPI_Allreduce takes tens of
 * microseconds, against some 90 us of a 64 KiB bcast), at most WATCH_SPARSE times less often, so
 * that a drift is still seen within a few hundred calls. */
static uint32_t watch_interval(size_t bytes, double agree, double call) {
    const uint32_t every = watch_every(bytes), sparsest = WATCH_SPARSE * every;
    const double need = call > 0 ? agree / (AGREE_SHARE * call) : 0;
    return need <= every ? every : need >= sparsest ? sparsest : (uint32_t)need + 1;
}

/* Whether a measurement of a band of `bytes` opens with a probe (see probe_turn): from
 * PROBE_BYTES, but from LARGE_BYTES only where the band has no verdict yet or its verdict drifted
 * (measured again on time, a large band spreads its trials instead), and not from HUGE_BYTES,
 * where a round is one call of each way as a probe's is, and the probe's PROBE_CALLS calls of
 * each way before the rounds cost what the rounds then cost again: Open MPI's 32 MiB allgather,
 * 16 calls in an application's pattern (p = 2), spent all of them in its first measurement (nine
 * of the probe, a warm-up, two rounds) and never took a verdict. */
static int probed(const calib_band_t *band, size_t bytes) {
    if (bytes < PROBE_BYTES || bytes >= HUGE_BYTES) return 0;
    return bytes < LARGE_BYTES || !has_way(band) || band->urgent;
}

/* A measurement from its first call: the candidates' times and the spread trials' count anew,
 * opened by a probe where `probed`. */
static void measure_anew(calib_band_t *band, size_t bytes) {
    band->measuring = 1;
    band->probing = band->probed = (uint8_t)probed(band, bytes);
    band->probe_at = band->probe_again = 0;
    band->calls = band->spread = band->in_block = 0;
    band->round = band->turn_k = 0;
    for (int w = 0; w < MAX_WAYS; w++) band->best[w] = band->probe[w] = 0;
    band->exit_calls = 0;
    band->between = band->between_block = 0;
}

/* Whether tuning rules are in force (SHMCOLL_TUNE, a tuning file): they then choose, not the
 * measurement; alike on every rank. */
static int tuning_given(void) {
    const shmcoll_tune_t *tune = shmcoll_tune_current();
    return tune->file || tune->nrules;
}

/* The communicator's measurement state, made on first use; NULL without memory. */
static calib_t *calib_of(shmcoll_mpi_comm_t *state) {
    if (!state->calib) {
        calib_t *calib = calloc(1, sizeof(calib_t));
        if (!calib) return NULL;
        calib->tuned = tuning_given();
        state->calib = calib;
        state->calib_free = calib_free;
    }
    return state->calib;
}

/* The band of the call (the selector's size bands), its state made on first use; NULL without
 * memory. A large band below HUGE_BYTES of a communicator on one node (`one_node`) is measured
 * first as it is measured again, its trials spread (see shmcoll_mpi_calibrate_begin), the way of
 * calls without a verdict (unmeasured_row: single copy where it serves, else the node team's
 * choice) serving the other calls meanwhile (provisional): a measurement of its own costs the
 * calls of every slower way at once (a probe of three calls of each, then a block of four), and a
 * program that makes a few dozen calls of the size makes all of them in it. Measured first at once,
 * the 2 MiB rows of a benchmark making 22 calls of each size ran at 0.82-0.91x the MPI library's
 * (MPICH, p = 2: bcast, allgather, alltoall, scatter) and 0.79x (Open MPI, allgatherv: single
 * copy 406 us a call, the MPI library 420, its pipeline row 590-710 tried in the probe and a
 * block); provisional, 0.96-2.01x under MPICH. The node team's choice served those calls at
 * first, but bcast's is the pipeline, which a 2 MiB bcast's few dozen calls found 20-30% slower
 * than single copy and the MPI library's (2-core AMD EPYC guest, p = 2, 5 runs alternated, after a
 * small row: MPICH 222 us a call, single copy 171, the MPI library 181; Open MPI 218, 175, 176):
 * that row ran at 0.82x (MPICH) and 0.63x (Open MPI), 0.92x and 0.98x on single copy (medians of 7
 * runs). Not from HUGE_BYTES, where the measurement is a few
 * calls anyway (two rounds of one call per way) and the node team's choice can be the slowest
 * way: MPICH's 16 MiB allgather by single copy took 5.4 ms a call against the MPI library's 4.4
 * and the pipeline's about as much, and a benchmark timing about 24 calls ran at 0.81x. Across
 * nodes, where the MPI library's own way is often the faster, the band is measured at once. */
static calib_band_t *band_for(shmcoll_mpi_comm_t *state, shmcoll_mpi_coll_t coll, size_t bytes,
                              int one_node) {
    if (!calib_of(state)) return NULL;
    calib_band_t **bands = &((calib_t *)state->calib)->bands[coll];
    if (!*bands && !(*bands = calloc(SHMCOLL_SELECT_BANDS, sizeof **bands))) return NULL;
    calib_band_t *band = &(*bands)[shmcoll_select_band(bytes)];
    if (!band->interval && !band->measuring) { /* new: measured first */
        band->provisional = (uint8_t)(bytes >= LARGE_BYTES && bytes < HUGE_BYTES && one_node);
        band->gap = SPREAD;                  /* a provisional band's; settle sets the others' */
        band->watch_off = band->provisional; /* nothing to watch against before a verdict */
        measure_anew(band, bytes);
        band->watch_every = watch_every(bytes);
    }
    return band;
}

/* A call of a band from 64 KiB taking its verdict that is watched (see watch): one in
 * band->watch_every by `count` (the settled calls' countdown, or a spread measurement's calls),
 * while watching is on; every rank counts alike. */
static int watched(const calib_band_t *band, uint32_t count) {
    return band->watch_every && !band->watch_off && count % band->watch_every == 0;
}

/* The turn of a watched call: timed from here, against the verdict of the band's epoch. */
static void watch_turn(calib_band_t *band, shmcoll_mpi_calib_turn_t *turn) {
    turn->watched = band;
    turn->hold.epoch = band->epoch;
    turn->start = shmcoll_shm_now();
}

static int mpi_way(const calib_band_t *band, int way) {
    return band->nways && way == band->nways - 1;
}

/* The way a settled call takes. */
static shmcoll_status_t take(shmcoll_mpi_call_t *call, calib_band_t *band, int way,
                             shmcoll_mpi_calib_turn_t *turn) {
    turn->way = way;
    if (mpi_way(band, way)) {
        call->quiet = 1; /* logged with the verdict */
        return shmcoll_mpi_call_reject(call, "measured: the MPI library's own is faster here");
    }
    turn->row = band->rows[way];
    if (shmcoll_config()->stats && call->state->counts) shmcoll_mpi_view_saved(band->gain);
    return SHMCOLL_OK;
}

/* 1 when the measurement's agreement (a PMPI_Allreduce returning rc) succeeded; else 0, the
 * group failed. */
static int agreed(shmcoll_mpi_call_t *call, int rc) {
    if (rc == MPI_SUCCESS) return 1;
    /* This rank cannot know the others' verdict: its group fails for good, so that no rank goes
     * on with a way the others did not take (a member that waits for this one in shared memory
     * sees the failure, the caller gets the error). */
    snprintf(call->group->team->error, sizeof call->group->team->error,
             "rank %d: the measurement's agreement failed in the MPI library", call->state->rank);
    shmcoll_team_fail(call->group->team, SHMCOLL_ERR_SYSTEM);
    PMPI_Comm_call_errhandler(call->comm, rc);
    return 0;
}

/* The key and the interval to the next agreement from the agreed sums (the same on every rank:
 * the same interval); `lag`: calls of the interval gone since the agreement was posted. */
static void share_interval(const shmcoll_mpi_call_t *call, calib_shared_t *shared,
                           const uint64_t all[SHMCOLL_MAIL_VALUES], uint32_t lag) {
    const uint64_t p = (uint64_t)call->state->size;
    shared->key = (size_t)((all[0] + p - 1) / p); /* a share of one byte or more is not empty */
    /* The first calls have no period yet. */
    const double need = all[2] ? (double)all[1] / (AGREE_SHARE * (double)all[2]) : 16;
    shared->every = need >= SHARE_EVERY ? SHARE_EVERY : need <= 1 ? 1 : (uint32_t)need;
    shared->left = shared->every > lag + 1 ? shared->every - lag - 1 : 0;
}

/* The call SHARE_LAG calls after a posting: the sums of every rank's posting. The interval
 * follows the last allreduce's cost (kept in `cost`), not the mailbox's: with its own few
 * nanoseconds the next agreement came due within 64 calls and took the allreduce, every other
 * one. */
static size_t share_taken(shmcoll_mpi_call_t *call, calib_shared_t *shared) {
    shmcoll_team_t *team = call->group->team;
    shmcoll_waiter_t waiter;
    shmcoll_team_waiter(team, call->function, &waiter);
    uint64_t sums[SHMCOLL_MAIL_VALUES];
    const shmcoll_status_t status = shmcoll_channel_mail_sum(
        &team->lanes[0].channel, shared->box - 1, shared->posted, sums, &waiter);
    shared->pending = 0;
    if (status != SHMCOLL_OK) { /* a rank died, or SHMCOLL_TIMEOUT passed: named in team->error */
        shmcoll_team_fail(team, status);
        return 0;
    }
    share_interval(call, shared, sums, SHARE_LAG);
    return shared->key;
}

/* The key of a collective whose sizes only some ranks know (key_local, call.h), every rank alike:
 * each call counts, and every `every` calls an agreement (integer sums, so that every rank gets
 * the same numbers whatever order they are added in) makes the ranks' mean share of that call the
 * key of the calls up to the next agreement. Before, these collectives had one band per
 * communicator, measured on whatever sizes came: a benchmark's gatherv of 4 KiB blocks took the
 * MPI library's way measured on 8-byte blocks (2.4 us a call, against 0.6 us on shmcoll's), and a
 * verdict taken on small blocks served large ones. `every` follows the agreement's cost: it costs
 * at most AGREE_SHARE of the time between agreements (the calls and the application's work
 * between them), and comes at least every SHARE_EVERY calls, so that a new size is seen within
 * that many calls: with a bound that doubled up to 4096 while the sizes stayed,
 * calibrate_shared_key.p2, whose phases were 240 calls of a size each, failed once in 41 runs.
 *
 * The first call agrees with a PMPI_Allreduce, as do communicators across nodes and agreements
 * due more often than every 4 x SHARE_LAG calls. Otherwise (one node) a rank posts its numbers in
 * the team's mailbox (shm/channel.h) and goes on with the last key; SHARE_LAG calls later it sums
 * the others' (waiting only for a rank that has not made the posting call yet), and the new key
 * serves from that call. The allreduce stopped every rank at one call in 256: the MPI library's
 * eager messages no longer ran ahead, and on the MPI library's way
 * (SHMCOLL_CALIBRATE_MARGIN=-100000, MPICH, p = 2) gatherv of 64 B to 4 KiB ran at 0.79-0.92x of
 * PMPI_Gatherv where gather, with no shared key, ran at 0.96-1.00x. `local` is this rank's share;
 * returns 0 (nothing measured) when the agreement failed, the group then failed (agreed). */
static size_t share_key(shmcoll_mpi_call_t *call, calib_shared_t *shared, size_t local) {
    if (shared->left > 0) {
        shared->left--;
        return shared->key;
    }
    if (shared->pending) return share_taken(call, shared);
    const double start = shmcoll_shm_now();
    const double period = shared->every ? (start - shared->since) / shared->every : 0;
    /* Nanoseconds: this rank's share, its last agreement's time, its time per call since. */
    const uint64_t mine[SHMCOLL_MAIL_VALUES] = {local, (uint64_t)(1e9 * shared->cost),
                                                (uint64_t)(1e9 * period)};
    calib_t *calib = call->state->calib;
    if (shared->every >= 4 * SHARE_LAG && call->group->map.nnodes == 1 &&
        (shared->box || calib->boxes < SHMCOLL_MAIL_BOXES)) {
        if (!shared->box) shared->box = ++calib->boxes; /* the same order on every rank */
        shmcoll_channel_mail_post(&call->group->team->lanes[0].channel, shared->box - 1,
                                  ++shared->posted, mine);
        shared->pending = 1;
        shared->left = SHARE_LAG - 1;
        shared->since = start;
        return shared->key;
    }
    uint64_t all[SHMCOLL_MAIL_VALUES];
    const int rc =
        PMPI_Allreduce(mine, all, SHMCOLL_MAIL_VALUES, MPI_UINT64_T, MPI_SUM, call->comm);
    shared->since = shmcoll_shm_now();
    shared->cost = shared->since - start;
    if (!agreed(call, rc)) return 0;
    share_interval(call, shared, all, 0);
    return shared->key;
}

/* Without memory for the measurement's state the other ranks may measure while this one cannot
 * count turns: the call fails on every rank, as a failed prepare does (call.c), rather than part
 * the ranks silently. */
static shmcoll_status_t no_memory(shmcoll_mpi_call_t *call) {
    snprintf(call->group->team->error, sizeof call->group->team->error,
             "rank %d has no memory to measure %s (SHMCOLL_CALIBRATE=0 turns it off)",
             call->state->rank, call->function);
    return shmcoll_team_fail(call->group->team, SHMCOLL_ERR_NO_MEMORY);
}

/* The MPI library's way is the verdict where its time is below this share of shmcoll's best:
 * where it is faster by SHMCOLL_CALIBRATE_MARGIN percent (2; negative: slower by at most that
 * much; 100 or more: never). */
static double mpi_margin(void) {
    return 1 - (double)shmcoll_config()->calibrate_margin / 100;
}

/* The ways' times `mine` (this rank's) agreed into `times`: the slowest rank's (PMPI_Allreduce,
 * MAX), the MPI library's weighed as the verdict weighs it against shmcoll's (divided by
 * mpi_margin; infinite where that is not positive: never the verdict). 0 when the agreement
 * failed (agreed). */
static int agree_times(shmcoll_mpi_call_t *call, const calib_band_t *band, const double *mine,
                       double *times) {
    const int n = band->nways;
    if (!agreed(call, PMPI_Allreduce(mine, times, n, MPI_DOUBLE, MPI_MAX, call->comm))) return 0;
    const double margin = mpi_margin();
    times[n - 1] = margin > 0 ? times[n - 1] / margin : HUGE_VAL;
    return 1;
}

/* The fastest of `times` over the ways below `upto` not in `out` (bit w; 0: none). */
static double fastest_of(const double *times, int upto, unsigned out) {
    double fastest = 0;
    for (int w = 0; w < upto; w++)
        if (!(out >> w & 1) && (fastest == 0 || times[w] < fastest)) fastest = times[w];
    return fastest;
}

/* A measurement's probe: before its blocks, three calls of each candidate (not pruned by earlier
 * measurements), each after a PMPI_Barrier and timed alone, then one PMPI_Allreduce (MAX over
 * the ranks) of those times; a candidate far slower than the fastest sits out the measurement's
 * blocks (probe_end). Every call of a slow candidate costs its excess over the best, and a
 * benchmark that makes a hundred calls a size pays it in full: OSU-style rows (each call timed
 * after a barrier, 100 calls from 16 KiB) of scatter lost 0.64x at 128-512 KiB with single copy
 * the verdict, 11 us a call against the MPI library's 13, because the measurement's 24 calls of
 * the pipeline row took 87 us each; a scan of 128 KiB ran at a quarter of its speed for the 24
 * calls of the MPI library's, 20 times slower. Not below PROBE_BYTES: there a measurement's calls
 * cost little, and the first calls of a communicator's collectives, often small, are slow on
 * every way (an 8-byte bcast's pipeline took 0.62 us in its probe, 0.12 us in the loop after, and
 * lost the band to the MPI library's 0.33 us). Starts the probe's next call: the candidate in
 * turn (each way PROBE_CALLS times), timed from here to probe_end. */
static shmcoll_status_t probe_turn(shmcoll_mpi_call_t *call, calib_band_t *band, size_t bytes,
                                   shmcoll_mpi_calib_turn_t *turn) {
    *turn =
        (shmcoll_mpi_calib_turn_t){.band = band, .way = band->probe_at, .probe = 1, .bytes = bytes};
    call->quiet = 1;
    PMPI_Barrier(call->comm);
    turn->start = shmcoll_shm_now();
    if (mpi_way(band, turn->way)) return shmcoll_mpi_call_reject(call, "probing the MPI library");
    turn->row = band->rows[turn->way];
    return SHMCOLL_OK;
}

/* A probe call has returned: the same way's next call, the next way's turn, or after the last the
 * ways' times agreed (the fastest of each way's calls: its first calls of a size are often much
 * slower: an 8-byte allreduce of the MPI library's took 32 us, against 0.3; a 16 KiB bcast's
 * pipeline on a new communicator 6 us in each of its first two calls, which fault in the pages of
 * its slots' two parities, and 2.3 us from the third), and left out of
 * the measurement's blocks (skip_now): one of shmcoll's ways more than PROBE_SLOWER times slower
 * than the fastest way (then also, as pruned rows are, out of the next PRUNE_ROUNDS measurements
 * where it is more than PRUNE times slower than the verdict, see prune), the MPI library's more
 * than PROBE_MPI times slower than the fastest of shmcoll's (the MPI library is the reference
 * shmcoll must never be slower than: it is left out only where it is far slower). A left-out way
 * keeps its probe's time as its best, for the verdict's message and the spread of later trials.
 * Returns 1 when one way is left: it is the verdict, without turns. */
static int probe_end(shmcoll_mpi_call_t *call, calib_band_t *band, int way) {
    if (!band->nways) { /* the call found no candidates (its prepare failed): turns, as before */
        band->probing = band->probed = 0;
        return 0;
    }
    if (++band->probe_again < PROBE_CALLS) return 0;
    band->probe_again = 0;
    int next = way + 1;
    while (next < band->nways && (band->skip >> next & 1)) next++;
    if (next < band->nways) {
        band->probe_at = (uint8_t)next;
        return 0;
    }
    const int n = band->nways;
    double slowest[MAX_WAYS];
    if (!agree_times(call, band, band->probe, slowest)) return 0;
    band->probing = 0;
    const double ours = fastest_of(slowest, n - 1, band->skip); /* shmcoll's fastest */
    const double fastest = fastest_of(slowest, n, band->skip);
    for (int w = 0; w < n; w++) {
        const double limit = mpi_way(band, w) ? PROBE_MPI * ours : PROBE_SLOWER * fastest;
        if (!(band->skip >> w & 1) && slowest[w] > limit) {
            band->skip_now |= (uint8_t)(1u << w);
            band->best[w] = band->probe[w];
        }
    }
    if (tried_ways(band) > 1) return 0;
    for (int w = 0; w < n; w++) band->best[w] = band->probe[w];
    return 1;
}

static void check_step(shmcoll_mpi_call_t *call, calib_band_t *band);
static void check_absorb(calib_band_t *band, calib_shared_t *shared);

shmcoll_status_t shmcoll_mpi_calibrate_begin(shmcoll_mpi_call_t *call,
                                             const shmcoll_mpi_coll_desc_t *desc, const void *margs,
                                             shmcoll_mpi_calib_turn_t *turn) {
    *turn = (shmcoll_mpi_calib_turn_t){.settled = 1};
    const shmcoll_config_t *config = shmcoll_config();
    shmcoll_mpi_comm_t *state = call->state;
    if (config->calibrate <= 0 || !desc->key || !call->group || state->inter) return SHMCOLL_OK;
    size_t bytes = desc->key(margs, state);
    calib_shared_t *shared = NULL;
    if (desc->key_local) { /* the key every rank takes: the ranks' mean share */
        if (!calib_of(state)) return no_memory(call);
        shared = turn->hold.shared = &((calib_t *)state->calib)->shared[desc->coll];
        if (shared->band) check_absorb(shared->band, shared); /* before share_key counts */
        bytes = share_key(call, shared, bytes);
        shared->band = NULL; /* until the key's band is found below */
    }
    turn->bytes = bytes;
    /* Nothing to measure: a call that moves nothing, but a barrier, whose one band is of 0 bytes
     * (unmeasured, its way was the cost model's alone, never set against the MPI library's). */
    if ((bytes == 0 && desc->coll != SHMCOLL_MPI_BARRIER) || bytes > config->calibrate_max)
        return SHMCOLL_OK;
    calib_band_t *band = band_for(state, desc->coll, bytes, call->group->map.nnodes == 1);
    if (!band) return no_memory(call);
    if (shared) shared->band = band;
    if (!band->measuring) {
        if (!shared) check_absorb(band, NULL);
        if (band->countdown == 0 && band->check) check_step(call, band);
        if (band->countdown > 0) { /* the verdict serves */
            /* a call of the loop check's stretch of the MPI library's way with no stamped calls
             * granted (its first, or the first after a call with other arguments) */
            turn->unstamped = band->check_unstamped;
            band->check_unstamped |= band->check;
            turn->lean = band->check && mpi_way(band, band->verdict);
            turn->hold.band = band;
            turn->hold.epoch = band->epoch;
            turn->tuned = band->tuned;
            if (watched(band, band->countdown)) watch_turn(band, turn);
            band->countdown--;
            return take(call, band, band->verdict, turn);
        }
        /* due: measured again, probed unless a large band's trials are spread (see below) */
        measure_anew(band, bytes);
    }
    /* the band's first call (a provisional band's spread calls count in band->spread): given
     * tuning (alike everywhere) replaces the measurement */
    if (band->calls == 0 && band->spread == 0 && !band->measured) {
        if (tuning_given()) {
            /* two ways, never measured: the verdict, the node team's choice (the tuning's), and
             * the MPI library's, which is never taken (with one way, the verdict would have been
             * the MPI library's, last, and every call but a repeat's went to it) */
            band->measuring = band->provisional = 0;
            band->nways = 2;
            band->verdict = 0;
            band->countdown = band->interval = RECHECK_MAX;
            turn->hold.band = band;
            turn->hold.epoch = band->epoch;
            turn->tuned = band->tuned = 1;
            return SHMCOLL_OK;
        }
    }
    /* A large band measured again spreads its trials, as one measured first on one node does
     * (band_for: the node team's choice is then the verdict in force): of every gap blocks' worth
     * of calls the last block is a trial, the others take the verdict in force, so that the trials
     * cost about TRIAL_SHARE of the band's time at the candidates' last times (see spread_gap).
     * Those calls are neither timed nor kept (repeat.h), but watched as settled ones are (a drift
     * ends the spreading). Not when the verdict drifted: it is measured at once. The watch counts
     * the verdict's calls alone: counted with the trials' calls, a watch interval dividing the
     * gap's period fell on trials only (32 calls, a 1 MiB bcast's gap of 8 blocks of 4), and a
     * measurement spread over a change of the calls ended on their new times without the watch
     * seeing any of them. */
    if (bytes >= LARGE_BYTES && has_way(band) && !band->urgent) {
        const uint32_t period = band->gap * block_calls(bytes), kept = period - block_calls(bytes);
        const uint32_t at = band->spread++;
        if (at % period < kept) {
            const uint32_t verdict_calls =
                at / period * kept + at % period + 1; /* this one's too */
            *turn = (shmcoll_mpi_calib_turn_t){.bytes = bytes};
            if (watched(band, verdict_calls)) watch_turn(band, turn);
            const shmcoll_status_t status = take(call, band, band->verdict, turn);
            if (band->provisional) { /* timed for interim */
                const char *first = band->interim ? NULL : unmeasured_row(calib_of(state), desc, 1);
                if (first && status == SHMCOLL_OK) turn->row = first;
                turn->provisional = band;
                turn->provisional_end = at % period % block_calls(bytes) == block_calls(bytes) - 1;
                turn->start = shmcoll_shm_now();
            }
            return status;
        }
    }
    if (band->probing) return probe_turn(call, band, bytes, turn);
    /* Not settled: the candidates take turns, a block of calls each, after the warm-up, in rounds
     * (timed_blocks), the slow ones left out after each (see round_end). */
    const uint32_t i = band->calls++, per_block = block_calls(bytes);
    const int timed = i >= warmup_calls(band, bytes);
    *turn = (shmcoll_mpi_calib_turn_t){
        .band = band,
        .way = tried_way(band, timed ? band->turn_k : i / per_block % tried_ways(band)),
        .timed = timed,
        .bytes = bytes};
    turn->block_end = timed && band->in_block == per_block - 1;
    /* A line per turn would be timed with it (a log line through the launcher costs tens of
     * microseconds). */
    call->quiet = 1;
    if (timed && band->in_block++ == 0) { /* every rank starts a timed block together */
        PMPI_Barrier(call->comm);
        band->block = 0;
    }
    turn->start = shmcoll_shm_now();
    if (mpi_way(band, turn->way) || (!timed && bytes >= LARGE_BYTES))
        return shmcoll_mpi_call_reject(call, "measuring: the MPI library's turn");
    turn->row = band->rows[turn->way];
    return SHMCOLL_OK;
}

void shmcoll_mpi_calibrate_prepared(shmcoll_mpi_call_t *call, shmcoll_mpi_calib_turn_t *turn) {
    /* The band's first call finds its candidates; a provisional band's is a call between its
     * trials, so that no trial's block holds a call of another way. */
    calib_band_t *band = turn->band ? turn->band : turn->provisional;
    if (band && !band->nways) {
        const char *inner;
        band->pick = shmcoll_group_pick(call->group, &call->args, &inner);
        int n = 1;
        band->rows[0] = NULL;
        const char *const *alt = alternatives[call->args.kind];
        for (int a = 0; a < 3 && alt[a] && band->pick && n < MAX_WAYS - 1; a++)
            if (strcmp(alt[a], band->pick) && (!inner || strcmp(alt[a], inner)) &&
                shmcoll_group_row_serves(call->group, &call->args, alt[a]))
                band->rows[n++] = alt[a];
        band->nways = (uint8_t)(n + 1); /* and the MPI library's */
        for (int w = 0; w < n && call->args.kind == SHMCOLL_KIND_BARRIER; w++)
            if (releases_root_first(band->rows[w] ? band->rows[w] : band->pick))
                band->root_first |= (uint8_t)(1u << w);
        /* without the memory, no call's end is kept: the order is not told (exits_root_first) */
        if (band->root_first) band->exits = malloc(EXIT_SLOTS * sizeof *band->exits);
    }
    call->args.row = turn->row;
}

/* The name of way w for messages. */
static const char *way_name(const calib_band_t *band, int w) {
    if (mpi_way(band, w)) return "the MPI library";
    return band->rows[w] ? band->rows[w] : band->pick ? band->pick : "shmcoll";
}

/* After a verdict: one of the other rows (not the node team's choice) measured more than PRUNE
 * times slower than the verdict sits out the next PRUNE_ROUNDS measurements, then is tried again
 * (the machine's state may have changed). Trying a slow row costs: a large band's trials come
 * every few hundred calls at first, and a 2 MiB alltoall lost 7% of its calls' time to its
 * rotated row, 4x slower than single copy, tried in every one of them. The node team's choice and
 * the MPI library's own way are always tried: one slow call (a 16 MiB bcast measured 7.0 ms
 * once, 1.8 ms in the runs around it) must not keep the first from serving for long. Every rank
 * has the same times, so the same rows sit out. */
static void prune(calib_band_t *band, const double *slowest, int verdict) {
    if (band->skip_rounds && --band->skip_rounds == 0) band->skip = 0;
    uint8_t fresh = 0;
    for (int w = 1; w < band->nways - 1; w++)
        if (w != verdict && !(band->skip >> w & 1) && slowest[w] > PRUNE * slowest[verdict])
            fresh |= (uint8_t)(1u << w);
    if (fresh && !band->skip) band->skip_rounds = PRUNE_ROUNDS;
    band->skip |= fresh;
}

/* A drift (see watch) brings every pruned row back into the measurement it calls: the times that
 * pruned them were taken in the machine's state before. A 2 MiB bcast's pipeline, 90 us a call
 * where single copy took 200, took 430-470 us when the state changed; single copy, pruned, sat
 * out the measurement that the drift called, which chose the pipeline again over the MPI
 * library's way (the benchmark's row 0.59x), where single copy took some 250 us. */
static void unprune(calib_band_t *band) {
    band->skip = 0;
    band->skip_rounds = 0;
}

/* Blocks per trial block when a large band is measured again: trying a candidate r times as slow
 * as the verdict costs (r - 1) of a block's time, so one trial in (r - 1) / TRIAL_SHARE blocks
 * costs TRIAL_SHARE of the band's time, for the slowest candidate tried last time (at least one
 * in SPREAD_MAX: slower rows are pruned; at most one in SPREAD). A 16 MiB bcast's own path twice
 * as slow as the MPI library's, tried one call in 8, cost the benchmark's row 10%. */
static uint8_t spread_gap(const calib_band_t *band, const double *slowest, int verdict) {
    double worst = 1;
    for (int w = 0; w < band->nways; w++)
        if (slowest[w] > 0 && slowest[verdict] > 0 && slowest[w] / slowest[verdict] > worst)
            worst = slowest[w] / slowest[verdict];
    const double gap = (worst - 1) / TRIAL_SHARE;
    return gap >= SPREAD_MAX ? SPREAD_MAX : gap <= SPREAD ? SPREAD : (uint8_t)(gap + 1);
}

/* The ways (bit w) without a time in `slowest`: pruned ones. */
static unsigned timeless_ways(const calib_band_t *band, const double *slowest) {
    unsigned timeless = 0;
    for (int w = 0; w < band->nways; w++)
        if (!(slowest[w] > 0)) timeless |= 1u << w;
    return timeless;
}

/* The fastest of shmcoll's ways not in `out` (bit w), or -1. */
static int fastest_way(const calib_band_t *band, const double *slowest, unsigned out) {
    int fastest = -1;
    for (int w = 0; w < band->nways - 1; w++)
        if (!(out >> w & 1) && (fastest < 0 || slowest[w] < slowest[fastest])) fastest = w;
    return fastest;
}

/* The fastest of shmcoll's ways not in `out` (bit w), then the MPI library's where it is faster
 * by the margin and not in `out`; but for a barrier where the MPI library's lets rank 0 out first
 * (exits_root_first), the fastest of shmcoll's that does so too, unless the MPI library's is
 * faster than that by the margin. Who leaves a barrier first decides the time of a rooted call
 * after it (coll/barrier.c, the root-first barrier). In a loop of calls each after a barrier
 * (OSU's; `shmcoll-bench --own-barrier --first-calls 1000`, p = 2, each barrier forced in turn,
 * twice), after the dissemination barrier and after the root-first one: MPICH, whose barrier lets
 * rank 0 out first, bcast of 8-512 B 1.01-1.22x and 1.67-2.25x, scatter 0.60-1.00x and
 * 1.08-1.63x, allreduce, allgather and alltoall 0.35-0.66 us a call after either, the barrier
 * itself 3.3x and 2.8-3.2x; Open MPI, whose barrier lets the last rank to arrive out first as the
 * dissemination barrier does, bcast and scatter 1.3-1.9x and 2.6-4.5x, the others alike, but the
 * barrier 1.5x and 0.99-1.15x: there the fastest serves. Ways left out during the measurement
 * (round_end) count with the time of the rounds they ran. */
static int choose(const calib_band_t *band, const double *slowest, unsigned out) {
    const int mpi = band->nways - 1;
    const int verdict = fastest_way(band, slowest, out);
    if (verdict < 0) return mpi;
    if (!(out >> mpi & 1) && slowest[mpi] < mpi_margin() * slowest[verdict]) return mpi;
    if (!band->mpi_root_first || band->root_first >> verdict & 1) return verdict;
    /* the fastest way that lets rank 0 out first */
    const int first =
        fastest_way(band, slowest, ~(unsigned)band->root_first | timeless_ways(band, slowest));
    if (first < 0) return verdict;
    return !(out >> mpi & 1) && slowest[mpi] < mpi_margin() * slowest[first] ? mpi : first;
}

/* The loop check, below 64 KiB: after a measurement, its verdict and the rival (the MPI library's
 * way, or where that is the verdict, shmcoll's fastest) each serve STRETCH calls in a row as
 * settled calls do, the MPI library's on the express path (express.h), shmcoll's on the repeat
 * path (repeat.h), each call's start stamped there (the first, through the whole sequence, not);
 * the periods from one call's start to the next's, which hold all a loop of the calls costs, the
 * wrapper and the MPI library's stalls, give each rank's time per call (select/loop_time.h), and
 * the slowest rank's decides, with the measurement's margin for the MPI library's way. A
 * measurement's blocks, a few calls after a barrier each timed alone, do not show what calls in a
 * row do where the MPI library's eager sends run ahead of their receivers: a block of 16 of
 * MPICH's 4 KiB gathers took 1.0-1.5 us a call, alone from any wrapper, and a loop of them
 * 0.73-0.99 us; Open MPI's 8-byte gather 0.27-0.35 against 0.18-0.20 (p = 2); shmcoll's ways,
 * which do not lean on the peer running ahead, take in a block about what they take in a loop,
 * and the verdicts gave them rows they served at 0.5-0.8x. A loop of the MPI library's calls
 * reaches its pace only when its eager sends have run ahead, some dozens of calls into its
 * stretch: the periods that end in a stretch's first WARM_UP calls are not counted. MPICH's 4 KiB
 * gathers and scatters after shmcoll's stretch took 0.80 and 0.86 us a call over their first 32
 * calls, 0.72 and 0.78 over the next 32, 0.65 and 0.70 from the 96th (p = 2); counted from the
 * first, the check gave that way 0.72-0.96 us against its 0.47-0.65 in a benchmark's loop, and
 * the pipeline's 0.60-0.67 won. Longer stretches cost the first calls more: 256 calls, the last
 * 128 counted, cost a benchmark of the first 1000 calls of each size, a barrier before each, 5.6%
 * below 4 KiB (MPICH). What the application does between its calls counts alike in both stretches
 * where it is the same, and a long pause is an outlier. A call that takes the usual path (its
 * arguments changed; statistics or checks take every call through it) is not stamped, nor is the
 * period that holds it counted (check_mark), and where a rank counted fewer than MIN_PERIODS
 * periods of a stretch, the check decides nothing. Not for a rival measured more than CHECK_RANGE
 * times slower. Returns the rival checked, or -1. */
static int check_begin(calib_band_t *band, const double *slowest, int verdict, size_t bytes) {
    if (bytes >= MEDIUM_BYTES) return -1;
    const int mpi = band->nways - 1;
    const unsigned timeless = timeless_ways(band, slowest);
    const int rival = verdict == mpi ? choose(band, slowest, timeless | 1u << mpi) : mpi;
    if (rival == verdict || timeless >> rival & 1 ||
        slowest[rival] > CHECK_RANGE * slowest[verdict] ||
        !(band->check_stamps = malloc(2 * STRETCH * sizeof *band->check_stamps)))
        return -1;
    band->check = 1;
    band->check_ways[0] = (uint8_t)verdict;
    band->check_ways[1] = (uint8_t)rival;
    band->countdown = STRETCH;
    band->check_calls[0] = band->check_calls[1] = 0;
    memset(band->check_breaks, 0, sizeof band->check_breaks);
    band->check_unstamped = 0;
    return rival;
}

/* The stamp about to be taken at index `at` of stretch `k` follows a call of the band that was
 * not stamped where check_unstamped says so: the period that ends at it is not a period of the
 * loop (select/loop_time.h). */
static void check_mark(calib_band_t *band, int k, uint32_t at) {
    if (band->check_unstamped && at < STRETCH) shmcoll_loop_break(band->check_breaks[k], at);
    band->check_unstamped = 0;
}

/* A call of the MPI library's stretch has returned (through the sequence, or kept on the repeat
 * path): the stretch's next calls are granted to the express path (express.h), each stamped
 * there, and taken from the countdown (and an agreed key's count: not past its next agreement)
 * till check_absorb gives back those not made. Granted again after a call with other arguments
 * broke the run: granted at the stretch's first call alone, a benchmark's MPI_Allreduce of its
 * timings (the same 8-byte band) cut the stretch of its 8-byte allreduce after 30 stamped calls,
 * and the period across that call and a barrier (12.5 us against 0.5 a call) made the MPI
 * library's way 1.1-1.3 us a call in the check (Open MPI, p = 2). */
static void check_grant(calib_band_t *band, calib_shared_t *shared) {
    const int k = band->check - 1;
    check_mark(band, k, band->check_calls[k]);
    uint32_t calls = band->countdown; /* at most STRETCH - 1 */
    if (shared && shared->band != band) shared = NULL;
    if (shared && shared->left < calls) calls = shared->left;
    if (shared) shared->left -= calls;
    band->lean.serial++; /* the records of the band's last run end (express.h) */
    band->lean.stamped = calls;
    band->lean.stamps = band->check_stamps + k * STRETCH + band->check_calls[k];
    band->lean.nstamps = 0;
    band->countdown -= calls;
    shmcoll_mpi_express_grant = &band->lean;
}

/* At a call of the band through the sequence: the calls the express run took count as the
 * stretch's stamped calls, those it did not are given back to the countdown (and to the agreed
 * key's count, `shared`, where the grant took them from it): the call goes on with them, every
 * rank counts every call of the band once, on either path. */
static void check_absorb(calib_band_t *band, calib_shared_t *shared) {
    if (!band->lean.stamped && !band->lean.nstamps) return; /* no run since the last */
    band->check_unstamped |= band->lean.stamped > 0; /* a call with other arguments broke it */
    band->countdown += band->lean.stamped;
    if (shared && shared->band == band) shared->left += band->lean.stamped;
    band->check_calls[band->check - 1] += band->lean.nstamps;
    band->lean.stamped = band->lean.nstamps = 0;
}

/* A stretch of the loop check has ended (at the call after its last, on every rank): the rival's
 * stretch begins, or after it the stretches' mean times per call are agreed (PMPI_Allreduce, MAX)
 * and decide the verdict till the band's next measurement, where both have a time. */
static void check_step(shmcoll_mpi_call_t *call, calib_band_t *band) {
    band->epoch++; /* the calls kept for the stretch (repeat.h) end with it */
    if (band->check == 1) {
        band->check = 2;
        band->verdict = band->check_ways[1];
        band->countdown = STRETCH;
        return;
    }
    band->check = 0;
    band->countdown = band->interval; /* the measurement's, where the check decides nothing */
    band->verdict = band->check_ways[0];
    /* Each stretch's time per call (select/loop_time.h), and minus the number of periods it is
     * of: the fewest's over the ranks. Left out: the periods that hold a call not stamped, those
     * more than OUTLIER times their median and the RECOVERY periods after either. Open MPI's
     * 64-byte bcast stalled now and then for a few times a call's time, which is the collective's:
     * leaving out the slowest eighth instead left those out, and it measured 0.15 us a call
     * against shmcoll's 0.23 and took 0.29 us against 0.15 in a loop. A benchmark's pause between
     * its warm-up and its timed loop left periods of 2.7 and 5.0 us after it in the MPI library's
     * stretch of 8-byte gathers, whose other periods took 0.21 us: counted, they made that way
     * 0.32 us a call against shmcoll's 0.24 (Open MPI, p = 2). */
    double mine[4], took[4];
    for (int k = 0; k < 2; k++) {
        uint32_t counted;
        mine[k] = shmcoll_loop_time(band->check_stamps + k * STRETCH, band->check_breaks[k],
                                    band->check_calls[k], WARM_UP, OUTLIER, RECOVERY, &counted);
        mine[2 + k] = -(double)counted;
    }
    free(band->check_stamps);
    band->check_stamps = NULL;
    if (!agreed(call, PMPI_Allreduce(mine, took, 4, MPI_DOUBLE, MPI_MAX, call->comm)) ||
        !(took[2] <= -MIN_PERIODS && took[3] <= -MIN_PERIODS))
        return;
    const int mpi = band->nways - 1, theirs = band->check_ways[1] == mpi;
    const int ours = band->check_ways[!theirs];
    band->verdict = (uint8_t)(took[theirs] < mpi_margin() * took[!theirs] ? mpi : ours);
    /* the interval grows where the way that serves stays, as settle has it for a measurement */
    band->interval = band->verdict == band->check_old ? band->check_grown : band->check_base;
    band->countdown = band->interval;
    if (call->state->rank != 0 || !shmcoll_config()->verbose) return;
    /* with the fewest periods a rank counted of each stretch */
    shmcoll_log_verbose(
        "%s on %d ranks: checked in a loop of %d calls each: %s %.2f us a call (%.0f periods), "
        "the MPI library %.2f us (%.0f periods): %s from now on",
        call->function, call->state->size, STRETCH, way_name(band, ours), 1e6 * took[!theirs],
        -took[2 + !theirs], 1e6 * took[theirs], -took[2 + theirs], way_name(band, band->verdict));
}

/* A barrier's measurement: whether the MPI library's barrier let rank 0 out first. The ends of its
 * first EXIT_SLOTS timed calls, the same calls on every rank, stamped on one clock (one node's):
 * two slots a call in settle's agreement (MAX), rank 0's end in the first, the others' negated in
 * the second (the earliest of them), and the median over the calls of how long before the
 * earliest of the others rank 0 left. Rank 0 out first by ROOT_LEAD of shmcoll's fastest barrier
 * (about a cache line's transfer) or more: MPICH's barrier let rank 0 out 0.20-0.43 us before the
 * other (its calls 0.93-1.06 us, the dissemination barrier's 0.28-0.33), Open MPI's by -0.06-0.08
 * us in most measurements and by 0.18-0.22 in two of twelve (its calls 0.36-0.43, the
 * dissemination barrier's 0.26-0.31; p = 2). A mean over the calls instead was one slow call's:
 * MPICH's lead measured 4.92 us once, 0.30 the next time. */
static void exits_mine(const calib_band_t *band, int rank, double *mine) {
    for (uint32_t i = 0; i < EXIT_SLOTS; i++) {
        /* a call rank 0 did not stamp makes its slot infinite, one no other rank stamped -infinite:
         * either leaves the call out (exits_lead) */
        const double end = i < band->exit_calls ? band->exits[i] : HUGE_VAL;
        mine[2 * i] = rank == 0 ? end : -HUGE_VAL;
        mine[2 * i + 1] = rank == 0 ? -HUGE_VAL : -end;
    }
}

/* The median lead over the calls every rank stamped, from the agreed slots; NAN with fewer than
 * MIN_EXITS of them. */
static double exits_lead(const double *agreed) {
    double leads[EXIT_SLOTS];
    uint32_t n = 0;
    for (uint32_t i = 0; i < EXIT_SLOTS; i++)
        if (isfinite(agreed[2 * i]) && isfinite(agreed[2 * i + 1]))
            leads[n++] = -agreed[2 * i + 1] - agreed[2 * i];
    return n >= MIN_EXITS ? shmcoll_loop_median(leads, n) : NAN;
}

/* Whether the lead (exits_lead; NAN: not told) is ROOT_LEAD of shmcoll's fastest barrier. A
 * quarter, not half: MPICH's lead is not always half of that barrier (0.09-0.11 us against
 * 0.26-0.29, and 0.32-0.34 against 0.83-0.97 while the cores' cache lines crossed slowly), and
 * where it was missed the rooted calls after the barrier waited for rank 0 (docs/ENGINE.md). */
static int exits_root_first(const calib_band_t *band, const double *slowest, double lead) {
    const int fastest = fastest_way(band, slowest, timeless_ways(band, slowest));
    return fastest >= 0 && lead >= ROOT_LEAD * slowest[fastest];
}

/* Every rank's fastest call of each way, the slowest over the ranks, decides; the node team's
 * choice always takes part (a probe that left it out gave it its probe's time). Where the verdict's
 * watched calls drifted (see watch) and the measurement they called gives the same way again, the
 * time those calls took counts as its time: they are the application's own calls, as it makes
 * them, and a measurement's calls (from 8 MiB each alone after a barrier) need not be. Open MPI's
 * 16 MiB allgather measured its pipeline row at 4.3-4.8 ms alone, the MPI library's at 4.5-5.2,
 * and took 6.6 ms a call in a benchmark's loop (the MPI library's 5.1-5.4 ms): the watch sent it
 * to be measured again, which gave the pipeline again, and the row ran at 0.69-0.81x.
 * Not at the first drift, though: two watched calls in a row 1.5 times slower are as often a stall
 * of the machine (the host taking a CPU for a few milliseconds) as a change of the calls, and the
 * watched times that triggered the measurement are by that choice the slow ones. Taken as the
 * verdict's time, a passing stall sent a 2 MiB reduce_scatter_block (heap 125-155 us, the MPI
 * library's 190-270) to the MPI library for its next 64 calls in two of three benchmark runs, and
 * bcast's 2 MiB single copy once; the rows ended at 0.82-0.97x. So the first drift's measurement
 * times the verdict afresh, as the others, and the watch goes on; a second drift before the band
 * is due (the calls as they come stay slower than measured) takes the watched time. */
static void settle(shmcoll_mpi_call_t *call, calib_band_t *band, size_t bytes) {
    double mine[MAX_WAYS + 2 * EXIT_SLOTS], slowest[MAX_WAYS + 2 * EXIT_SLOTS];
    const int n = band->nways, exits = band->root_first ? 2 * EXIT_SLOTS : 0;
    memcpy(mine, band->best, (size_t)n * sizeof *mine);
    if (exits) exits_mine(band, call->state->rank, mine + n);
    if (!agreed(call, PMPI_Allreduce(mine, slowest, n + exits, MPI_DOUBLE, MPI_MAX, call->comm)))
        return;
    const double lead = exits ? exits_lead(slowest + n) : NAN;
    band->mpi_root_first = (uint8_t)exits_root_first(band, slowest, lead);
    int verdict = choose(band, slowest, left_out(band) & ~1u);
    /* drift_seen is set only where the watch sent shmcoll's verdict to be measured again (the MPI
     * library's way drifting is measured again spread, see watch), and cleared here */
    double seen = 0; /* the drifted verdict's watched time that replaced its measured one */
    const int kept_before = band->drift_kept;
    band->drift_kept = 0; /* a measurement when due, or a drift's that changed the verdict */
    if (band->drift_seen > 0 && verdict == band->verdict &&
        band->drift_seen * (double)bytes > slowest[verdict]) {
        if (kept_before) {
            seen = slowest[verdict] = band->drift_seen * (double)bytes;
            verdict = choose(band, slowest, timeless_ways(band, slowest));
        } else {
            band->drift_kept = 1;
        }
    }
    band->drift_seen = 0;
    prune(band, slowest, verdict);
    const unsigned early = band->skip_now; /* for the message: their time is of fewer calls */
    band->skip_now = 0;
    /* Large bands: measured again soon after, spread, the interval doubling while the verdict
     * holds (a verdict on few calls). Below, RECHECK times the measurement's calls, the loop
     * check's stretches (check_begin) counted: without them a band of 8-byte gathers whose check
     * overturned its measurement every time was measured again every 2560 calls, 296 of them the
     * measurement's (Open MPI, p = 2: the row at 0.86-0.92x of the MPI library's, its own way). */
    const uint32_t base =
        bytes >= LARGE_BYTES
            ? SPREAD * block_calls(bytes) * tried_ways(band)
            : RECHECK * (measure_calls(band, bytes) + (bytes < MEDIUM_BYTES ? 2 * STRETCH : 0));
    /* A verdict that changed to a way the last one's time is within TIE of is a tie, not a change
     * of the machine's state: the interval grows as if it held. Reset instead, a tied band's
     * verdict flipped with the noise and brought its measurement back every few blocks: a 2 MiB
     * alltoall (single copy 600 us, the MPI library's 620, its rotated row 710-990) was measured
     * again every 96 calls and ran its benchmark row at 0.89x. */
    const int old = band->verdict;
    const int same =
        band->measured &&
        (verdict == old || (slowest[old] > 0 && slowest[old] <= TIE * slowest[verdict]));
    /* After a drift's measurement that took the watched time, or changed the verdict, the band is
     * not watched again before it is due: at most two such measurements per interval, however the
     * calls' times swing. */
    band->watch_off = band->urgent && !band->drift_kept;
    band->urgent = 0;
    band->drifted = 0;
    band->gap = spread_gap(band, slowest, verdict);
    /* Bounded, so that a change of the machine's state
     * is seen within a bounded number of calls, at a cost of 1/(RECHECK x RECHECK_GROW) then. */
    const uint32_t cap = base * RECHECK_GROW;
    const uint32_t grown = band->interval < cap / 2 ? 2 * band->interval : cap;
    band->interval = !same ? base : grown;
    band->countdown = band->interval;
    band->verdict = (uint8_t)verdict;
    const int rival = check_begin(band, slowest, verdict, bytes);
    band->check_old = band->measured ? (uint8_t)old : 0xff;
    band->check_grown = grown;
    band->check_base = base;
    band->gain = slowest[n - 1] - slowest[verdict];
    band->settled = slowest[verdict] / (double)bytes;
    if (shmcoll_config()->stats && call->state->counts) shmcoll_mpi_view_verdict(verdict == n - 1);
    band->measured = 1;
    band->measuring = band->provisional = band->interim = 0;
    band->epoch++;
    if (call->state->rank != 0 || !shmcoll_config()->verbose) return;
    char times[256];
    size_t at = 0;
    for (int w = 0; w < n && at < sizeof times; w++) {
        char time[64] = "left out"; /* a row pruned this time has no time on any rank */
        if (slowest[w] > 0)
            snprintf(time, sizeof time, "%.2f us%s", 1e6 * slowest[w],
                     seen > 0 && slowest[w] == seen ? " (as its watched calls took)"
                     : early >> w & 1               ? " (left out early)"
                                                    : "");
        at += (size_t)snprintf(times + at, sizeof times - at, "%s%s %s", w ? ", " : "",
                               way_name(band, w), time);
    }
    const int b = shmcoll_select_band(bytes);
    char check[96] = "", order[96] = "";
    if (!isnan(lead))
        snprintf(order, sizeof order,
                 " (the MPI library's lets rank 0 out %.2f us before the others)", 1e6 * lead);
    if (rival >= 0)
        snprintf(check, sizeof check, ", checked in a loop against %s first",
                 way_name(band, rival));
    shmcoll_log_verbose("%s, band [%zu, %zu) bytes on %d ranks: measured %s%s: %s from now on, "
                        "measured again in %u calls%s",
                        call->function, b ? (size_t)1 << (b - 1) : 0, b ? (size_t)1 << b : 1,
                        call->state->size, times, order, way_name(band, verdict), band->interval,
                        check);
}

/* A watched call taking a band's verdict (from 64 KiB, see watch_interval): its time, the fastest
 * rank's (one PMPI_Allreduce, at most about 0.5% of the calls it watches; the fastest, since a rank
 * that arrived late did not wait for the others: an imbalance of the application is not a change of
 * the collective), against the verdict's measured time per byte at the call's size; DRIFT_CALLS
 * watched calls in a row more than DRIFT times slower and the band is measured again at its next
 * call, its trials not spread: the machine's state changed (its memory bandwidth halves within
 * minutes on the 2-core machines the project is measured on) or the calls did (a loop on buffers
 * rewritten before every call, cold in cache: a 16 MiB bcast's copy-in/copy-out went from 1.9 ms,
 * measured on warm buffers, to 7.3 ms, the MPI library's 4.3 ms). Every rank has the same times, so
 * all measure again at the same call. */
static void watch(shmcoll_mpi_call_t *call, shmcoll_mpi_calib_turn_t *turn) {
    calib_band_t *band = turn->watched;
    const double now = shmcoll_shm_now();
    /* The fastest rank's time of the call and of the last agreement: the rank that came last to
     * either did not wait for the others, so its time is the call's, the agreement's own. */
    double mine[2] = {now - turn->start, band->agree_cost}, all[2];
    const int rc = PMPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MIN, call->comm);
    band->agree_cost = shmcoll_shm_now() - now;
    if (!agreed(call, rc) || band->epoch != turn->hold.epoch) return;
    const double fastest = all[0], expected = band->settled * (double)turn->bytes;
    /* Against the call's time as it is now, not as measured: calls that turned slower make the
     * agreement cheaper against them, and the next watched call, the one that can confirm a
     * drift, comes sooner (with the measured time, a fast band's interval stayed at its sparsest,
     * 32 calls of 1 MiB). */
    band->watch_every = watch_interval(turn->bytes, all[1], fastest);
    band->drifted = fastest > DRIFT * expected ? band->drifted + 1 : 0;
    if (band->drifted < DRIFT_CALLS) return;
    /* The MPI library's own way slower than measured: shmcoll is then no slower than the MPI
     * library (it is the MPI library), whose large calls swing with the machine's noise as much as
     * shmcoll's (an 8 MiB bcast 1.58 -> 2.46 ms in one run; measured again at once, it tried the
     * node team's row of 3.3-4.5 ms twice, and that benchmark row of 42 calls ended at 0.83x).
     * Whether one of shmcoll's ways got faster meanwhile, trials spread as a re-measurement's are
     * find out (from 1 MiB; below, the band's next measurement). */
    const int theirs = mpi_way(band, band->verdict);
    if (theirs) {
        band->drifted = 0;
        if (turn->bytes < LARGE_BYTES) return;
        band->watch_off = 1; /* till the coming verdict: its measurement is under way */
        if (!band->measuring) {
            band->countdown = 0; /* measured at the next call, spread */
            unprune(band);
        }
    } else {
        band->urgent = 1;
        band->drift_seen = fastest / (double)turn->bytes; /* the calls as they come (settle) */
        if (band->measuring)
            measure_anew(band, turn->bytes); /* starts over, at once */
        else
            band->countdown = 0; /* measured at the next call, not spread */
        unprune(band);
    }
    if (call->state->rank == 0 && shmcoll_config()->verbose)
        shmcoll_log_verbose("%s, %zu bytes on %d ranks: %s took %.2f us, %.1f times its measured "
                            "time: measured again%s",
                            call->function, turn->bytes, call->state->size,
                            way_name(band, band->verdict), 1e6 * fastest, fastest / expected,
                            theirs ? ", its trials spread" : "");
}

/* A timed round of a measurement with rounds to come has ended: the ways' best blocks so far
 * agreed (agree_times, the MPI library's weighed with the margin), and a way more than ROUND_SLOWER
 * times slower than the fastest sits out the rounds left (skip_now; its block so far is its time at
 * the verdict). Each round of a candidate 1.5 times slower costs half its calls' time: a 128 KiB
 * bcast whose pipeline row was 1.4 times the MPI library's ran its OSU-style row (100 calls, each
 * after a barrier) at 0.92x. Where a round is one call of each way (from HUGE_BYTES), one call's
 * noise is not averaged: ROUND_SINGLE (Open MPI's 16 MiB allgather left its pipeline out at
 * 7.7 ms against single copy's 6.2, 1.23 times, where a loop of each took 5.6-6.0 ms and
 * 6.4-6.8). Returns 1 while more than one way is left (the next round), 0 when one is (the
 * verdict) or the agreement failed (agreed). */
static int round_end(shmcoll_mpi_call_t *call, calib_band_t *band, size_t bytes) {
    double slowest[MAX_WAYS];
    if (!agree_times(call, band, band->best, slowest)) return 0;
    const double fastest = fastest_of(slowest, band->nways, left_out(band));
    const double limit = block_calls(bytes) == 1 ? ROUND_SINGLE : ROUND_SLOWER;
    for (int w = 0; w < band->nways; w++)
        if (!(left_out(band) >> w & 1) && slowest[w] > limit * fastest)
            band->skip_now |= (uint8_t)(1u << w);
    return tried_ways(band) > 1;
}

/* A call of a provisional band between its trials has returned: its time in its block's, the
 * fastest block kept (see interim). */
static void between_end(calib_band_t *band, const shmcoll_mpi_calib_turn_t *turn) {
    band->between_block += shmcoll_shm_now() - turn->start;
    if (!turn->provisional_end) return;
    const double per_call = band->between_block / block_calls(turn->bytes);
    if (band->between == 0 || per_call < band->between) band->between = per_call;
    band->between_block = 0;
}

/* A trial block of a provisional band (band_for) has ended, with trials to come: the times so far
 * agreed (the slowest rank's: the trials' blocks, the MPI library's weighed as the verdict weighs
 * it, and the fastest block of the calls between the trials), and where a trial's way was faster
 * than those calls by more than TIE, it serves them up to the verdict. The first measurement of a
 * band from 1 MiB comes after a block of each way, one in SPREAD of the calls' blocks: 96 calls
 * with three ways, of the 110 an OSU-style benchmark makes of a size, which took the way of calls
 * without a verdict (unmeasured_row) up to then. Open MPI's 2 MiB reduce so ran at 0.74x the MPI
 * library's in one run where single copy took 270 us a call, the chain 216 and the MPI library
 * 233, and at 0.98x in the next, where single copy took 220-243 (p = 2, the fast state). The MPI
 * library's way is tried first (tried_way): from the 33rd call on, where it was faster, its way
 * serves. One agreement per trial: one PMPI_Allreduce per 32 calls of a megabyte or more. */
static void interim(shmcoll_mpi_call_t *call, calib_band_t *band, size_t bytes) {
    const int n = band->nways;
    double mine[MAX_WAYS + 1], slowest[MAX_WAYS + 1];
    memcpy(mine, band->best, (size_t)n * sizeof *mine);
    mine[n] = band->between;
    if (!agreed(call, PMPI_Allreduce(mine, slowest, n + 1, MPI_DOUBLE, MPI_MAX, call->comm)))
        return;
    const double margin = mpi_margin();
    if (slowest[n - 1] > 0) slowest[n - 1] = margin > 0 ? slowest[n - 1] / margin : HUGE_VAL;
    int fastest = -1; /* of the ways tried so far */
    for (int w = 0; w < n; w++)
        if (slowest[w] > 0 && (fastest < 0 || slowest[w] < slowest[fastest])) fastest = w;
    if (fastest < 0 || !(slowest[n] > 0) || TIE * slowest[fastest] >= slowest[n]) return;
    if (band->interim && fastest == band->verdict) return;
    band->verdict = (uint8_t)fastest;
    band->interim = 1;
    band->between = 0; /* the way's own calls from now on */
    if (call->state->rank != 0 || !shmcoll_config()->verbose) return;
    const int b = shmcoll_select_band(bytes);
    shmcoll_log_verbose("%s, band [%zu, %zu) bytes on %d ranks: its calls between trials took "
                        "%.2f us, %s %.2f us in its trial: it serves them up to the verdict",
                        call->function, b ? (size_t)1 << (b - 1) : 0, b ? (size_t)1 << b : 1,
                        call->state->size, 1e6 * slowest[n], way_name(band, fastest),
                        1e6 * slowest[fastest]);
}

void shmcoll_mpi_calibrate_end(shmcoll_mpi_call_t *call, shmcoll_mpi_calib_turn_t *turn) {
    if (turn->lean) check_grant(turn->hold.band, turn->hold.shared);
    if (turn->watched) watch(call, turn);
    if (turn->provisional) between_end(turn->provisional, turn);
    calib_band_t *band = turn->band;
    if (!band) return;
    if (turn->probe) {
        const double took = shmcoll_shm_now() - turn->start;
        double *probe = &band->probe[turn->way];
        if (*probe == 0 || took < *probe) *probe = took;
        if (probe_end(call, band, turn->way)) settle(call, band, turn->bytes);
        return;
    }
    if (!turn->timed) return;
    const double now = shmcoll_shm_now();
    band->block += now - turn->start; /* the call's own time, not the application's */
    /* when it let this rank out (exits_mine) */
    if (band->exits && mpi_way(band, turn->way) && band->exit_calls < EXIT_SLOTS)
        band->exits[band->exit_calls++] = now;
    if (!turn->block_end) return;
    const double per_call = band->block / block_calls(turn->bytes);
    double *best = &band->best[turn->way];
    if (*best == 0 || per_call < *best) *best = per_call;
    band->in_block = 0;
    if (!band->nways) return;
    if (++band->turn_k < tried_ways(band)) { /* the round's next way */
        if (band->provisional) interim(call, band, turn->bytes);
        return;
    }
    band->turn_k = 0;
    /* Rounds end with their slow ways left out from PROBE_BYTES (see probe_turn) */
    if (++band->round < timed_blocks(turn->bytes) &&
        (turn->bytes < PROBE_BYTES || round_end(call, band, turn->bytes)))
        return;
    settle(call, band, turn->bytes);
}

shmcoll_status_t shmcoll_mpi_calibrate_follow(shmcoll_mpi_call_t *call,
                                              const shmcoll_mpi_coll_desc_t *desc,
                                              const void *margs, const char **row) {
    *row = NULL;
    const calib_t *calib = call->state && desc->key ? calib_of(call->state) : NULL;
    if (!calib) return SHMCOLL_OK;
    /* key_local: the band of the blocking calls' last agreed key, every rank's alike */
    const calib_band_t *band = NULL;
    if (calib->bands[desc->coll])
        band = desc->key_local
                   ? calib->shared[desc->coll].band
                   : &calib->bands[desc->coll][shmcoll_select_band(desc->key(margs, call->state))];
    if (!band || band->measuring || !band->measured) {
        *row = unmeasured_row(calib, desc, 0);
        return SHMCOLL_OK;
    }
    if (mpi_way(band, band->verdict)) {
        call->quiet = 1;
        return shmcoll_mpi_call_reject(call, "measured: the MPI library's own is faster here");
    }
    *row = band->rows[band->verdict];
    return SHMCOLL_OK;
}

int shmcoll_mpi_calibrate_holds(const shmcoll_mpi_calib_hold_t *hold) {
    calib_band_t *band = hold->band;
    calib_shared_t *shared = hold->shared;
    /* A shared key's agreement is due, or it found another band: the sequence, where it is
     * agreed and counted (every rank counts every call once, on either way). */
    if (shared && (shared->left == 0 || shared->band != band)) return 0;
    if (band && (band->measuring || band->epoch != hold->epoch || band->countdown == 0 ||
                 watched(band, band->countdown)))
        return 0; /* a watched call takes the sequence, where it is timed */
    if (shared) shared->left--;
    if (band) band->countdown--;
    return 1;
}

uint32_t shmcoll_mpi_calibrate_reserve(const shmcoll_mpi_calib_hold_t *hold) {
    calib_band_t *band = hold->band;
    calib_shared_t *shared = hold->shared;
    if (!band || band->measuring || band->epoch != hold->epoch || band->check ||
        (band->watch_every && !band->watch_off) || (shared && shared->band != band))
        return 0; /* a loop check's calls are stamped, one by one (calibrate_stamp) */
    uint32_t calls = band->countdown;
    if (shared && shared->left < calls) calls = shared->left;
    band->countdown -= calls;
    if (shared) shared->left -= calls;
    return calls;
}

void shmcoll_mpi_calibrate_stamp(const shmcoll_mpi_calib_hold_t *hold, int lean) {
    calib_band_t *band = hold->band;
    if (!band || !band->check || band->epoch != hold->epoch) return;
    check_absorb(band, hold->shared); /* an express run's stamps come first */
    const int k = band->check - 1;
    if (band->check_calls[k] < STRETCH) {
        check_mark(band, k, band->check_calls[k]);
        band->check_stamps[k * STRETCH + band->check_calls[k]++] = shmcoll_shm_now();
    }
    /* the MPI library's stretch kept on the repeat path: its next calls stamped on the express
     * path (no run ahead of unstamped calls in a check, calibrate_reserve) */
    if (lean && mpi_way(band, band->verdict) && band->countdown > 0)
        check_grant(band, hold->shared);
}

void shmcoll_mpi_calibrate_stamp_unkept(const shmcoll_mpi_calib_turn_t *turn) {
    calib_band_t *band = turn->hold.band;
    if (!turn->settled || !band || !band->check || band->epoch != turn->hold.epoch) return;
    band->check_unstamped = turn->unstamped; /* this call is stamped after all */
    shmcoll_mpi_calibrate_stamp(&turn->hold, 0);
}

void shmcoll_mpi_calibrate_unreserve(const shmcoll_mpi_calib_hold_t *hold, uint32_t calls) {
    hold->band->countdown += calls;
    if (hold->shared) hold->shared->left += calls;
}
