/* The progress thread. See progress.h.
 *
 * It sleeps while nothing is in flight (polling a counter every 50 us: a wake-up per posted
 * operation would cost the application a system call per MPI_Iallreduce) and otherwise makes a
 * pass over the operations in flight, then yields the core, so an application thread that shares
 * the core loses as little as the scheduler allows. */
#include "mpi/progress.h"

#include "base/config.h"
#include "base/log.h"

#include <sched.h>
#include <sys/prctl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int shmcoll_mpi_progress_thread_on;
pthread_mutex_t shmcoll_mpi_progress_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_t thread;
static int (*thread_busy)(void);
static void (*thread_pass)(void);
static atomic_int stopping;
static __thread int on_thread;

int shmcoll_mpi_progress_on_thread(void) {
    return on_thread;
}

static void *progress_main(void *arg) {
    (void)arg;
    on_thread = 1;
    const struct timespec idle = {0, 50000}, busy_pause = {0, 20000};
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); /* sleeps as short as asked */
    while (!atomic_load_explicit(&stopping, memory_order_relaxed)) {
        if (!thread_busy()) {
            nanosleep(&idle, NULL);
            continue;
        }
        /* The application's thread inside MPI drives the operations itself: stay out of its
         * way (a wake-up on its core would preempt it) until it leaves. */
        if (pthread_mutex_trylock(&shmcoll_mpi_progress_lock) != 0) {
            nanosleep(&idle, NULL);
            continue;
        }
        thread_pass();
        pthread_mutex_unlock(&shmcoll_mpi_progress_lock);
        nanosleep(&busy_pause, NULL);
    }
    return NULL;
}

int shmcoll_mpi_progress_start(int (*busy)(void), void (*pass)(void)) {
    if (!shmcoll_config()->progress_thread || shmcoll_mpi_progress_thread_on) return 0;
    thread_busy = busy;
    thread_pass = pass;
    atomic_store(&stopping, 0);
    /* On before the thread exists: from now on every entry point takes the lock, and the
     * caller holds it already. */
    pthread_mutex_lock(&shmcoll_mpi_progress_lock);
    shmcoll_mpi_progress_thread_on = 1;
    if (pthread_create(&thread, NULL, progress_main, NULL) != 0) {
        shmcoll_mpi_progress_thread_on = 0;
        pthread_mutex_unlock(&shmcoll_mpi_progress_lock);
        shmcoll_log_warn("cannot start the progress thread; operations move inside MPI calls");
        return 0;
    }
    return 1;
}

void shmcoll_mpi_progress_stop(void) {
    if (!shmcoll_mpi_progress_thread_on) return;
    atomic_store(&stopping, 1);
    pthread_join(thread, NULL);
    shmcoll_mpi_progress_thread_on = 0;
}
