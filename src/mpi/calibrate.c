/* Calibration: shmcoll's way or the MPI library's, per size band, by timing both. See
 * calibrate.h. */
#include "mpi/calibrate.h"

#include "base/config.h"
#include "base/log.h"
#include "select/select.h"
#include "select/tune.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BLOCK  4    /* calls of one way in a row: a way's first calls after a switch warm it */
#define MARGIN 0.98 /* the MPI library's way must be this much faster to be chosen */

enum { MEASURING, OURS, THEIRS };

typedef struct shmcoll_mpi_calib_band {
    uint32_t calls;  /* calls of the band so far, while measuring */
    uint8_t verdict; /* MEASURING, OURS or THEIRS */
    double block;    /* the time of the block's calls so far */
    double best[2];  /* this rank's fastest timed block of each way (seconds; 0: none yet) */
} calib_band_t;

/* A communicator's (its state's calib). */
typedef struct calib {
    calib_band_t *bands[SHMCOLL_MPI_COLL_COUNT]; /* [SHMCOLL_SELECT_BANDS] each, on first use */
} calib_t;

static void calib_free(void *p) {
    calib_t *calib = p;
    for (int c = 0; c < SHMCOLL_MPI_COLL_COUNT; c++) free(calib->bands[c]);
    free(calib);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Calls of a band before its verdict: a warm-up block of each way, then the timed calls of
 * each (SHMCOLL_CALIBRATE, rounded up to whole blocks). The last one is the MPI library's. */
static uint32_t calls_to_verdict(void) {
    const long timed = shmcoll_config()->calibrate;
    return 2 * BLOCK + 2 * (uint32_t)((timed + BLOCK - 1) / BLOCK * BLOCK);
}

/* The band of the call (the selector's size bands), its state made on first use; NULL without
 * memory. */
static calib_band_t *band_for(shmcoll_mpi_comm_t *state, shmcoll_mpi_coll_t coll, size_t bytes) {
    if (!state->calib) {
        if (!(state->calib = calloc(1, sizeof(calib_t)))) return NULL;
        state->calib_free = calib_free;
    }
    calib_band_t **bands = &((calib_t *)state->calib)->bands[coll];
    if (!*bands && !(*bands = calloc(SHMCOLL_SELECT_BANDS, sizeof **bands))) return NULL;
    return &(*bands)[shmcoll_select_band(bytes)];
}

shmcoll_status_t shmcoll_mpi_calibrate_begin(shmcoll_mpi_call_t *call,
                                             const shmcoll_mpi_coll_desc_t *desc, const void *margs,
                                             shmcoll_mpi_calib_turn_t *turn) {
    *turn = (shmcoll_mpi_calib_turn_t){.settled = 1};
    const shmcoll_config_t *config = shmcoll_config();
    shmcoll_mpi_comm_t *state = call->state;
    if (config->calibrate <= 0 || !desc->key || !call->group || state->inter) return SHMCOLL_OK;
    const size_t bytes = turn->bytes = desc->key(margs, state);
    if (bytes > config->calibrate_max) return SHMCOLL_OK;
    calib_band_t *band = band_for(state, desc->coll, bytes);
    /* Without memory for the band the other ranks may calibrate while this one cannot count
     * turns: the call fails on every rank, as a failed prepare does (call.c), rather than part
     * the ranks silently. */
    if (!band) {
        snprintf(call->group->team->error, sizeof call->group->team->error,
                 "rank %d has no memory to calibrate %s (SHMCOLL_CALIBRATE=0 turns it off)",
                 state->rank, call->function);
        return shmcoll_team_fail(call->group->team, SHMCOLL_ERR_NO_MEMORY);
    }
    if (band->verdict == OURS) return SHMCOLL_OK;
    if (band->verdict == THEIRS) { /* logged with the verdict */
        call->quiet = 1;
        return shmcoll_mpi_call_reject(call, "calibrated: the MPI library's own is faster here");
    }
    if (band->calls == 0) { /* given tuning (the same on every rank) replaces calibration */
        const shmcoll_tune_t *tune = shmcoll_tune_current();
        if (tune->file || tune->nrules) {
            band->verdict = OURS;
            return SHMCOLL_OK;
        }
    }
    const uint32_t i = band->calls++;
    /* Not settled: the band is still measured. */
    *turn = (shmcoll_mpi_calib_turn_t){
        .band = band, .way = (int)(i / BLOCK) & 1, .timed = i >= 2 * BLOCK, .bytes = bytes};
    /* A line per turn would be timed with it (a log line through the launcher costs tens of
     * microseconds). */
    call->quiet = 1;
    turn->start = now();
    return turn->way ? shmcoll_mpi_call_reject(call, "calibrating: the MPI library's turn")
                     : SHMCOLL_OK;
}

void shmcoll_mpi_calibrate_end(shmcoll_mpi_call_t *call, shmcoll_mpi_calib_turn_t *turn) {
    calib_band_t *band = turn->band;
    if (!band) return;
    if (turn->timed) {
        band->block += now() - turn->start;
        double *best = &band->best[turn->way];
        if (band->calls % BLOCK == 0) { /* the block's last call */
            if (*best == 0 || band->block < *best) *best = band->block;
            band->block = 0;
        }
    }
    if (band->calls < calls_to_verdict()) return;
    double slowest[2]; /* over the ranks, of each rank's fastest block */
    band->verdict = OURS;
    const int rc = PMPI_Allreduce(band->best, slowest, 2, MPI_DOUBLE, MPI_MAX, call->comm);
    if (rc != MPI_SUCCESS) {
        /* This rank cannot know the others' verdict: its group fails for good, so that no rank
         * goes on with a way the others did not take (a member that waits for this one in
         * shared memory sees the failure, the caller gets the error). */
        snprintf(call->group->team->error, sizeof call->group->team->error,
                 "rank %d: calibration's agreement failed in the MPI library", call->state->rank);
        shmcoll_team_fail(call->group->team, SHMCOLL_ERR_SYSTEM);
        PMPI_Comm_call_errhandler(call->comm, rc);
        return;
    }
    if (slowest[1] < MARGIN * slowest[0]) band->verdict = THEIRS;
    if (call->state->rank == 0)
        shmcoll_log_verbose(
            "%s of %zu bytes: calibrated: shmcoll %.2f us, the MPI library %.2f us: "
            "%s from now on, up to the next power of two",
            call->function, turn->bytes, 1e6 * slowest[0] / BLOCK, 1e6 * slowest[1] / BLOCK,
            band->verdict == THEIRS ? "the MPI library's" : "shmcoll's");
}
