/* The optional progress thread (SHMCOLL_PROGRESS_THREAD=1) and the lock it shares with the MPI
 * layer's entry points.
 *
 * Without the thread, non-blocking and persistent collectives move while the application is
 * inside MPI (the request calls, any shmcoll collective): between calls they stand still. The
 * thread advances the node team tasks of the operations in flight during the application's
 * computation, so a later MPI_Wait finds them done. It never calls MPI: completing an operation
 * (unpacking, statistics, errors) stays with the application's thread, at its next request call.
 *
 * Tasks are not made to be driven by two threads at once, so while the thread is on, every entry
 * point of the MPI layer that drives tasks holds one lock (enter/leave), and the thread takes it
 * only to make one pass over the operations in flight, never across a wait. With the thread off
 * (the default) enter and leave cost a load and a branch. */
#ifndef SHMCOLL_MPI_PROGRESS_H
#define SHMCOLL_MPI_PROGRESS_H

#include <pthread.h>

extern int shmcoll_mpi_progress_thread_on;
extern pthread_mutex_t shmcoll_mpi_progress_lock;

/* Returns whether it took the lock (the thread may start inside the first call), for leave. */
static inline int shmcoll_mpi_progress_enter(void) {
    if (!shmcoll_mpi_progress_thread_on) return 0;
    pthread_mutex_lock(&shmcoll_mpi_progress_lock);
    return 1;
}

static inline void shmcoll_mpi_progress_leave(int locked) {
    if (locked) pthread_mutex_unlock(&shmcoll_mpi_progress_lock);
}

/* Starts the thread when SHMCOLL_PROGRESS_THREAD=1 (at the first non-blocking or persistent
 * collective): while `busy()`, it calls `pass()` under the lock, then yields. Returns 1 when it
 * started the thread, and the caller then holds the lock (it was inside an entry point that
 * found the thread off). */
int shmcoll_mpi_progress_start(int (*busy)(void), void (*pass)(void));

/* Stops it (MPI_Finalize; the caller does not hold the lock). */
void shmcoll_mpi_progress_stop(void);

/* Whether the caller is the progress thread (which must not call MPI). */
int shmcoll_mpi_progress_on_thread(void);

#endif
