/* The MPI layer's lock and the progress thread. See progress.h.
 *
 * The thread sleeps while no lane holds a non-blocking task (polling the engine's count every
 * 50 us: a wake-up per posted operation would cost the application a system call per
 * MPI_Iallreduce) and otherwise makes a pass over the lanes, then sleeps 20 us, so an application
 * thread that shares the core loses as little as the scheduler allows. It never calls MPI and
 * never waits for a peer: a lane another thread drives is skipped. */
#include "mpi/progress.h"

#include "base/config.h"
#include "base/log.h"
#include "core/task.h"

#include <mpi.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <time.h>

int shmcoll_mpi_multiple;
pthread_mutex_t shmcoll_mpi_requests_mutex = PTHREAD_MUTEX_INITIALIZER;

static pthread_mutex_t thread_mutex = PTHREAD_MUTEX_INITIALIZER; /* starting and stopping */
static pthread_t thread;
static int thread_on;
static atomic_int stopping;

void shmcoll_mpi_threads_init(int provided) {
    shmcoll_mpi_multiple = provided >= MPI_THREAD_MULTIPLE;
}

static void *progress_main(void *arg) {
    (void)arg;
    const struct timespec idle = {0, 50000}, busy_pause = {0, 20000};
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); /* sleeps as short as asked */
    while (!atomic_load_explicit(&stopping, memory_order_relaxed)) {
        shmcoll_engine_progress_quiet();
        nanosleep(shmcoll_engine_busy() ? &busy_pause : &idle, NULL);
    }
    return NULL;
}

void shmcoll_mpi_progress_start(void) {
    if (!shmcoll_config()->progress_thread) return;
    pthread_mutex_lock(&thread_mutex);
    if (!thread_on) {
        atomic_store(&stopping, 0);
        if (pthread_create(&thread, NULL, progress_main, NULL) == 0)
            thread_on = 1;
        else
            shmcoll_log_warn("cannot start the progress thread; operations move inside MPI "
                             "calls");
    }
    pthread_mutex_unlock(&thread_mutex);
}

void shmcoll_mpi_progress_stop(void) {
    pthread_mutex_lock(&thread_mutex);
    if (thread_on) {
        atomic_store(&stopping, 1);
        pthread_join(thread, NULL);
        thread_on = 0;
    }
    pthread_mutex_unlock(&thread_mutex);
}
