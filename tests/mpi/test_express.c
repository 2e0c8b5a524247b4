/* The express path of runs ahead (src/mpi/express.h): each blocking entry point keeps, per thread,
 * the arguments of its last call granted a run ahead, and later calls with those arguments take
 * the run's next call straight to the MPI library while the run is the one recorded. A record
 * must end with its run: where another record (another thread's, or the large-count twin's) began
 * a new run of the same communicator's collective for other arguments, a call that took that run
 * would count its calls in the wrong size band, and every rank must count every call of a band
 * alike, or the ranks part at the band's next measurement: a hang, or a wrong result.
 *
 * Run with SHMCOLL_CALIBRATE_MARGIN=-100000 (every verdict the MPI library's, so calls run ahead)
 * and SHMCOLL_CALIBRATE=4 (a measurement every few hundred calls). Every rank makes the same
 * gathers: bursts of BURST calls of one double, then of eight (two size bands), again and again.
 * Rank 0 makes them all from one thread through MPI_Gather; rank 1 makes the small ones from its
 * main thread and the large ones from a second thread (MPI_THREAD_MULTIPLE, the two taking turns),
 * and with MPI-4 through MPI_Gather_c on its main thread in the second half: two records of one
 * collective, each recorded for its own band. Every result is checked, and every rank must have
 * taken the same way on every call (shmcoll's ways move bytes on every rank, the MPI library's
 * none: this rank's DAV). */
#include "mpi_check.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define CALLS 3200
#define BURST 40

typedef int (*dav_fn)(MPI_Comm, unsigned long long *);

static dav_fn dav;
static char *took; /* per call: this rank's DAV grew (shmcoll's way) */
static double recv_buf[8 * 64];
static int large_count; /* the second half of rank 1's small calls use MPI_Gather_c */

/* Burst b's calls: small (one double) for even b, large (eight) for odd b. */
static int burst_count(int b) {
    return b % 2 ? 8 : 1;
}

static void gather_call(int call, int c_form) {
    const int n = burst_count(call / BURST), p = check_size;
    double send[8];
    for (int i = 0; i < n; i++) send[i] = check_rank * 1000.0 + call + i;
    unsigned long long before = 0, after = 0;
    dav(MPI_COMM_WORLD, &before);
#if MPI_VERSION >= 4
    if (c_form)
        MPI_Gather_c(send, n, MPI_DOUBLE, recv_buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    else
#endif
        MPI_Gather(send, n, MPI_DOUBLE, recv_buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    (void)c_form;
    dav(MPI_COMM_WORLD, &after);
    took[call] = after > before;
    for (int j = 0; check_rank == 0 && j < p; j++)
        for (int i = 0; i < n; i++)
            if (!CHECK(recv_buf[j * n + i] == j * 1000.0 + call + i, "gather call %d block %d",
                       call, j))
                return;
}

/* Rank 1's two threads take turns by burst: the main thread the small bursts, the second the
 * large ones. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_changed = PTHREAD_COND_INITIALIZER;
static int burst_now; /* the burst whose turn it is */

static void run_bursts(int parity) {
    for (int b = parity; b < CALLS / BURST; b += 2) {
        pthread_mutex_lock(&lock);
        while (burst_now != b) pthread_cond_wait(&turn_changed, &lock);
        pthread_mutex_unlock(&lock);
        for (int call = b * BURST; call < (b + 1) * BURST; call++)
            gather_call(call, parity == 0 && large_count && call >= CALLS / 2);
        pthread_mutex_lock(&lock);
        burst_now = b + 1;
        pthread_cond_broadcast(&turn_changed);
        pthread_mutex_unlock(&lock);
    }
}

static void *large_bursts(void *unused) {
    run_bursts(1);
    return NULL;
}

int main(int argc, char **argv) {
    const int provided = check_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
    dav = (dav_fn)dlsym(RTLD_DEFAULT, "shmcoll_stats_dav");
    if (!CHECK(dav != NULL, "shmcoll_stats_dav is not exported")) return check_finish(argv[0]);
    const int p = check_size;
    took = calloc(CALLS, 1);
    char *all = calloc((size_t)CALLS * p, 1);
    if (!CHECK(p <= 64 && took && all, "no memory or too many ranks")) return check_finish(argv[0]);
#if MPI_VERSION >= 4
    large_count = check_rank == 1;
#endif
    if (check_rank == 1 && provided == MPI_THREAD_MULTIPLE) {
        pthread_t second;
        if (!CHECK(pthread_create(&second, NULL, large_bursts, NULL) == 0, "pthread_create"))
            return check_finish(argv[0]);
        run_bursts(0);
        pthread_join(second, NULL);
    } else {
        for (int call = 0; call < CALLS; call++)
            gather_call(call, large_count && call >= CALLS / 2 && burst_count(call / BURST) == 1);
    }
    if (check_rank == 0)
        printf(
            "thread level %s; rank 1's small calls through MPI_Gather_c in the second half: %s\n",
            provided == MPI_THREAD_MULTIPLE ? "multiple" : "below multiple",
            MPI_VERSION >= 4 ? "yes" : "no (MPI-3)");
    MPI_Allgather(took, CALLS, MPI_CHAR, all, CALLS, MPI_CHAR, MPI_COMM_WORLD);
    int theirs = 0;
    for (int i = 0; i < CALLS; i++) {
        theirs += !took[i];
        for (int r = 0; r < p; r++)
            if (!CHECK(all[(size_t)r * CALLS + i] == took[i], "call %d: rank %d took another way",
                       i, r))
                i = CALLS;
    }
    CHECK(theirs > CALLS / 2, "%d of %d calls on the MPI library's way", theirs, CALLS);
    if (check_rank == 0) printf("%d of %d calls on the MPI library's way\n", theirs, CALLS);
    free(took);
    free(all);
    return check_finish(argv[0]);
}
