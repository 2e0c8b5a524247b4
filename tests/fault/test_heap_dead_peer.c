/* A member dies (SIGKILL) while the others copy from or into its shared-heap buffers through
 * their mappings of its arenas (coll/heap.h); the survivors must fail fast, naming it, with
 * nothing of it left in their processes.
 *
 * Every buffer lies in the members' heaps, so each call takes the heap path: the survivors hold
 * the victim's arenas mapped (its memory stays readable through them: no fault, no SIGBUS) when
 * the parent kills it a few milliseconds into its third call. Each survivor must return
 * SHMCOLL_ERR_PEER_DEAD (or TIMEOUT) within 10 s with an error naming the victim, and afterwards
 * hold no mapping of the victim's arenas (the heap cache forgets a dead peer) and no more
 * descriptors than before its first call. Scenarios, p = 3:
 *   1. alltoall of 8 MiB blocks (every member reads the others' send buffers), rank 1 killed;
 *   2. allreduce of 16 MiB (every member reduces its block from all inputs), rank 2 killed;
 *   3. bcast of 16 MiB from rank 0, which writes a share into every buffer while the others read
 *      the rest; rank 0 killed. */
#include "fault_check.h"
#include "heap/heap.h"
#include "proc_counts.h"
#include "select/team_coll.h"
#include "team_harness.h"
#include "test_data.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P     3
#define BLOCK ((size_t)8 << 20)

typedef enum call { ALLTOALL, ALLREDUCE, BCAST } call_t;

typedef struct scenario {
    const char *name;
    int victim;
    call_t call;
} scenario_t;

typedef struct ctx {
    const scenario_t *sc;
    char *send, *recv;
    shmcoll_reduce_op_t op;
} ctx_t;

static shmcoll_status_t one_call(shmcoll_team_t *team, long k, void *arg) {
    ctx_t *c = arg;
    shmcoll_status_t status;
    switch (c->sc->call) {
    case ALLTOALL:
        status = shmcoll_alltoall(team, c->send, c->recv, BLOCK);
        break;
    case ALLREDUCE:
        status = shmcoll_allreduce(team, c->send, c->recv, 2 * BLOCK / 8, &c->op);
        break;
    default:
        status = shmcoll_bcast(team, c->recv, 2 * BLOCK, 0);
    }
    if (status == SHMCOLL_OK && strcmp(team->last_algo, "heap")) {
        team_harness_log("call %ld before the fault took %s, not the heap path", k,
                         team->last_algo);
        return SHMCOLL_ERR_INVALID;
    }
    return status;
}

static int body(shmcoll_team_t *team, void *arg) {
    const scenario_t *sc = arg;
    const int fds = proc_open_fds();
    ctx_t c = {.sc = sc};
    test_data_op(SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM, &c.op);
    c.send = shmcoll_heap_alloc(P * BLOCK, 64);
    c.recv = shmcoll_heap_alloc(P * BLOCK, 64);
    if (!c.send || !c.recv) return 1;
    memset(c.send, 0, P * BLOCK);
    memset(c.recv, team->rank, P * BLOCK);
    if (team->rank == sc->victim) return fault_victim_loop(team, one_call, &c, 30.0);
    fault_survivor_loop(team, one_call, &c, P - 1, 30.0);
    shmcoll_heap_peer_stats_t peers;
    shmcoll_heap_peer_stats(&peers);
    shmcoll_heap_arena_stats_t own;
    shmcoll_heap_arena_stats(&own);
    int failed = 0;
    const int of_victim = shmcoll_heap_peer_held(team->pids[sc->victim]);
    if (of_victim || proc_heap_mappings() != (int)(own.live + peers.live)) {
        team_harness_log("after the fault: %d arenas of the victim still mapped (%d arena "
                         "mappings: %llu of its own, %llu of live peers)",
                         of_victim, proc_heap_mappings(), (unsigned long long)own.live,
                         (unsigned long long)peers.live);
        failed = 1;
    }
    if (proc_open_fds() > fds + 1) { /* + the arena of the buffers */
        team_harness_log("after the fault: %d descriptors, %d before", proc_open_fds(), fds);
        failed = 1;
    }
    shmcoll_heap_free(c.send), shmcoll_heap_free(c.recv);
    return failed;
}

static void monitor(const team_harness_child_t *children, int p, double elapsed, void *arg) {
    const scenario_t *sc = arg;
    fault_signal_in_third_call(children, sc->victim, SIGKILL, elapsed);
}

int main(void) {
    static const scenario_t scenarios[] = {
        {"alltoall of heap buffers, rank 1 killed", 1, ALLTOALL},
        {"allreduce of heap buffers, rank 2 killed", 2, ALLREDUCE},
        {"bcast of heap buffers (the root writes a share), root rank 0 killed", 0, BCAST},
    };
    static const char *const env[] = {"SHMCOLL_HEAP_MIN=1", "SHMCOLL_HEAP_CHUNKS=0", NULL};
    int failures = 0;
    unsetenv("SHMCOLL_TIMEOUT"); /* the default, no deadline: only the liveness check ends it */
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
        team_harness_spec_t spec = {.p = P,
                                    .body = body,
                                    .arg = (void *)&scenarios[i],
                                    .timeout_s = 60.0,
                                    .monitor = monitor,
                                    .env = env};
        failures +=
            fault_run_killed("test_heap_dead_peer", scenarios[i].name, &spec, scenarios[i].victim);
    }
    return failures != 0;
}
