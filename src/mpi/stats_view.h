/* SHMCOLL_STATS=1, the user's view: a few lines at MPI_Finalize that say what shmcoll did for the
 * application. stats.h counts calls, bytes and algorithms per collective; this adds
 *   - the time this rank spent in blocking collectives, by collective and size band, and how much
 *     of it shmcoll served and how much the MPI library;
 *   - what the measured choices saved (calibrate.h): each call a measured verdict gave to one of
 *     shmcoll's ways counts the difference to the MPI library's measured time;
 *   - the calls left to the MPI library, by reason.
 * Times are summed over the ranks and shown per rank (divided by their number); calls and reasons
 * are counted once per operation, by the communicator's counting rank, as in stats.h. */
#ifndef SHMCOLL_MPI_STATS_VIEW_H
#define SHMCOLL_MPI_STATS_VIEW_H

#include "mpi/stats.h"

#include <stddef.h>

/* One blocking call of `coll` whose size band is that of `bytes` took `seconds` on this rank,
 * served by shmcoll (`handled`) or by the MPI library. */
void shmcoll_mpi_view_time(shmcoll_mpi_coll_t coll, size_t bytes, int handled, double seconds);

/* An operation left to the MPI library for `reason` (a string that lives as long as the
 * process; NULL: unknown). */
void shmcoll_mpi_view_fallback(const char *reason);

/* A measured verdict gave a band to shmcoll (`mpi` 0) or to the MPI library (1). */
void shmcoll_mpi_view_verdict(int mpi);

/* An operation served by the way a measured verdict chose, `seconds` faster than the MPI
 * library's measured time. */
void shmcoll_mpi_view_saved(double seconds);

/* Collective over MPI_COMM_WORLD: sums every rank's view and prints it at rank 0. */
void shmcoll_mpi_view_report(void);

#endif
