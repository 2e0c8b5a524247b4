/* Victim helpers, survivor loop and parent-side checks of the fault tests; see fault_check.h. */
#include "fault_check.h"

#include "select/team_coll.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

void fault_mark(void) {
    fault_shared_t *shared = team_harness_shared();
    atomic_store(&shared->fault_at, team_harness_now());
}

void fault_sum_or_signal(const void *in, void *inout, size_t n, void *ctx) {
    fault_trigger_t *t = ctx;
    if (team_harness_rank() == t->victim && ++t->calls == t->at_call) {
        fault_mark();
        raise(t->signal);
    }
    const double *a = in;
    double *b = inout;
    for (size_t i = 0; i < n; i++) b[i] += a[i];
}

int fault_victim_loop(shmcoll_team_t *team, fault_call_fn call, void *ctx, double max_s) {
    fault_shared_t *shared = team_harness_shared();
    const double give_up = team_harness_now() + max_s;
    for (long k = 0; team_harness_now() < give_up; k++) {
        if (call(team, k, ctx) != SHMCOLL_OK) break;
        atomic_fetch_add(&shared->records[team->rank].calls, 1);
    }
    team_harness_log("victim: still running after its loop");
    return 1;
}

void fault_signal_in_third_call(const team_harness_child_t *children, int victim, int signal,
                                double elapsed_s) {
    fault_shared_t *shared = team_harness_shared();
    static double third_call_seen;
    if (atomic_load(&shared->fault_at) != 0) return;
    if (atomic_load(&shared->records[victim].calls) < 2) {
        third_call_seen = 0;
        return;
    }
    if (third_call_seen == 0) third_call_seen = elapsed_s;
    if (elapsed_s - third_call_seen < 0.005) return;
    atomic_store(&shared->fault_at, team_harness_now());
    kill(children[victim].pid, signal);
}

void fault_survivor_loop(shmcoll_team_t *team, fault_call_fn call, void *ctx, int survivors,
                         double max_s) {
    fault_shared_t *shared = team_harness_shared();
    fault_record_t *rec = &shared->records[team->rank];
    const double start = team_harness_now();
    shmcoll_status_t status = SHMCOLL_OK;
    for (long k = 0; team_harness_now() - start < max_s; k++) {
        double t0 = team_harness_now();
        status = call(team, k, ctx);
        double t1 = team_harness_now();
        if (status != SHMCOLL_OK) {
            rec->failed_call_s = t1 - t0;
            rec->returned_at = t1;
            break;
        }
        atomic_fetch_add(&rec->calls, 1);
    }
    rec->status = (int)status;
    snprintf(rec->error, sizeof rec->error, "%s", team->error);
    if (status != SHMCOLL_OK) {
        double t0 = team_harness_now();
        rec->next_status = (int)call(team, -1, ctx);
        rec->next_call_s = team_harness_now() - t0;
    }
    atomic_store(&rec->finished, 1);
    atomic_fetch_add(&shared->survivors_finished, 1);
    /* Stay until every survivor has its own verdict (bounded). */
    const double linger_until = team_harness_now() + 11.0;
    while (atomic_load(&shared->survivors_finished) < survivors &&
           team_harness_now() < linger_until) {
        struct timespec nap = {0, 1000000};
        nanosleep(&nap, NULL);
    }
}

