/* Collectives from several threads of one process, each thread on a team of its own: the picture
 * of MPI_THREAD_MULTIPLE with one communicator per thread.
 *
 * Every process of a run starts THREADS threads; thread t of every process joins team t,
 * bootstrapped through the harness's shared memory, while the main thread goes on using the
 * harness's own team. All the teams are created, used and destroyed at the same time, so the
 * process-wide state (configuration, topology, kernel dispatch, counters, selection tables) is
 * set up and read from several threads at once. Each round runs allreduces of every size class
 * (inline, flat slot, split pipeline beyond the chunk), a bcast from a rotating root, an
 * allgather, an alltoall, a reduce_scatter_block and a barrier, all checked against closed forms.
 *
 * Under ThreadSanitizer (the tsan preset) this is what checks the engine's thread safety: TSan
 * sees the threads of each process (not the other processes behind the shared segments).
 * Elsewhere it checks that concurrent teams in one process do not disturb each other. Team sizes
 * may be given on the command line. */
#include "select/team_coll.h"
#include "team_harness.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define THREADS 3
#define MAX_P   8
#define SLOT    16384 /* bytes of one member's part of a bootstrap exchange */

/* The bootstrap of one thread team in the harness's shared memory. Exchange k uses parity k & 1;
 * a member posts k only after it has read exchange k - 1, so waiting for every member to post
 * k - 1 before writing parity k & 1 means nobody still reads exchange k - 2 there. */
typedef struct boot_area {
    _Alignas(64) _Atomic uint64_t posted[MAX_P];
    unsigned char data[2][MAX_P][SLOT];
} boot_area_t;

typedef struct thread_ctx {
    int index; /* team index = thread index */
    int rank, size;
    uint64_t exchanges;
    boot_area_t *area;
    pthread_t thread;
    int failed;
} thread_ctx_t;

static int wait_posted(boot_area_t *a, int size, uint64_t k) {
    const double deadline = team_harness_now() + 120;
    for (int r = 0; r < size; r++) {
        for (unsigned i = 0; atomic_load_explicit(&a->posted[r], memory_order_acquire) < k; i++) {
            if ((i & 255) == 0 && team_harness_now() > deadline) return -1;
            sched_yield();
        }
    }
    return 0;
}

static int thread_allgather(void *arg, const void *in, void *out, size_t bytes) {
    thread_ctx_t *t = arg;
    if (bytes > SLOT) {
        team_harness_log("thread %d: bootstrap exchange of %zu bytes, more than %d", t->index,
                         bytes, SLOT);
        return -1;
    }
    const uint64_t k = ++t->exchanges;
    if (wait_posted(t->area, t->size, k - 1) != 0) return -1;
    memcpy(t->area->data[k & 1][t->rank], in, bytes);
    atomic_store_explicit(&t->area->posted[t->rank], k, memory_order_release);
    if (wait_posted(t->area, t->size, k) != 0) return -1;
    for (int r = 0; r < t->size; r++)
        memcpy((unsigned char *)out + (size_t)r * bytes, t->area->data[k & 1][r], bytes);
    return 0;
}

static shmcoll_reduce_op_t int64_sum(void) {
    return (shmcoll_reduce_op_t){.kernel = shmcoll_kernel_reduce(SHMCOLL_DT_INT64, SHMCOLL_OP_SUM),
                                 .size = 8,
                                 .extent = 8,
                                 .commutative = 1,
                                 .name = "MPI_SUM/int64"};
}

/* Inputs: functions of (team, rank, round, index) with closed-form sums. */
static int64_t input(int team, int r, long k, size_t j) {
    return (int64_t)(r + 1) * (k + 1 + team) + (int64_t)j;
}
static int64_t sum(int team, int p, long k, size_t j) {
    return (int64_t)p * (p + 1) / 2 * (k + 1 + team) + (int64_t)p * (int64_t)j;
}
static unsigned char byte_of(int team, int from, int to, long k, size_t i) {
    return (unsigned char)(i * 131 + (size_t)from * 17 + (size_t)to * 5 + (size_t)k + team * 29);
}

static int status_ok(shmcoll_team_t *team, int index, shmcoll_status_t s, const char *what,
                     long k) {
    if (s == SHMCOLL_OK) return 1;
    team_harness_log("team %d: %s in round %ld returned %s (%s)", index, what, k,
                     shmcoll_status_string(s), team->error);
    return 0;
}

