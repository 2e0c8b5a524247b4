/* Process-wide setup of the MPI layer.
 *
 * Thread policy: shmcoll serves calls under every MPI thread level (progress.h says what is
 * locked under MPI_THREAD_MULTIPLE). The one-time setup runs under pthread_once, from
 * MPI_Init/MPI_Init_thread or lazily from the first wrapper call (in case the library was
 * interposed after MPI_Init: then the job's settings are not compared, agree.h). Statistics
 * counters are C11 atomics updated with relaxed ordering (they are only read at MPI_Finalize).
 * The state of a communicator is only touched inside collectives on that communicator, which MPI
 * forbids to run concurrently, so it needs no lock. */
#ifndef SHMCOLL_MPI_INIT_H
#define SHMCOLL_MPI_INIT_H

/* Runs the one-time setup if MPI is initialised. Returns 1 when the layer is ready, 0 when MPI is
 * not (yet, or no longer) initialised: the caller then passes the call to the MPI library. */
int shmcoll_mpi_init_ensure(void);

/* Right after the MPI library's MPI_Init or MPI_Init_thread (C or Fortran; once): the job's
 * settings compared (agree.h), then the one-time setup unless shmcoll is off. */
void shmcoll_mpi_init_done(void);

/* `hook` runs first in MPI_Finalize, while MPI still works (a layer that holds MPI objects:
 * the requests of non-blocking and persistent collectives). At most four. */
void shmcoll_mpi_init_at_finalize(void (*hook)(void));

#endif
