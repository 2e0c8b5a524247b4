/* The build's identity (version.c). */
#ifndef SHMCOLL_MPI_VERSION_H
#define SHMCOLL_MPI_VERSION_H

/* "<release> (sources <digest of every source file>)": equal exactly where two processes loaded
 * builds of the same sources. */
const char *shmcoll_mpi_build_identity(void);

#endif