/* The rounds every team runs; `index` tells the teams (and their data) apart. */
static int rounds_on(shmcoll_team_t *team, int index) {
    const int p = team->size, me = team->rank;
    const shmcoll_reduce_op_t op = int64_sum();
    const size_t counts[] = {1, 5, 900, 70000}; /* inline, flat, split, beyond a 256k chunk */
    const size_t max_count = 70000, bcast_bytes = 300000, gather_bytes = 1000, a2a_bytes = 512;
    const size_t rs_count = 500;
    const long rounds = 100 / team_harness_scale_down() + 2;
    int64_t *send = malloc(max_count * sizeof *send), *recv = malloc(max_count * sizeof *recv);
    unsigned char *bbuf = malloc(bcast_bytes), *gsend = malloc(gather_bytes);
    unsigned char *grecv = malloc(gather_bytes * (size_t)p);
    unsigned char *asend = malloc(a2a_bytes * (size_t)p), *arecv = malloc(a2a_bytes * (size_t)p);
    int64_t *rs_send = malloc(rs_count * (size_t)p * sizeof *rs_send);
    int ok = send && recv && bbuf && gsend && grecv && asend && arecv && rs_send;

    for (long k = 0; k < rounds && ok; k++) {
        const size_t n = counts[k % 4];
        for (size_t j = 0; j < n; j++) send[j] = input(index, me, k, j);
        ok = status_ok(team, index, shmcoll_allreduce(team, send, recv, n, &op), "allreduce", k);
        for (size_t j = 0; ok && j < n; j++)
            if (recv[j] != sum(index, p, k, j)) {
                team_harness_log("team %d: allreduce round %ld count %zu: element %zu is %lld, "
                                 "expected %lld",
                                 index, k, n, j, (long long)recv[j],
                                 (long long)sum(index, p, k, j));
                ok = 0;
            }

        const int root = (int)((k + index) % p);
        for (size_t i = 0; ok && i < bcast_bytes; i++)
            bbuf[i] = me == root ? byte_of(index, root, 0, k, i) : 0;
        ok = ok && status_ok(team, index, shmcoll_bcast(team, bbuf, bcast_bytes, root), "bcast", k);
        for (size_t i = 0; ok && i < bcast_bytes; i++)
            if (bbuf[i] != byte_of(index, root, 0, k, i)) {
                team_harness_log("team %d: bcast round %ld from %d: byte %zu wrong", index, k, root,
                                 i);
                ok = 0;
            }

        for (size_t i = 0; ok && i < gather_bytes; i++) gsend[i] = byte_of(index, me, 0, k, i);
        ok = ok && status_ok(team, index, shmcoll_allgather(team, gsend, grecv, gather_bytes),
                             "allgather", k);
        for (int r = 0; ok && r < p; r++)
            for (size_t i = 0; ok && i < gather_bytes; i++)
                if (grecv[(size_t)r * gather_bytes + i] != byte_of(index, r, 0, k, i)) {
                    team_harness_log("team %d: allgather round %ld: block %d byte %zu wrong", index,
                                     k, r, i);
                    ok = 0;
                }

        for (int to = 0; ok && to < p; to++)
            for (size_t i = 0; i < a2a_bytes; i++)
                asend[(size_t)to * a2a_bytes + i] = byte_of(index, me, to, k, i);
        ok = ok &&
             status_ok(team, index, shmcoll_alltoall(team, asend, arecv, a2a_bytes), "alltoall", k);
        for (int from = 0; ok && from < p; from++)
            for (size_t i = 0; ok && i < a2a_bytes; i++)
                if (arecv[(size_t)from * a2a_bytes + i] != byte_of(index, from, me, k, i)) {
                    team_harness_log("team %d: alltoall round %ld: block from %d byte %zu wrong",
                                     index, k, from, i);
                    ok = 0;
                }

        for (size_t j = 0; ok && j < rs_count * (size_t)p; j++) rs_send[j] = input(index, me, k, j);
        ok = ok && status_ok(team, index,
                             shmcoll_reduce_scatter_block(team, rs_send, recv, rs_count, &op),
                             "reduce_scatter_block", k);
        for (size_t j = 0; ok && j < rs_count; j++)
            if (recv[j] != sum(index, p, k, (size_t)me * rs_count + j)) {
                team_harness_log("team %d: reduce_scatter_block round %ld: element %zu wrong",
                                 index, k, j);
                ok = 0;
            }

        ok = ok && status_ok(team, index, shmcoll_barrier(team), "barrier", k);
    }
    free(send), free(recv), free(bbuf), free(gsend), free(grecv), free(asend), free(arecv);
    free(rs_send);
    return ok ? 0 : 1;
}

