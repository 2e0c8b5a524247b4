/* A team member stops (SIGSTOP) in the middle of a collective; with SHMCOLL_TIMEOUT=2 the others
 * must return SHMCOLL_ERR_TIMEOUT within 5 s, with an error message naming the stopped rank and
 * the operation. A stopped process is alive, so only the deadline can end the wait. Afterwards the
 * parent kills the stopped member; the segment directory must be empty. p = 4:
 *   1. rank 1 stops itself inside the user reduction function it runs as part of an allreduce;
 *   2. the parent stops rank 1 while the team loops over 4 MB broadcasts from rank 0. */
#include "select/team_coll.h"
#include "fault_check.h"
#include "team_harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P           4
#define VICTIM      1
#define COUNT       ((size_t)1 << 20) /* doubles: 8 MB */
#define BCAST_BYTES ((size_t)4 << 20)

typedef struct loop_ctx {
    int bcast;
    double *send, *recv;
    unsigned char *bytes;
    shmcoll_reduce_op_t op;
    fault_trigger_t trigger; /* the victim stops on its user function's 10th call */
} loop_ctx_t;

static shmcoll_status_t one_call(shmcoll_team_t *team, long k, void *ctx) {
    loop_ctx_t *lc = ctx;
    if (lc->bcast) return shmcoll_bcast(team, lc->bytes, BCAST_BYTES, 0);
    return shmcoll_allreduce(team, lc->send, lc->recv, COUNT, &lc->op);
}

static int body(shmcoll_team_t *team, void *arg) {
    loop_ctx_t lc = {.bcast = *(const int *)arg,
                     .trigger = {.victim = VICTIM, .signal = SIGSTOP, .at_call = 10}};
    lc.op = (shmcoll_reduce_op_t){.user_fn = fault_sum_or_signal,
                                  .user_ctx = &lc.trigger,
                                  .size = 8,
                                  .extent = 8,
                                  .commutative = 1,
                                  .name = "sum-or-stop"};
    lc.send = calloc(COUNT, sizeof(double));
    lc.recv = calloc(COUNT, sizeof(double));
    lc.bytes = calloc(BCAST_BYTES, 1);
    if (!lc.send || !lc.recv || !lc.bytes) return 1;
    if (team->rank == VICTIM) return fault_victim_loop(team, one_call, &lc, 30.0);
    fault_survivor_loop(team, one_call, &lc, P - 1, 30.0);
    free(lc.send), free(lc.recv), free(lc.bytes);
    return 0;
}

/* Parent: in the broadcast scenario, stop the victim a little into its third call; in both, kill
 * the stopped victim once every survivor has its verdict. */
static void monitor(const team_harness_child_t *children, int p, double elapsed, void *arg) {
    const int bcast = *(const int *)arg;
    fault_shared_t *shared = team_harness_shared();
    if (bcast) fault_signal_in_third_call(children, VICTIM, SIGSTOP, elapsed);
    if (atomic_load(&shared->survivors_finished) == p - 1 && !children[VICTIM].finished)
        kill(children[VICTIM].pid, SIGKILL);
}

int main(void) {
    static const char *const env[] = {"SHMCOLL_TIMEOUT=2", NULL};
    static const int allowed[] = {SHMCOLL_ERR_TIMEOUT};
    static const char *const names[] = {"allreduce, rank 1 stops inside its user function",
                                        "bcast, the parent stops rank 1"};
    static const char *const ops[] = {"allreduce", "bcast"};
    int failures = 0;
    for (int bcast = 0; bcast < 2; bcast++) {
        team_harness_spec_t spec = {
            .p = P, .body = body, .arg = &bcast, .timeout_s = 60.0, .env = env, .monitor = monitor};
        const char *const must[] = {"rank 1", ops[bcast], NULL};
        const fault_expect_t expect = {.victim = VICTIM,
                                       .signal = SIGKILL,
                                       .allowed = allowed,
                                       .n_allowed = 1,
                                       .must_contain = must,
                                       .max_latency_s = 5.0};
        failures += fault_run_scenario("test_stopped_peer", names[bcast], &spec, &expect);
    }
    return failures != 0;
}
