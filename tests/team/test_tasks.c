/* Tasks in flight: several collectives of different kinds started on one team before any is
 * done, advanced from the test in an order of its own, on 1, 2 and 4 lanes.
 *
 * Per round, every member starts six tasks (allreduce, bcast of several chunks, allgather,
 * alltoall, gather with a rotating root, barrier) with buffers of their own, then advances them
 * round-robin with shmcoll_task_test, each member beginning its sweeps at a different task; the
 * last task of every other round is finished by shmcoll_task_wait after a few tests (two
 * drivers). Checked: every result; every task done exactly once; when a task is done, those
 * started before it on its lane are done too (MPI's order per communicator).
 * Then the engine: a member waiting in a blocking collective must advance the non-blocking tasks
 * it started before, or a peer that waits for one of those never reaches the blocking one. Even
 * members start a non-blocking allreduce, run a blocking bcast, then wait for the allreduce; odd
 * members start the allreduce, wait for it, then run the bcast. */
#include "select/team_coll.h"
#include "team_harness.h"

#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define NTASKS    6

typedef struct inflight {
    shmcoll_coll_args_t args;
    shmcoll_task_t task;
    size_t bytes; /* per block */
    unsigned char *send, *recv;
    int done_at; /* completion number, -1 while in flight */
} inflight_t;

static const shmcoll_reduce_op_t *int64_sum(void) {
    static shmcoll_reduce_op_t op;
    op = (shmcoll_reduce_op_t){.kernel = shmcoll_kernel_reduce(SHMCOLL_DT_INT64, SHMCOLL_OP_SUM),
                               .size = 8,
                               .extent = 8,
                               .commutative = 1,
                               .name = "MPI_SUM/int64"};
    return &op;
}

static unsigned char pattern(int rank, long round, int task, size_t i) {
    return (unsigned char)(rank * 29 + round * 7 + task * 131 + (long)i);
}

/* Task t of round r: its kind, arguments and buffers (send filled with this member's data). */
static int setup(inflight_t *f, int t, long r, int me, int p) {
    static const size_t sizes[] = {8, 200, 3000, 70000};
    const size_t bytes = sizes[(r + t) % NELEMS(sizes)] / (size_t)team_harness_scale_down() + 8;
    f->bytes = bytes;
    f->done_at = -1;
    f->send = malloc(bytes * (size_t)p + 8);
    f->recv = calloc(1, bytes * (size_t)p + 8);
    if (!f->send || !f->recv) return 1;
    for (size_t i = 0; i < bytes * (size_t)p; i++) f->send[i] = pattern(me, r, t, i);
    shmcoll_coll_args_t *a = &f->args;
    *a = (shmcoll_coll_args_t){.sendbuf = f->send, .recvbuf = f->recv, .root = (int)(r % p)};
    switch (t) {
    case 0:
        a->kind = SHMCOLL_KIND_ALLREDUCE;
        a->count = bytes / 8;
        a->op = int64_sum();
        for (size_t j = 0; j < a->count; j++) ((int64_t *)f->send)[j] = (int64_t)(me + 1) * (j + r);
        break;
    case 1:
        a->kind = SHMCOLL_KIND_BCAST;
        a->count = bytes * (size_t)p; /* several chunks when large */
        a->recvbuf = f->send;         /* the root's data goes everywhere */
        break;
    case 2:
        a->kind = SHMCOLL_KIND_ALLGATHER;
        a->count = bytes;
        break;
    case 3:
        a->kind = SHMCOLL_KIND_ALLTOALL;
        a->count = bytes;
        break;
    case 4:
        a->kind = SHMCOLL_KIND_GATHER;
        a->count = bytes;
        break;
    default:
        a->kind = SHMCOLL_KIND_BARRIER;
        break;
    }
    return 0;
}

static int check(const inflight_t *f, int t, long r, int me, int p) {
    const size_t b = f->bytes;
    const int root = f->args.root;
    switch (t) {
    case 0:
        for (size_t j = 0; j < f->args.count; j++) {
            const int64_t want = (int64_t)p * (p + 1) / 2 * (int64_t)(j + r);
            if (((const int64_t *)f->recv)[j] != want) return 1;
        }
        return 0;
    case 1:
        for (size_t i = 0; i < b * (size_t)p; i++)
            if (f->send[i] != pattern(root, r, t, i)) return 1;
        return 0;
    case 2: /* block q is member q's first block */
    case 4:
        if (t == 4 && me != root) return 0;
        for (int q = 0; q < p; q++)
            for (size_t i = 0; i < b; i++)
                if (f->recv[(size_t)q * b + i] != pattern(q, r, t, i)) {
                    team_harness_log("block %d byte %zu: %u, want %u", q, i,
                                     f->recv[(size_t)q * b + i], pattern(q, r, t, i));
                    return 1;
                }
        return 0;
    case 3: /* block q is block me of member q */
        for (int q = 0; q < p; q++)
            for (size_t i = 0; i < b; i++)
                if (f->recv[(size_t)q * b + i] != pattern(q, r, t, (size_t)me * b + i)) return 1;
        return 0;
    default:
        return 0;
    }
}

