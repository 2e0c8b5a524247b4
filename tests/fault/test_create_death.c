/* A member dies during team creation, before each of the bootstrap exchanges in turn.
 *
 * The harness's bootstrap fails fast once a child has died (as an MPI allgather with a dead peer
 * would return an error or abort), so shmcoll_team_create must turn that into an error on every
 * survivor — never a team, never a hang — and must leave no file in the segment directory, even
 * when the member that died had already created the segment and not yet unlinked it (the
 * survivors know its name from the exchange). The number of exchanges is measured in a normal
 * run first; then, for the victims rank 0 (the creator) and rank 3 (p = 4), each exchange index. */
#include "core/team.h"
#include "team_harness.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>

#define P 4

typedef struct shared {
    _Atomic int exchanges;     /* allgathers one member made in the normal run */
    _Atomic int create_failed; /* survivors whose team creation failed */
    int status[P];             /* their status */
} shared_t;

typedef struct plan {
    int victim; /* -1: nobody dies */
    int when;   /* index of the allgather before which the victim dies */
} plan_t;

static void hook(int rank, int index, void *arg) {
    const plan_t *plan = arg;
    shared_t *shared = team_harness_shared();
    if (rank == 0 && index + 1 > atomic_load(&shared->exchanges))
        atomic_store(&shared->exchanges, index + 1);
    if (rank == plan->victim && index == plan->when) raise(SIGKILL);
}

static int on_create_failed(int rank, int size, int status, void *arg) {
    shared_t *shared = team_harness_shared();
    shared->status[rank] = status;
    atomic_fetch_add(&shared->create_failed, 1);
    return 0;
}

static int body(shmcoll_team_t *team, void *arg) {
    const plan_t *plan = arg;
    if (plan->victim < 0) return 0;
    team_harness_log("got a team although rank %d died before exchange %d", plan->victim,
                     plan->when);
    return 1;
}

static int run(plan_t *plan, shared_t *out, double *seconds) {
    team_harness_child_t children[P];
    team_harness_spec_t spec = {.p = P,
                                .body = body,
                                .arg = plan,
                                .timeout_s = 30.0,
                                .create_failed = on_create_failed,
                                .allgather_hook = hook,
                                .shared_bytes = sizeof(shared_t),
                                .shared_out = out,
                                .children = children,
                                .expect_failures = plan->victim >= 0};
    double start = team_harness_now();
    int failed = team_harness_run_spec(&spec);
    *seconds = team_harness_now() - start;
    if (plan->victim < 0) return failed;
    int problems = 0;
    for (int r = 0; r < P; r++) {
        if (children[r].watchdog) {
            printf("  rank %d: still running at the watchdog's deadline\n", r);
            problems++;
        } else if (r == plan->victim ? children[r].signal != SIGKILL
                                     : children[r].signal || children[r].exit_code) {
            printf("  rank %d: ended with signal %d, exit code %d\n", r, children[r].signal,
                   children[r].exit_code);
            problems++;
        }
    }
    if (atomic_load(&out->create_failed) != P - 1) {
        printf("  %d of %d survivors saw team creation fail\n", atomic_load(&out->create_failed),
               P - 1);
        problems++;
    }
    if (spec.leftover_files) {
        printf("  %d file(s) left in the segment directory\n", spec.leftover_files);
        problems++;
    }
    if (*seconds > 10.0) {
        printf("  took %.1f s (limit 10 s)\n", *seconds);
        problems++;
    }
    return problems;
}

int main(void) {
    static shared_t out;
    plan_t plan = {.victim = -1, .when = -1};
    double seconds;
    if (run(&plan, &out, &seconds)) {
        printf("test_create_death: the run without a fault failed\n");
        return 1;
    }
    const int exchanges = atomic_load(&out.exchanges);
    printf("test_create_death: team creation makes %d bootstrap exchanges\n", exchanges);
    int failures = exchanges < 1;
    const int victims[] = {0, P - 1};
    for (int v = 0; v < 2; v++)
        for (int when = 0; when < exchanges; when++) {
            plan = (plan_t){.victim = victims[v], .when = when};
            int problems = run(&plan, &out, &seconds);
            printf("test_create_death: rank %d dies before exchange %d: %s (%.2f s)\n", plan.victim,
                   when, problems ? "FAILED" : "ok", seconds);
            failures += problems != 0;
        }
    return failures != 0;
}
