/* A team member stops (SIGSTOP) in the middle of a collective; with SHMCOLL_TIMEOUT=2 the others
 * must return SHMCOLL_ERR_TIMEOUT within 5 s, with an error message naming the stopped rank and
 * the operation. A stopped process is alive, so only the deadline can end the wait. Afterwards the
 * parent kills the stopped member; the segment directory must be empty. p = 4:
 *   1. rank 1 stops itself inside the user reduction function it runs as part of an allreduce;
 *   2. the parent stops rank 1 while the team loops over 4 MB broadcasts from rank 0. */
#include "coll/coll.h"
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
} loop_ctx_t;

static int user_op_calls;

/* The victim's user function stops the process on its 10th call; the others just add. */
static void sum_or_stop(const void *in, void *inout, size_t n, void *ctx) {
    if (team_harness_rank() == VICTIM && ++user_op_calls == 10) {
        fault_shared_t *shared = team_harness_shared();
        atomic_store(&shared->fault_at, team_harness_now());
        raise(SIGSTOP);
    }
    const double *a = in;
    double *b = inout;
    for (size_t i = 0; i < n; i++) b[i] += a[i];
}

static shmcoll_status_t one_call(shmcoll_team_t *team, long k, void *ctx) {
    loop_ctx_t *lc = ctx;
    if (lc->bcast) return shmcoll_bcast(team, lc->bytes, BCAST_BYTES, 0);
    return shmcoll_allreduce(team, lc->send, lc->recv, COUNT, &lc->op);
}

static int body(shmcoll_team_t *team, void *arg) {
    loop_ctx_t lc = {.bcast = *(const int *)arg};
    lc.op = (shmcoll_reduce_op_t){
        .user_fn = sum_or_stop, .size = 8, .extent = 8, .commutative = 1, .name = "sum-or-stop"};
    lc.send = calloc(COUNT, sizeof(double));
    lc.recv = calloc(COUNT, sizeof(double));
    lc.bytes = calloc(BCAST_BYTES, 1);
    if (!lc.send || !lc.recv || !lc.bytes) return 1;
    if (team->rank == VICTIM) {
        fault_shared_t *shared = team_harness_shared();
        const double give_up = team_harness_now() + 30.0;
        for (long k = 0; team_harness_now() < give_up; k++) {
            if (one_call(team, k, &lc) != SHMCOLL_OK) break;
            atomic_fetch_add(&shared->records[VICTIM].calls, 1);
        }
        team_harness_log("victim: still running after its loop");
        return 1;
    }
    fault_survivor_loop(team, one_call, &lc, P - 1, 30.0);
    free(lc.send), free(lc.recv), free(lc.bytes);
    return 0;
}

/* Parent: in the broadcast scenario, stop the victim a little into its third call; in both, kill
 * the stopped victim once every survivor has its verdict. */
static void monitor(const team_harness_child_t *children, int p, double elapsed, void *arg) {
    const int bcast = *(const int *)arg;
    fault_shared_t *shared = team_harness_shared();
    static double third_call_seen;
    if (bcast && atomic_load(&shared->fault_at) == 0) {
        if (atomic_load(&shared->records[VICTIM].calls) < 2) {
            third_call_seen = 0;
            return;
        }
        if (third_call_seen == 0) third_call_seen = elapsed;
        if (elapsed - third_call_seen < 0.005) return;
        atomic_store(&shared->fault_at, team_harness_now());
        kill(children[VICTIM].pid, SIGSTOP);
    }
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
        team_harness_child_t children[P];
        static fault_shared_t outcome;
        team_harness_spec_t spec = {.p = P,
                                    .body = body,
                                    .arg = &bcast,
                                    .timeout_s = 60.0,
                                    .env = env,
                                    .monitor = monitor,
                                    .shared_bytes = sizeof(fault_shared_t),
                                    .shared_out = &outcome,
                                    .children = children,
                                    .expect_failures = 1};
        double start = team_harness_now();
        printf("test_stopped_peer: %s\n", names[bcast]);
        team_harness_run_spec(&spec);
        const char *const must[] = {"rank 1", ops[bcast], NULL};
        int problems = fault_check_children(&spec, VICTIM, SIGKILL);
        problems += fault_check_survivors(&outcome, P, VICTIM, allowed, 1, must, 5.0);
        printf("test_stopped_peer: %s: %s (%.2f s)\n", names[bcast], problems ? "FAILED" : "ok",
               team_harness_now() - start);
        failures += problems != 0;
    }
    return failures != 0;
}
