/* Non-blocking, persistent and blocking collectives from several threads at once
 * (MPI_THREAD_MULTIPLE), each thread on a communicator of its own.
 *
 * MPI forbids concurrent collectives on one communicator only; on different communicators threads
 * may run them in any interleaving, and ranks may interleave them differently. shmcoll must
 * neither serialize a whole blocking operation behind one process-wide lock (a thread waiting in
 * a collective whose peer thread on another rank cannot enter until a different collective
 * completes there hangs the job), nor let request lists be used unprotected. Each worker thread
 * loops over:
 *   - MPI_Iallreduce + MPI_Wait,
 *   - MPI_Ibcast + a loop of MPI_Test,
 *   - MPI_Start + MPI_Wait of a persistent allreduce (initialized by the thread, concurrently
 *     with the others' initializations),
 *   - blocking MPI_Allreduce and MPI_Bcast,
 * with delays that put the threads in a different order on every rank in every round. Besides, a
 * pair of threads shares a communicator: one starts operations (non-blocking and persistent),
 * the other completes them (MPI allows a request to be completed by any thread). Every result is
 * checked. The communicators are duplicated in the same order on every rank before the threads
 * start. Run with the progress thread off and on (SHMCOLL_PROGRESS_THREAD). */
#include "mpi_check.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Open MPI 4 has the persistent collectives as an extension, named MPIX_*_init. */
#if MPI_VERSION < 4 && defined(OPEN_MPI)
#include <mpi-ext.h>
#define MPI_Allreduce_init MPIX_Allreduce_init
#endif

#define WORKERS 3
#define ROUNDS  20
#define HANDOFF 20 /* operations started by one thread and completed by another */
#define N       64

static int p, me;

static int val(int rank, int i, int s) {
    return (int)(check_hash(rank, (size_t)i, s) % 100000);
}

/* A delay that orders the threads differently on each rank and in each round. */
static void stagger(int id, int round) {
    usleep((unsigned)(((id + round + me) % WORKERS) * 300));
}

typedef struct worker {
    MPI_Comm comm;
    int id;
} worker_t;

static void check_sum(const int *out, int s, const char *what, int id, int round) {
    for (int i = 0; i < N; i++) {
        int want = 0;
        for (int r = 0; r < p; r++) want += val(r, i, s);
        if (!CHECK(out[i] == want, "thread %d round %d %s: [%d] = %d, expected %d", id, round, what,
                   i, out[i], want))
            return;
    }
}

static void check_bcast(const int *buf, int root, int s, const char *what, int id, int round) {
    for (int i = 0; i < N; i++)
        if (!CHECK(buf[i] == val(root, i, s), "thread %d round %d %s from %d: [%d] = %d", id, round,
                   what, root, i, buf[i]))
            return;
}

static void *work(void *arg) {
    const worker_t *w = arg;
    int in[N], out[N], pin[N] = {0}, pout[N];
    MPI_Request persistent;
    MPI_Allreduce_init(pin, pout, N, MPI_INT, MPI_SUM, w->comm, MPI_INFO_NULL, &persistent);
    for (int round = 0; round < ROUNDS; round++) {
        const int s = 1000 * w->id + round, root = (round + w->id) % p;
        int flag = 0;
        MPI_Request req;
        stagger(w->id, round);
        for (int i = 0; i < N; i++) in[i] = val(me, i, s), out[i] = -1;
        switch ((round + w->id) % 5) { /* the same kind on every rank */
        case 0:
            MPI_Iallreduce(in, out, N, MPI_INT, MPI_SUM, w->comm, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            check_sum(out, s, "iallreduce", w->id, round);
            break;
        case 1:
            if (me == root) memcpy(out, in, sizeof in);
            MPI_Ibcast(out, N, MPI_INT, root, w->comm, &req);
            while (!flag) MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            check_bcast(out, root, s, "ibcast", w->id, round);
            break;
        case 2:
            memcpy(pin, in, sizeof in);
            MPI_Start(&persistent);
            MPI_Wait(&persistent, MPI_STATUS_IGNORE);
            check_sum(pout, s, "persistent allreduce", w->id, round);
            break;
        case 3:
            MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, w->comm);
            check_sum(out, s, "allreduce", w->id, round);
            break;
        default:
            if (me == root) memcpy(out, in, sizeof in);
            MPI_Bcast(out, N, MPI_INT, root, w->comm);
            check_bcast(out, root, s, "bcast", w->id, round);
        }
    }
    MPI_Request_free(&persistent);
    return NULL;
}

