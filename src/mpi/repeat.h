/* A blocking call repeated with the same arguments skips their translation.
 *
 * Applications call the same collective with the same arguments again and again (the dot
 * products of an iterative solver, a time step's halo sizes), and for a small message the
 * translation of MPI's arguments into coll/'s (datatype layouts, blocks, the op's kernel: some
 * 500 instructions of a gather) costs more than the shared-memory part. So each communicator
 * keeps, per collective, the last prepared call and the MPI arguments it came from; a call whose
 * arguments are the same bytes takes the prepared call instead of preparing again.
 *
 * Only what cannot change under the same bytes is kept: every datatype and op of the call is
 * predefined (a derived type or user op may be freed and its handle reused for another, which
 * no wrapper of ours would see when freed from Fortran), no side needed packing (a temporary
 * buffer belongs to one call), and no per-block arrays (they live on the caller's stack). The
 * communicator's state holds the entries and frees them with itself. */
#ifndef SHMCOLL_MPI_REPEAT_H
#define SHMCOLL_MPI_REPEAT_H

#include "mpi/call.h"

/* Fills a cleared and begun call from its collective's last prepared call when `margs` are the
 * same bytes; 0 when the call must be prepared. */
int shmcoll_mpi_repeat_reuse(shmcoll_mpi_call_t *call, const shmcoll_mpi_coll_desc_t *desc,
                             const void *margs);

/* Keeps a call that prepare has just made (SHMCOLL_OK, before running) for the next calls with
 * the same `margs`, where it may be kept. */
void shmcoll_mpi_repeat_keep(const shmcoll_mpi_call_t *call, const shmcoll_mpi_coll_desc_t *desc,
                             const void *margs);

#endif
