/* Shared machinery of the fault tests: one member (the victim) dies or stops while the others
 * (the survivors) run a collective in a loop; each survivor records in shared memory how its loop
 * ended, and the parent checks the records.
 *
 * A survivor stays alive after its failure until every survivor has failed (or a grace period
 * passed): otherwise a survivor still waiting could see a sibling exit and blame it instead of the
 * victim, and the test could not tell whether the failure spread from the victim. */
#ifndef SHMCOLL_TESTS_FAULT_CHECK_H
#define SHMCOLL_TESTS_FAULT_CHECK_H

#include "core/team.h"
#include "team_harness.h"

#include <stdatomic.h>
#include <stddef.h>

typedef struct fault_record {
    _Atomic long calls;   /* collectives completed successfully */
    _Atomic int finished; /* the loop ended */
    int status;           /* status of the call that failed (SHMCOLL_OK: none failed) */
    double failed_call_s; /* how long that call took */
    double returned_at;   /* team_harness_now() when it returned */
    int next_status;      /* status of one more call after the failure (must fail at once) */
    double next_call_s;
    char error[256]; /* team->error after the failure */
} fault_record_t;

typedef struct fault_shared {
    _Atomic double fault_at; /* when the victim died or stopped (0: not yet) */
    _Atomic int survivors_finished;
    fault_record_t records[TEAM_HARNESS_MAX_P];
} fault_shared_t;

/* One collective call of the loop (k counts from 0); returns its status. */
typedef shmcoll_status_t (*fault_call_fn)(shmcoll_team_t *team, long k, void *ctx);

/* Victim, in its own process: records this moment as the fault's (just before it dies or stops). */
void fault_mark(void);

/* What fault_sum_or_signal needs as its context: the victim raises `signal` on its at_call-th
 * call (counted in `calls`, which starts at 0). */
typedef struct fault_trigger {
    int victim;
    int signal;
    int at_call;
    int calls;
} fault_trigger_t;

/* A user op that adds doubles, except that the victim's raises the trigger's signal (after
 * fault_mark) on the trigger's call: certainly in the middle of a collective. */
void fault_sum_or_signal(const void *in, void *inout, size_t n, void *ctx);

/* Victim: calls `call` until it fails or `max_s` seconds pass, counting its completed calls in its
 * record. It should die or stop on the way, so returning is a failure: returns 1 after saying so.
 */
int fault_victim_loop(shmcoll_team_t *team, fault_call_fn call, void *ctx, double max_s);

/* Parent's monitor (called about every millisecond, `elapsed_s` into the run): sends `signal` to
 * the victim 5 ms into its third call, i.e. after it completed two, and records the moment; once.
 */
void fault_signal_in_third_call(const team_harness_child_t *children, int victim, int signal,
                                double elapsed_s);

/* Survivor: calls `call` until it fails or `max_s` seconds pass, records the outcome, then waits
 * (bounded) until all survivors have finished. `survivors` is the number of survivors. */
void fault_survivor_loop(shmcoll_team_t *team, fault_call_fn call, void *ctx, int survivors,
                         double max_s);

/* Parent, after the run: checks every survivor's record — a failure status among `allowed`
 * (count n_allowed), an error message containing each of the `must_contain` strings (NULL-
 * terminated), a failed call that returned within `max_latency_s` of the fault, and a follow-up
 * call that failed at once. Prints one line per survivor; returns the number of problems. */
int fault_check_survivors(const fault_shared_t *shared, int p, int victim, const int *allowed,
                          int n_allowed, const char *const *must_contain, double max_latency_s);

/* Parent: checks the victim ended by `signal` (0: any way), every other child exited 0 in time,
 * and no file was left in the segment directory. Returns the number of problems. */
int fault_check_children(const team_harness_spec_t *spec, int victim, int signal);

/* What a scenario must show (see the two checks above). */
typedef struct fault_expect {
    int victim;
    int signal; /* how the victim must end (0: any way) */
    const int *allowed;
    int n_allowed;
    const char *const *must_contain;
    double max_latency_s;
} fault_expect_t;

/* Parent: runs one scenario of the test `test` (this fills in spec's shared memory, children and
 * expect_failures), then checks the children and the survivors' records as the two functions above
 * do. Prints "<test>: <name>" first and the verdict last; returns 1 when anything was wrong. */
int fault_run_scenario(const char *test, const char *name, team_harness_spec_t *spec,
                       const fault_expect_t *expect);

/* The same for a victim killed with SIGKILL: every survivor must fail with PEER_DEAD or TIMEOUT
 * within 10 s, its error naming "rank <victim>". */
int fault_run_killed(const char *test, const char *name, team_harness_spec_t *spec, int victim);

#endif
