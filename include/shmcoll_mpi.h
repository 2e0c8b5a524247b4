/* The part of libshmcoll's public API that speaks MPI (include after or instead of <mpi.h>). */
#ifndef SHMCOLL_MPI_H
#define SHMCOLL_MPI_H

#include "shmcoll.h"

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The data-access volume of this rank on `comm`: bytes loaded plus stored by shmcoll's copy and
 * reduce kernels in all collectives shmcoll served on `comm` so far (0 when shmcoll has not set
 * `comm` up or does not handle it). Local, no communication. MPI_SUCCESS, or MPI_ERR_ARG for a
 * NULL pointer. Benchmarks divide differences of it by time: the DAV bandwidth. */
SHMCOLL_API int shmcoll_stats_dav(MPI_Comm comm, unsigned long long *dav_bytes);

/* What this machine and MPI library are, as the tuning files record it (at most len bytes,
 * terminated): shmcoll-tune writes it into the file it measures, and the library uses the default
 * tuning file only where it matches. Call after MPI_Init. MPI_SUCCESS, or MPI_ERR_ARG. */
SHMCOLL_API int shmcoll_fingerprint(char *text, int len);

#ifdef __cplusplus
}
#endif

#endif