/* The hand-off: the starter posts one operation at a time into `slot`, the finisher completes
 * it and checks its result, then lets the starter post the next. */
static struct handoff {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    MPI_Comm comm;
    MPI_Request slot, persistent;
    int posted, round; /* posted: the slot holds an operation the finisher has not completed */
    int in[N], out[N], pin[N], pout[N];
} h = {.lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER};

static void *starter(void *arg) {
    (void)arg;
    for (int round = 0; round < HANDOFF; round++) {
        pthread_mutex_lock(&h.lock);
        while (h.posted) pthread_cond_wait(&h.changed, &h.lock);
        const int s = 5000 + round;
        if (round % 2 == 0) {
            for (int i = 0; i < N; i++) h.in[i] = val(me, i, s), h.out[i] = -1;
            MPI_Iallreduce(h.in, h.out, N, MPI_INT, MPI_SUM, h.comm, &h.slot);
        } else {
            for (int i = 0; i < N; i++) h.pin[i] = val(me, i, s), h.pout[i] = -1;
            MPI_Start(&h.persistent);
            h.slot = h.persistent;
        }
        h.round = round, h.posted = 1;
        pthread_cond_broadcast(&h.changed);
        pthread_mutex_unlock(&h.lock);
    }
    return NULL;
}

static void *finisher(void *arg) {
    (void)arg;
    for (int done = 0; done < HANDOFF; done++) {
        pthread_mutex_lock(&h.lock);
        while (!h.posted) pthread_cond_wait(&h.changed, &h.lock);
        MPI_Request req = h.slot;
        const int round = h.round;
        pthread_mutex_unlock(&h.lock);
        /* completed outside the lock: the starter is blocked on `posted` meanwhile */
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (round % 2 == 0) {
            CHECK(req == MPI_REQUEST_NULL, "hand-off round %d: request not freed", round);
            check_sum(h.out, 5000 + round, "hand-off iallreduce", -1, round);
        } else {
            CHECK(req == h.persistent, "hand-off round %d: persistent request changed", round);
            check_sum(h.pout, 5000 + round, "hand-off persistent", -1, round);
        }
        pthread_mutex_lock(&h.lock);
        h.posted = 0;
        pthread_cond_broadcast(&h.changed);
        pthread_mutex_unlock(&h.lock);
    }
    return NULL;
}

int main(int argc, char **argv) {
    int provided = check_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
    p = check_size, me = check_rank;
    if (provided < MPI_THREAD_MULTIPLE) {
        /* Nothing of shmcoll's is tested then: say why, and pass. */
        if (me == 0)
            printf("skipped: the MPI library provides thread level %d, not MPI_THREAD_MULTIPLE\n",
                   provided);
        return check_finish("test_threads_nb");
    }
    worker_t workers[WORKERS];
    pthread_t threads[WORKERS + 2];
    for (int t = 0; t < WORKERS; t++) {
        workers[t].id = t;
        MPI_Comm_dup(MPI_COMM_WORLD, &workers[t].comm);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &h.comm);
    MPI_Allreduce_init(h.pin, h.pout, N, MPI_INT, MPI_SUM, h.comm, MPI_INFO_NULL, &h.persistent);
    for (int t = 0; t < WORKERS; t++) pthread_create(&threads[t], NULL, work, &workers[t]);
    pthread_create(&threads[WORKERS], NULL, starter, NULL);
    pthread_create(&threads[WORKERS + 1], NULL, finisher, NULL);
    for (int t = 0; t < WORKERS + 2; t++) pthread_join(threads[t], NULL);
    MPI_Request_free(&h.persistent);
    for (int t = 0; t < WORKERS; t++) MPI_Comm_free(&workers[t].comm);
    MPI_Comm_free(&h.comm);
    return check_finish("test_threads_nb");
}
