/* A team member dies (SIGKILL) in the middle of collectives; the survivors must fail fast.
 *
 * SHMCOLL_TIMEOUT stays at its default (no deadline), so only the liveness check of the waits can
 * make the survivors return within the 10 s this test allows: each must return
 * SHMCOLL_ERR_PEER_DEAD (or TIMEOUT) from the collective it is in, with an error message naming
 * the dead rank, and the next call must fail at once (a failed team stays failed). The segment
 * directory must be empty afterwards. Scenarios, each with p = 4:
 *   1. rank 2 is killed by the parent while it loops over 16 MB allreduces (many pipeline chunks);
 *   2. rank 2 kills itself inside the user reduction function it runs as part of an allreduce,
 *      i.e. certainly in the middle of a collective;
 *   3. rank 0 — the member that created the segment — is killed while broadcasting 4 MB, once
 *      single-copy (SHMCOLL_CMA=all, SHMCOLL_TUNE=bcast:@single-copy: the others read its memory)
 * and once through the pipeline (SHMCOLL_CMA=off);
 *   4. rank 1 is killed by the parent while the team loops over single-copy alltoalls of 1 MB
 *      blocks (SHMCOLL_CMA=all);
 *   5. rank 3 dies right after the team is created, before its first barrier. */
#include "select/team_coll.h"
#include "fault_check.h"
#include "team_harness.h"
#include "test_data.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P           4
#define BIG_COUNT   ((size_t)2 << 20) /* doubles: 16 MB */
#define BCAST_BYTES ((size_t)4 << 20)
#define BLOCK_BYTES ((size_t)1 << 20) /* alltoall */

typedef enum how { KILLED_BY_PARENT, KILLED_IN_USER_OP, KILLED_AT_START } how_t;
typedef enum loop_call { ALLREDUCE, BCAST, ALLTOALL } loop_call_t;

typedef struct scenario {
    const char *name;
    int victim;
    how_t how;
    loop_call_t call; /* what the loop does (a barrier for KILLED_AT_START) */
    const char *const *env;
} scenario_t;

typedef struct loop_ctx {
    const scenario_t *sc;
    double *send, *recv;
    unsigned char *bytes, *all_send, *all_recv;
    shmcoll_reduce_op_t op;
    fault_trigger_t trigger; /* the victim dies on its user function's 20th call: in the middle
                                of its second allreduce or so */
} loop_ctx_t;

static shmcoll_status_t one_call(shmcoll_team_t *team, long k, void *ctx) {
    loop_ctx_t *lc = ctx;
    if (lc->sc->how == KILLED_AT_START) return shmcoll_barrier(team);
    if (lc->sc->call == BCAST) return shmcoll_bcast(team, lc->bytes, BCAST_BYTES, 0);
    if (lc->sc->call == ALLTOALL)
        return shmcoll_alltoall(team, lc->all_send, lc->all_recv, BLOCK_BYTES);
    shmcoll_status_t status = shmcoll_allreduce(team, lc->send, lc->recv, BIG_COUNT, &lc->op);
    const double want = P * (P + 1) / 2.0;
    if (status == SHMCOLL_OK && (lc->recv[0] != want || lc->recv[BIG_COUNT - 1] != want)) {
        team_harness_log("allreduce %ld before the fault: wrong result", k);
        return SHMCOLL_ERR_INVALID;
    }
    return status;
}

static int body(shmcoll_team_t *team, void *arg) {
    const scenario_t *sc = arg;
    loop_ctx_t lc = {.sc = sc, .trigger = {.victim = sc->victim, .signal = SIGKILL, .at_call = 20}};
    if (team->rank == sc->victim && sc->how == KILLED_AT_START) {
        fault_mark();
        raise(SIGKILL);
    }
    lc.op =
        (shmcoll_reduce_op_t){.kernel = shmcoll_kernel_reduce(SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM),
                              .size = 8,
                              .extent = 8,
                              .commutative = 1,
                              .name = "MPI_SUM/double"};
    if (sc->how == KILLED_IN_USER_OP)
        lc.op = (shmcoll_reduce_op_t){.user_fn = fault_sum_or_signal,
                                      .user_ctx = &lc.trigger,
                                      .size = 8,
                                      .extent = 8,
                                      .commutative = 1,
                                      .name = "sum-or-die"};
    lc.send = malloc(BIG_COUNT * sizeof(double));
    lc.recv = malloc(BIG_COUNT * sizeof(double));
    lc.bytes = malloc(BCAST_BYTES);
    lc.all_send = calloc(P, BLOCK_BYTES);
    lc.all_recv = calloc(P, BLOCK_BYTES);
    if (!lc.send || !lc.recv || !lc.bytes || !lc.all_send || !lc.all_recv) return 1;
    for (size_t i = 0; i < BIG_COUNT; i++) lc.send[i] = team->rank + 1;
    memset(lc.bytes, team->rank, BCAST_BYTES);

    /* The victim loops until it is killed; the parent kills it after two completed calls. */
    if (team->rank == sc->victim) return fault_victim_loop(team, one_call, &lc, 30.0);
    fault_survivor_loop(team, one_call, &lc, P - 1, 30.0);
    free(lc.send), free(lc.recv), free(lc.bytes), free(lc.all_send), free(lc.all_recv);
    return 0;
}

/* Parent: kill the victim a few milliseconds into its third call. */
static void monitor(const team_harness_child_t *children, int p, double elapsed, void *arg) {
    const scenario_t *sc = arg;
    if (sc->how == KILLED_BY_PARENT)
        fault_signal_in_third_call(children, sc->victim, SIGKILL, elapsed);
}

int main(void) {
    static const char *const no_single_copy[] = {"SHMCOLL_CMA=off", NULL};
    static const char *const single_copy[] = {"SHMCOLL_CMA=all", "SHMCOLL_TUNE=bcast:@single-copy",
                                              NULL};
    static const scenario_t scenarios[] = {
        {"allreduce, rank 2 killed by the parent", 2, KILLED_BY_PARENT, ALLREDUCE, NULL},
        {"allreduce, rank 2 dies inside its user reduction function", 2, KILLED_IN_USER_OP,
         ALLREDUCE, NULL},
        {"bcast (single-copy where allowed), root rank 0 (segment creator) killed by the parent", 0,
         KILLED_BY_PARENT, BCAST, single_copy},
        {"bcast through the pipeline, root rank 0 killed by the parent", 0, KILLED_BY_PARENT, BCAST,
         no_single_copy},
        {"alltoall (single-copy where allowed), rank 1 killed by the parent", 1, KILLED_BY_PARENT,
         ALLTOALL, single_copy},
        {"barrier, rank 3 dies right after team creation", 3, KILLED_AT_START, ALLREDUCE, NULL},
    };
    int failures = 0;
    unsetenv("SHMCOLL_TIMEOUT"); /* the default, no deadline: only the liveness check ends it */
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
        const scenario_t *sc = &scenarios[i];
        team_harness_spec_t spec = {.p = P,
                                    .body = body,
                                    .arg = (void *)sc,
                                    .timeout_s = 60.0,
                                    .monitor = monitor,
                                    .env = sc->env};
        failures += fault_run_killed("test_dead_peer", sc->name, &spec, sc->victim);
    }
    return failures != 0;
}
