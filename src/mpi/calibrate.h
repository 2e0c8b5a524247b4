/* The selector's measurement: which way serves a size band of a collective on a communicator,
 * measured on the machine at hand, at every size, and measured again as the machine changes.
 *
 * Thresholds tuned on one machine do not hold on the next, nor on the same machine an hour later
 * (memory bandwidth swings with the host's state), and a tuning file exists only where someone
 * ran shmcoll-tune. So where no tuning is given (no SHMCOLL_TUNE, no tuning file in force), each
 * size band (the selector's: powers of two of the size every rank knows alike, the descriptor's
 * key, call.h; the barrier's one band is of 0 bytes, and a call of another collective that moves
 * nothing is not measured) of each blocking collective on a communicator measures its candidates
 * before it settles:
 *   - the node team's choice (the cost model's row, select/), on one node or composed across
 *     nodes;
 *   - for the collectives that move blocks, the other rows of their kind that serve the call and
 *     move data another way: single copy by cross-memory attach (each block moved once, DAV 2
 *     bytes per byte, as the MPI library's rendezvous moves it) against copy-in/copy-out through
 *     shared slots (DAV 4, but in cache on one side) — which is faster depends on the machine's
 *     state;
 *   - the MPI library's own collective (PMPI_*).
 * The candidates take turns in blocks of calls in a row (4 below 64 KiB, 8 up to 1 MiB, 4 up to
 * 8 MiB, 1 beyond:
 * calls in a row overlap, as in applications' loops, which one call's time does not show): up to
 * 1 MiB a first untimed round (warm-up; none after a probe, see below), then timed rounds; from 1
 * MiB one untimed call (the MPI library's), then one timed block each, and when measured again, the
 * trials spread: one block in 8 is a trial, the others take the verdict in force (a first
 * measurement on one node below 8 MiB spreads them too: the MPI library's way tried first, the way
 * of calls without a verdict serving the others till a trial's way was faster, calibrate.c,
 * interim). Each timed block starts from a PMPI_Barrier, so that a rank that arrives late (an
 * application's first calls are mostly such waits) does not count, and each call of the block is
 * timed on its own, so that what the application does between calls does not either; each rank
 * keeps its fastest block of each candidate, and one PMPI_Allreduce (MAX over the ranks) gives
 * every rank the same times and so the same verdict: the fastest of shmcoll's candidates, or the
 * MPI library's where it is faster by more than 2% (SHMCOLL_CALIBRATE_MARGIN). From 16 KiB a
 * measurement opens with a probe: three calls of each candidate, each after a PMPI_Barrier and
 * timed alone, agreed in one PMPI_Allreduce; one of shmcoll's ways more than 1.5 times slower than
 * the fastest, and the MPI library's more than 3 times slower than shmcoll's fastest, sit out the
 * turns (where one way is left, it is the verdict at once), and after each timed round but the last
 * a way more than 1.2 times slower than the fastest sits out the rest: every call of a slow
 * candidate costs its excess over the fastest, and a benchmark that makes a hundred calls of a size
 * pays the measurement in full. Below 64 KiB a verdict is then checked in a loop (calibrate.c,
 * check_begin): the verdict and the rival (the MPI library's way, or shmcoll's fastest where that
 * is the verdict) serve 128 calls in a row each on their settled paths, each call's start stamped,
 * and the mean periods between starts (the slowest rank's) decide: a few calls after a barrier do
 * not show the MPI library's eager sends running ahead in a loop. SHMCOLL_VERBOSE=1 logs every
 * verdict with the candidates' times per call ("left out early" for a way the probe or a round left
 * out: its time is of those calls).
 *
 * Cost, bounded by size: SHMCOLL_CALIBRATE timed calls per candidate (and a warm-up block or a
 * probe) up to 1 MiB; from 1 MiB one block per candidate (a candidate twice as slow as the best
 * costs one block's time once), measured again 8 blocks per candidate later with the trials spread:
 * one block in 8 to 64, so that the trials of the candidates, at their last times, cost about 2.5%
 * of the band's time (a candidate more than twice as slow as the verdict sits out the next 4
 * measurements; the node team's choice and the MPI library's only for the measurement whose probe
 * or round left them out).
 * Re-measuring: after a verdict the band is measured again after 64 times the calls its
 * measurement took, the loop check's included (from 1 MiB: 8 blocks per candidate), an interval
 * that doubles while the verdict holds (up to 64 times its start, so that a change of the machine's
 * state is seen) and starts over when it changes; so measurement takes at most 1/64 of a band's
 * calls below 1 MiB. Watching, from 64 KiB: one call in 32 taking the verdict (from 1 MiB in 4,
 * from 8 MiB every call; up to 8 times fewer where the agreement is dear, across nodes), settled or
 * between a spread measurement's trials, is timed and the fastest rank's time agreed (a
 * PMPI_Allreduce); two such calls in a row 1.5 times slower per byte than the verdict measured, and
 * the band is measured again at once, trials not spread (the machine's state changed, or the calls
 * did: buffers cold in cache), every way timed afresh; where the verdict holds and a second drift
 * comes before the band is due, the watched calls' time is the verdict's (calibrate.c, settle); at
 * most two such measurements per interval. Where the verdict is the MPI library's
 * own way, which shmcoll is then never slower than, the trials are spread (from 1 MiB; below,
 * nothing changes before the band's next measurement). Every rank counts the same calls of a band
 * (its key is the size every rank knows), so all take the same way on every call, meet in the same
 * barriers and allreduce, and measure again at the same call.
 *
 * The v-variants whose sizes only some ranks know (gatherv, scatterv, alltoallv: each rank knows
 * its own share, move.h) take as key the ranks' mean share, agreed in one PMPI_Allreduce every few
 * calls (at most every 256, at most 0.5% of the time between agreements, from the first call;
 * calibrate.c, share_key), so each size band of theirs is measured on its own, as the others'
 * are; a new size is seen within the calls up to the next agreement. Not measured: communicators
 * under given tuning, the non-blocking and persistent forms (no start may wait for the agreement
 * a verdict needs; docs/REQUESTS.md says what measuring them would take): a non-blocking call
 * follows the verdict of its band's blocking calls where there is one, and so does a persistent
 * request, at its init (the MPI library's non-blocking collective at every start, or the verdict's
 * row); where the band has none, single copy for the collectives that move blocks, from
 * SHMCOLL_CMA_MIN (calibrate.c, unmeasured_row), else the node team's choice. */