/* One round: start all, advance round-robin from a member-specific task, check. */
static int round_in_flight(shmcoll_team_t *team, long r, int *completions) {
    const int me = team->rank, p = team->size;
    inflight_t f[NTASKS];
    int failed = 0, started = 0;
    memset(f, 0, sizeof f);
    for (int t = 0; t < NTASKS && !failed; t++) {
        failed = setup(&f[t], t, r, me, p);
        f[t].task.nonblocking = 1;
        shmcoll_status_t status =
            failed ? SHMCOLL_ERR_NO_MEMORY : shmcoll_coll_start(team, &f[t].args, NULL, &f[t].task);
        if (status != SHMCOLL_OK) {
            team_harness_log("round %ld: starting task %d (%s): %s", r, t,
                             shmcoll_coll_kind_name(f[t].args.kind), shmcoll_status_string(status));
            failed = 1;
        }
        started += !failed;
    }
    /* Two drivers: in odd rounds the last task is tested a few times, then finished by a
     * blocking wait once the others are done. */
    const int waited = r % 2 && started == NTASKS ? NTASKS - 1 : -1;
    for (int sweeps = 0, left = started; left && !failed; sweeps++) {
        int progressed = 0;
        for (int i = 0; i < started; i++) {
            const int t = (me + i + sweeps) % started;
            if (f[t].done_at >= 0) continue;
            if (t == waited && sweeps > 3 && left == 1) {
                failed = shmcoll_task_wait(&f[t].task) != SHMCOLL_OK;
            } else if (t == waited && sweeps > 3) {
                continue;
            } else {
                const shmcoll_status_t status = shmcoll_task_test(&f[t].task);
                if (status == SHMCOLL_IN_PROGRESS) continue;
                failed = status != SHMCOLL_OK;
            }
            if (failed) team_harness_log("round %ld task %d: %s", r, t, team->error);
            for (int u = 0; u < t; u++) /* the same lane: done in start order */
                if (f[u].task.lane == f[t].task.lane && f[u].task.status == SHMCOLL_IN_PROGRESS) {
                    team_harness_log("round %ld: task %d done before task %d of its lane", r, t, u);
                    failed = 1;
                }
            f[t].done_at = (*completions)++;
            left--, progressed = 1;
        }
        if (!progressed) sched_yield();
    }
    for (int t = 0; t < started && !failed; t++) {
        if (check(&f[t], t, r, me, p)) {
            team_harness_log("round %ld: task %d (%s, %zu bytes) has a wrong result", r, t,
                             shmcoll_coll_kind_name(f[t].args.kind), f[t].bytes);
            failed = 1;
        }
    }
    for (int t = 0; t < NTASKS; t++) free(f[t].send), free(f[t].recv);
    return failed;
}

/* The engine: a blocking collective advances the non-blocking one started before it. */
static int engine_round(shmcoll_team_t *team, long r) {
    const int me = team->rank, p = team->size;
    int64_t in = me + 1 + r, out = 0;
    unsigned char buf[4096];
    const shmcoll_coll_args_t args = {.kind = SHMCOLL_KIND_ALLREDUCE,
                                      .sendbuf = &in,
                                      .recvbuf = &out,
                                      .count = 1,
                                      .op = int64_sum()};
    shmcoll_task_t task = {.nonblocking = 1};
    shmcoll_status_t status = shmcoll_coll_start(team, &args, NULL, &task);
    if (status == SHMCOLL_OK && me % 2) status = shmcoll_task_wait(&task);
    /* The bcast's root is odd: the even members wait in it for a member that waits for them in
     * the allreduce, which only the engine advances meanwhile. */
    const int root = p > 1 ? 1 : 0;
    if (me == root) memset(buf, (int)r, sizeof buf);
    if (status == SHMCOLL_OK) status = shmcoll_bcast(team, buf, sizeof buf, root);
    if (status == SHMCOLL_OK && !(me % 2)) status = shmcoll_task_wait(&task);
    if (status != SHMCOLL_OK) {
        team_harness_log("engine round %ld: %s (%s)", r, shmcoll_status_string(status),
                         team->error);
        return 1;
    }
    if (out != (int64_t)p * (p + 1) / 2 + (int64_t)p * r || buf[4095] != (unsigned char)r) {
        team_harness_log("engine round %ld: wrong result", r);
        return 1;
    }
    return 0;
}

static int body(shmcoll_team_t *team, void *arg) {
    int failed = 0, completions = 0;
    const long rounds = 40 / team_harness_scale_down() + 2;
    for (long r = 0; r < rounds && !failed; r++) failed = round_in_flight(team, r, &completions);
    for (long r = 0; r < rounds && !failed; r++) failed = engine_round(team, r);
    return failed;
}

int main(int argc, char **argv) {
    static const int sizes[] = {1, 2, 3, 4, 7};
    static const char *const lanes[][2] = {
        {"SHMCOLL_LANES=1", NULL}, {"SHMCOLL_LANES=2", NULL}, {"SHMCOLL_LANES=4", NULL}};
    int failed = 0;
    for (size_t l = 0; l < NELEMS(lanes); l++) {
        printf("%s\n", lanes[l][0]);
        team_harness_spec_t spec = {.body = body, .timeout_s = 300, .env = lanes[l]};
        failed |= team_harness_for_sizes_spec(argc, argv, sizes, NELEMS(sizes), &spec) != 0;
    }
    return failed;
}