int fault_check_survivors(const fault_shared_t *shared, int p, int victim, const int *allowed,
                          int n_allowed, const char *const *must_contain, double max_latency_s) {
    int problems = 0;
    const double fault_at = atomic_load(&shared->fault_at);
    if (fault_at == 0) {
        printf("  the fault was never injected\n");
        return 1;
    }
    for (int r = 0; r < p; r++) {
        if (r == victim) continue;
        const fault_record_t *rec = &shared->records[r];
        int ok_status = 0;
        for (int i = 0; i < n_allowed; i++) ok_status |= rec->status == allowed[i];
        double latency = rec->returned_at - fault_at;
        printf("  rank %d: %ld calls, then %s after %.2f s (%.2f s after the fault): \"%s\"\n", r,
               atomic_load(&rec->calls), shmcoll_status_string((shmcoll_status_t)rec->status),
               rec->failed_call_s, latency, rec->error);
        if (!atomic_load(&rec->finished)) {
            printf("  rank %d: did not finish its loop\n", r);
            problems++;
            continue;
        }
        if (!ok_status) {
            printf("  rank %d: unexpected status %s\n", r,
                   shmcoll_status_string((shmcoll_status_t)rec->status));
            problems++;
            continue;
        }
        for (const char *const *s = must_contain; s && *s; s++)
            if (!strstr(rec->error, *s)) {
                printf("  rank %d: the message does not contain \"%s\"\n", r, *s);
                problems++;
            }
        if (latency > max_latency_s) {
            printf("  rank %d: returned %.2f s after the fault (limit %.1f s)\n", r, latency,
                   max_latency_s);
            problems++;
        }
        if (rec->next_status == SHMCOLL_OK || rec->next_call_s > 0.5) {
            printf("  rank %d: the next call after the failure returned %s after %.2f s (must "
                   "fail at once)\n",
                   r, shmcoll_status_string((shmcoll_status_t)rec->next_status), rec->next_call_s);
            problems++;
        }
    }
    return problems;
}

int fault_check_children(const team_harness_spec_t *spec, int victim, int signal) {
    int problems = 0;
    for (int r = 0; r < spec->p; r++) {
        const team_harness_child_t *c = &spec->children[r];
        if (c->watchdog) {
            printf("  rank %d: still running at the watchdog's deadline\n", r);
            problems++;
        } else if (r == victim) {
            if (signal && c->signal != signal) {
                printf("  rank %d (victim): ended with signal %d, exit code %d; expected signal "
                       "%d\n",
                       r, c->signal, c->exit_code, signal);
                problems++;
            }
        } else if (c->signal || c->exit_code) {
            printf("  rank %d: ended with signal %d (%s), exit code %d\n", r, c->signal,
                   c->signal ? strsignal(c->signal) : "-", c->exit_code);
            problems++;
        }
    }
    if (spec->leftover_files != 0) {
        printf("  %d file(s) left in the segment directory\n", spec->leftover_files);
        problems++;
    }
    return problems;
}

int fault_run_scenario(const char *test, const char *name, team_harness_spec_t *spec,
                       const fault_expect_t *expect) {
    static team_harness_child_t children[TEAM_HARNESS_MAX_P];
    static fault_shared_t outcome;
    spec->shared_bytes = sizeof outcome;
    spec->shared_out = &outcome;
    spec->children = children;
    spec->expect_failures = 1;
    const double start = team_harness_now();
    printf("%s: %s\n", test, name);
    team_harness_run_spec(spec);
    int problems = fault_check_children(spec, expect->victim, expect->signal);
    problems +=
        fault_check_survivors(&outcome, spec->p, expect->victim, expect->allowed, expect->n_allowed,
                              expect->must_contain, expect->max_latency_s);
    printf("%s: %s: %s (%.2f s)\n", test, name, problems ? "FAILED" : "ok",
           team_harness_now() - start);
    return problems != 0;
}

int fault_run_killed(const char *test, const char *name, team_harness_spec_t *spec, int victim) {
    static const int allowed[] = {SHMCOLL_ERR_PEER_DEAD, SHMCOLL_ERR_TIMEOUT};
    char named[16];
    snprintf(named, sizeof named, "rank %d", victim);
    const char *const must[] = {named, NULL};
    const fault_expect_t expect = {.victim = victim,
                                   .signal = SIGKILL,
                                   .allowed = allowed,
                                   .n_allowed = 2,
                                   .must_contain = must,
                                   .max_latency_s = 10.0};
    return fault_run_scenario(test, name, spec, &expect);
}
