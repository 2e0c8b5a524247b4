/* Calls from several threads under MPI_THREAD_MULTIPLE: each thread runs collectives on its own
 * duplicate of MPI_COMM_WORLD at the same time as the others (MPI only forbids concurrent
 * collectives on one communicator). Exercises the lazy per-communicator setup from concurrent
 * threads and the atomic statistics counters (the counts must come out exact). */
#include "mpi_check.h"

#include <pthread.h>
#include <stdio.h>

#define THREADS 3
#define ROUNDS  40

typedef struct {
    MPI_Comm comm;
    int id;
} worker_t;

static void *work(void *arg) {
    const worker_t *w = arg;
    for (int round = 0; round < ROUNDS; round++) {
        long mine = check_rank * 1000 + w->id * 100 + round, sum = 0;
        MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, w->comm);
        long want =
            1000L * check_size * (check_size - 1) / 2 + (long)check_size * (w->id * 100 + round);
        CHECK(sum == want, "thread %d round %d: allreduce %ld, expected %ld", w->id, round, sum,
              want);
        int root = round % check_size, value = check_rank == root ? round + w->id : -1;
        MPI_Bcast(&value, 1, MPI_INT, root, w->comm);
        CHECK(value == round + w->id, "thread %d round %d: bcast %d", w->id, round, value);
    }
    return NULL;
}

int main(int argc, char **argv) {
    int provided = check_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
    if (provided < MPI_THREAD_MULTIPLE) {
        /* Not a shmcoll failure, but this test then checks nothing: say so loudly. */
        CHECK(0, "the MPI library provides thread level %d, not MPI_THREAD_MULTIPLE", provided);
        return check_finish("test_threads");
    }
    worker_t workers[THREADS];
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++) {
        workers[t].id = t;
        MPI_Comm_dup(MPI_COMM_WORLD, &workers[t].comm);
    }
    for (int t = 0; t < THREADS; t++) pthread_create(&threads[t], NULL, work, &workers[t]);
    for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
    for (int t = 0; t < THREADS; t++) {
        for (int round = 0; round < ROUNDS; round++) {
            check_expect(CHECK_ALLREDUCE, workers[t].comm, 1, 1, MPI_LONG);
            check_expect(CHECK_BCAST, workers[t].comm, 1, 1, MPI_INT);
        }
        MPI_Comm_free(&workers[t].comm);
    }
    return check_finish("test_threads");
}