static void *thread_main(void *arg) {
    thread_ctx_t *t = arg;
    shmcoll_bootstrap_t boot = {
        .rank = t->rank, .size = t->size, .allgather = thread_allgather, .ctx = t};
    shmcoll_team_t *team = NULL;
    shmcoll_status_t s = shmcoll_team_create(&boot, &team);
    if (s != SHMCOLL_OK) {
        team_harness_log("thread team %d: creation failed: %s", t->index, shmcoll_status_string(s));
        t->failed = 1;
        return NULL;
    }
    t->failed = rounds_on(team, t->index);
    shmcoll_team_destroy(team);
    return NULL;
}

static int body(shmcoll_team_t *team, void *arg) {
    const int p = team->size;
    if (p > MAX_P) {
        team_harness_log("at most %d members", MAX_P);
        return 1;
    }
    boot_area_t *areas = team_harness_shared();
    thread_ctx_t threads[THREADS];
    int failed = 0, started = 0;
    for (int t = 0; t < THREADS; t++) {
        threads[t] =
            (thread_ctx_t){.index = t + 1, .rank = team->rank, .size = p, .area = &areas[t]};
        if (pthread_create(&threads[t].thread, NULL, thread_main, &threads[t]) != 0) {
            team_harness_log("pthread_create failed");
            failed = 1;
            break;
        }
        started++;
    }
    /* The harness's team, from the main thread, while the thread teams run. */
    failed |= rounds_on(team, 0);
    for (int t = 0; t < started; t++) {
        pthread_join(threads[t].thread, NULL);
        failed |= threads[t].failed;
    }
    return failed;
}

static int solo_allgather(void *ctx, const void *in, void *out, size_t bytes) {
    memcpy(out, in, bytes);
    return 0;
}

static void *cold_main(void *arg) {
    thread_ctx_t *t = arg;
    shmcoll_bootstrap_t boot = {.rank = 0, .size = 1, .allgather = solo_allgather};
    shmcoll_team_t *team = NULL;
    shmcoll_status_t s = shmcoll_team_create(&boot, &team);
    if (s != SHMCOLL_OK) {
        team_harness_log("cold start %d: one-member team: %s", t->index, shmcoll_status_string(s));
        t->failed = 1;
        return NULL;
    }
    t->failed = rounds_on(team, t->index);
    shmcoll_team_destroy(team);
    return NULL;
}

/* Before anything else in this process, THREADS threads create one-member teams and use them at
 * once, so the once-per-process set-ups (configuration, kernel dispatch, topology, tuning rules)
 * meet on their first calls. */
static int cold_start(void) {
    char dir[4096];
    if (team_harness_dir_create(dir, sizeof dir) != 0) {
        team_harness_log("cold start: no segment directory");
        return 1;
    }
    /* Set for the cold start only: the harness makes its own directories in the default one. */
    const char *shm_dir = getenv("SHMCOLL_SHM_DIR"), *tune_dir = getenv("SHMCOLL_TUNE_DIR");
    char *saved_shm = shm_dir ? strdup(shm_dir) : NULL,
         *saved_tune = tune_dir ? strdup(tune_dir) : NULL;
    setenv("SHMCOLL_SHM_DIR", dir, 1);
    setenv("SHMCOLL_TUNE_DIR", dir, 1); /* no tuning file of the machine's */
    thread_ctx_t threads[THREADS];
    int failed = 0, started = 0;
    for (int t = 0; t < THREADS; t++) {
        threads[t] = (thread_ctx_t){.index = t + 1};
        if (pthread_create(&threads[t].thread, NULL, cold_main, &threads[t]) != 0) {
            failed = 1;
            break;
        }
        started++;
    }
    for (int t = 0; t < started; t++) {
        pthread_join(threads[t].thread, NULL);
        failed |= threads[t].failed;
    }
    failed |= team_harness_dir_leftovers(dir, NULL) != 0;
    rmdir(dir);
    saved_shm ? setenv("SHMCOLL_SHM_DIR", saved_shm, 1) : unsetenv("SHMCOLL_SHM_DIR");
    saved_tune ? setenv("SHMCOLL_TUNE_DIR", saved_tune, 1) : unsetenv("SHMCOLL_TUNE_DIR");
    free(saved_shm), free(saved_tune);
    printf("test_threads cold start, %d threads: %s\n", THREADS, failed ? "FAILED" : "ok");
    return failed;
}

int main(int argc, char **argv) {
    static const int sizes[] = {2, 3};
    const team_harness_spec_t spec = {
        .body = body, .timeout_s = 300.0, .shared_bytes = THREADS * sizeof(boot_area_t)};
    int failed = cold_start();
    return (team_harness_for_sizes_spec(argc, argv, sizes, 2, &spec) != 0) | failed;
}