#ifndef SHMCOLL_MPI_CALIBRATE_H
#define SHMCOLL_MPI_CALIBRATE_H

#include "mpi/call.h"

#include <stdint.h>

/* What a kept call (repeat.h) holds of the band whose verdict it follows. */
typedef struct shmcoll_mpi_calib_hold {
    struct shmcoll_mpi_calib_band *band;     /* NULL: no measurement applies */
    uint32_t epoch;                          /* the band's verdict then */
    struct shmcoll_mpi_calib_shared *shared; /* key_local (call.h): the agreed key's state */
} shmcoll_mpi_calib_hold_t;

/* One call's turn, from shmcoll_mpi_calibrate_begin to shmcoll_mpi_calibrate_end. */
typedef struct shmcoll_mpi_calib_turn {
    struct shmcoll_mpi_calib_band *band; /* NULL: the call is not part of a measurement */
    int way;                             /* the candidate it runs */
    int timed;
    int probe;       /* a call of the measurement's probe (calibrate.c, probe_turn) */
    int block_end;   /* the last call of its block */
    int lean;        /* the first call of the loop check's stretch of the MPI library's way, whose
                      * next calls take the express path, timed (calibrate.c, check_grant;
                      * blocking.c clears it where they cannot) */
    int settled;     /* the way is the band's verdict (or no measurement applies) */
    int unstamped;   /* the band's check_unstamped before this call marked it (calibrate.c) */
    int tuned;       /* the band follows given tuning (never measured): blocking.c sends a call
                      * its rules give the MPI library (@mpi) there as a verdict of that way */
    size_t bytes;    /* the call's key, where measurement applies */
    const char *row; /* the node team's row it asks for (NULL: the selector's choice) */
    shmcoll_mpi_calib_hold_t hold;              /* settled: what a kept call holds */
    struct shmcoll_mpi_calib_band *watched;     /* a call taking the verdict, timed against it */
    struct shmcoll_mpi_calib_band *provisional; /* a call between a first measurement's spread
                                                 * trials, timed (calibrate.c, interim; the
                                                 * band's first finds its candidates) ... */
    int provisional_end;                        /* ... the last of its block */
    double start;
} shmcoll_mpi_calib_turn_t;

