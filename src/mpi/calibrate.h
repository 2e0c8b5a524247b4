/* Calibration: shmcoll's algorithm or the MPI library's own, measured on the machine at hand.
 *
 * Thresholds tuned on one machine do not hold on the next, and a tuning file exists only where
 * someone ran shmcoll-tune. So where no tuning is given (no SHMCOLL_TUNE, no tuning file in
 * force), the first blocking calls of each size band of each collective on a communicator take
 * turns: blocks of 4 calls through shmcoll, then 4 through the MPI library (PMPI_*), and so on;
 * the first block of each is a warm-up, then SHMCOLL_CALIBRATE calls of each are timed (in
 * whole blocks). After the last of them one PMPI_Allreduce (MAX) of every rank's fastest block of
 * each way gives every rank the same verdict, kept for the communicator's life: the MPI library's
 * own serves the band when it was faster by more than 2%, straight from the wrapper (before any
 * argument translation), and shmcoll's otherwise. The bands are those of the selector (powers of
 * two) of the size every rank knows alike (the descriptor's key, call.h), up to
 * SHMCOLL_CALIBRATE_MAX; the turns are counted per band, and every rank counts the same calls, so
 * all ranks take the same way on every call and meet in the same PMPI_Allreduce. The v-variants
 * whose sizes only some ranks know (gatherv, scatterv, alltoallv) and the non-blocking and
 * persistent forms are not calibrated.
 *
 * A way's time is its fastest block, the sum of the times of the block's calls: calls in a row
 * overlap (a rank leaves a call while a peer still finishes it), which a single call's time does
 * not show; and the fastest of the blocks rather than their mean, because an application's own
 * imbalance adds waiting to the blocks of both ways alike, which the minimum leaves out. */
#ifndef SHMCOLL_MPI_CALIBRATE_H
#define SHMCOLL_MPI_CALIBRATE_H

#include "mpi/call.h"

/* One call's turn, from shmcoll_mpi_calibrate_begin to shmcoll_mpi_calibrate_end. */
typedef struct shmcoll_mpi_calib_turn {
    struct shmcoll_mpi_calib_band *band; /* NULL: the call is not part of a calibration */
    int way;                             /* 0: shmcoll's, 1: the MPI library's */
    int timed;
    int settled;  /* the way is the band's for good (or calibration does not apply) */
    size_t bytes; /* the call's key, where calibration applies */
    double start;
} shmcoll_mpi_calib_turn_t;

/* Which way a blocking call on a handled communicator goes: OK for shmcoll's, NOT_SUPPORTED (with
 * call->reason) for the MPI library's, every rank alike. Calls that are part of a calibration
 * are timed from here to shmcoll_mpi_calibrate_end. */
shmcoll_status_t shmcoll_mpi_calibrate_begin(shmcoll_mpi_call_t *call,
                                             const shmcoll_mpi_coll_desc_t *desc, const void *margs,
                                             shmcoll_mpi_calib_turn_t *turn);

/* The call has returned: its time is recorded, and after the last timed call of a band the
 * verdict is agreed (a PMPI_Allreduce on the call's communicator, on every rank alike). */
void shmcoll_mpi_calibrate_end(shmcoll_mpi_call_t *call, shmcoll_mpi_calib_turn_t *turn);

#endif
