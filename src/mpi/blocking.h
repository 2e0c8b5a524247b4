/* The blocking form of a collective: begin, calibration's turn (calibrate.h), prepare, run,
 * finish and end, or the MPI library's collective, in one call (call.h). */
#ifndef SHMCOLL_MPI_BLOCKING_H
#define SHMCOLL_MPI_BLOCKING_H

#include "mpi/call.h"

/* The whole sequence for a blocking collective with MPI arguments `margs`; returns the MPI code.
 */
int shmcoll_mpi_coll_run(const shmcoll_mpi_coll_desc_t *desc, const void *margs, MPI_Comm comm,
                         int large);

#endif