/* Which way a blocking call on a handled communicator goes: OK for shmcoll's (turn->row the row
 * to ask for, once the call is prepared), NOT_SUPPORTED (with call->reason) for the MPI
 * library's, every rank alike. Calls that are part of a measurement are timed from here to
 * shmcoll_mpi_calibrate_end. */
shmcoll_status_t shmcoll_mpi_calibrate_begin(shmcoll_mpi_call_t *call,
                                             const shmcoll_mpi_coll_desc_t *desc, const void *margs,
                                             shmcoll_mpi_calib_turn_t *turn);

/* After prepare: the band's candidates are found at its first call (from the prepared
 * arguments, which every rank shares), and the call asks for its turn's row. */
void shmcoll_mpi_calibrate_prepared(shmcoll_mpi_call_t *call, shmcoll_mpi_calib_turn_t *turn);

/* The call has returned: its time is recorded, and after the last timed call of a measurement the
 * verdict is agreed (a PMPI_Allreduce on the call's communicator, on every rank alike). */
void shmcoll_mpi_calibrate_end(shmcoll_mpi_call_t *call, shmcoll_mpi_calib_turn_t *turn);

/* A non-blocking call, and a persistent request at its init, follows the verdict its band has
 * (from the blocking calls of the same band on the communicator, which every rank made alike),
 * without being measured: NOT_SUPPORTED
 * (call->reason) where it is the MPI library's, else OK with *row the row to ask for (NULL: the
 * node team's choice); while the band has no verdict, single copy for the calls that move
 * blocks (unmeasured_row; where it does not serve, the node team's choice), else NULL. */
shmcoll_status_t shmcoll_mpi_calibrate_follow(shmcoll_mpi_call_t *call,
                                              const shmcoll_mpi_coll_desc_t *desc,
                                              const void *margs, const char **row);

/* For a kept call about to take its way without the sequence: 1 when that way still holds for
 * this call (counted as one of the band's calls), 0 when the band's verdict has changed since or
 * the band is due to be measured again (the call then takes the whole sequence). */
int shmcoll_mpi_calibrate_holds(const shmcoll_mpi_calib_hold_t *hold);

/* Right after shmcoll_mpi_calibrate_holds returned 1 for a call of the MPI library's way: the
 * calls of the band's count that may follow without it (up to its next measurement, its shared
 * key's next agreement), counted now; 0 where a later call must take the sequence (a watched
 * band). The caller gives back what it did not use (shmcoll_mpi_calibrate_unreserve) before any
 * other call of the collective on the communicator, so that every rank's counts stay those of
 * the calls it made. */
uint32_t shmcoll_mpi_calibrate_reserve(const shmcoll_mpi_calib_hold_t *hold);
void shmcoll_mpi_calibrate_unreserve(const shmcoll_mpi_calib_hold_t *hold, uint32_t calls);

/* A kept call (repeat.h) that follows `hold` starts: its start is stamped where the loop check
 * times its band's calls (calibrate.c, check_begin); where it is a call of the MPI library's way
 * whose arguments alone tell its next call (`lean`, as a run ahead has it), the stretch's next
 * calls are granted to the express path, stamped there. */
void shmcoll_mpi_calibrate_stamp(const shmcoll_mpi_calib_hold_t *hold, int lean);

/* A call taking the verdict that the repeat path could not keep (shmcoll_mpi_repeat_keep gave 0:
 * reduce_scatter's counts, a derived type) is stamped on the sequence, once prepared, where the
 * loop check times its band: such calls always take the sequence, which is then what they cost. */
void shmcoll_mpi_calibrate_stamp_unkept(const shmcoll_mpi_calib_turn_t *turn);

#endif
