/* The loop check's time per call (src/mpi/calibrate.c, check_begin): from the starts of a
 * stretch's calls in a row, what a call costs in a loop, the application's pauses left out; and the
 * median it takes, which the barrier's release order takes too (calibrate.c, exits_lead). */
#ifndef SHMCOLL_SELECT_LOOP_TIME_H
#define SHMCOLL_SELECT_LOOP_TIME_H

#include <stdint.h>

/* Sets stamp i's bit in `breaks`: the period that ends at stamp i holds an unstamped call. */
static inline void shmcoll_loop_break(uint64_t *breaks, uint32_t i) {
    breaks[i / 64] |= (uint64_t)1 << (i % 64);
}

/* The median of `n` > 0 values (the lower of the middle two where n is even); sorts them. */
double shmcoll_loop_median(double *values, uint32_t n);

/* The mean of the periods from one stamped call's start to the next's (`stamps`, `n` of them, in
 * order), but
 *  - those that end at a stamp below `warm`: a loop of the MPI library's calls reaches its pace
 *    only after some calls, when its eager sends have run ahead of their receivers;
 *  - those that end at a stamp i whose bit in `breaks` (bit i % 64 of word i / 64) is set: an
 *    unstamped call lies in them (one with other arguments, or on another path);
 *  - those more than `outlier` times the median of the others: a period the application's own work
 *    between its loops fills, or the machine's (a preempted rank), is not the call's; the MPI
 *    library's eager protocols stall now and then for a few times a call's time, which is the
 *    call's and stays;
 *  - and the `recovery` periods after either, in which the ranks come back from the pause each at
 *    its own time.
 * Sets `*counted` to the number of periods the mean is of; returns 0 where none is left. */
double shmcoll_loop_time(const double *stamps, const uint64_t *breaks, uint32_t n, uint32_t warm,
                         double outlier, uint32_t recovery, uint32_t *counted);

#endif
