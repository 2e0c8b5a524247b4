/* Who moves shmcoll's operations in flight besides their owner, and what the MPI layer locks.
 *
 * The progress rule: no call MPI defines as local (MPI_I*, MPI_Start(all), MPI_Test*,
 * MPI_Request_get_status) waits for another rank, and an operation started on a rank moves while
 * that rank is blocked anywhere in MPI, as the MPI library's own non-blocking collectives do. The
 * node-team tasks of the operations in flight are advanced, without calling MPI, by:
 *   - every waiting member of a shmcoll collective (the engine, core/task.h);
 *   - the MPI library's own progress loop, into which the layer hooks itself at setup (Open MPI's
 *     opal_progress_register; for MPICH over UCX, ucp_worker_progress interposed): a rank blocked
 *     in MPI_Recv, MPI_Ssend, a native MPI_Wait or a collective the MPI library serves keeps
 *     moving them (library_progress.c);
 *   - optionally a thread of its own (SHMCOLL_PROGRESS_THREAD=1) during computation.
 * Each takes a lane's claim for a bounded pass and never holds it across a wait (core/task.c).
 *
 * Locks: under MPI_THREAD_MULTIPLE the requests' pool, hash and list of operations in flight
 * are guarded by one mutex, held only around those structures, never across a wait or an MPI
 * call that may wait; at the other thread levels the application makes one MPI call at a time
 * and the lock costs a load and a branch. Per-communicator state is touched only by calls on that
 * communicator, which MPI forbids to run concurrently. */
#ifndef SHMCOLL_MPI_PROGRESS_H
#define SHMCOLL_MPI_PROGRESS_H

#include <pthread.h>

/* MPI_THREAD_MULTIPLE was provided: application threads may be inside MPI at once. */
extern int shmcoll_mpi_multiple;
extern pthread_mutex_t shmcoll_mpi_requests_mutex;

static inline void shmcoll_mpi_requests_lock(void) {
    if (shmcoll_mpi_multiple) pthread_mutex_lock(&shmcoll_mpi_requests_mutex);
}

static inline void shmcoll_mpi_requests_unlock(void) {
    if (shmcoll_mpi_multiple) pthread_mutex_unlock(&shmcoll_mpi_requests_mutex);
}

/* 1: the MPI layer's trylock, under MPI_THREAD_MULTIPLE; always 1 otherwise. */
static inline int shmcoll_mpi_requests_trylock(void) {
    return !shmcoll_mpi_multiple || pthread_mutex_trylock(&shmcoll_mpi_requests_mutex) == 0;
}

/* Records the thread level the MPI library provided (part of the one-time setup). */
void shmcoll_mpi_threads_init(int provided);

/* Starts the progress thread when SHMCOLL_PROGRESS_THREAD=1 (at the first non-blocking or
 * persistent collective); it advances the node teams' lanes while any holds a task. */
void shmcoll_mpi_progress_start(void);

/* Stops it (MPI_Finalize). */
void shmcoll_mpi_progress_stop(void);

#endif
