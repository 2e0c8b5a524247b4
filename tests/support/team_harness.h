/* Test harness for teams of fork()ed processes, with no MPI.
 *
 * team_harness_run() forks p children. They meet in an anonymous shared mapping created before the
 * fork, which carries a bootstrap allgather and a barrier of the harness's own (independent of the
 * code under test), build a team with shmcoll_team_create, run the test body, destroy the team and
 * exit with the body's verdict. The parent reaps children as soon as they end (so a dead member is
 * never a lingering zombie that still looks alive to the survivors' liveness checks), enforces a
 * watchdog, and gives each run a private segment directory that must be empty afterwards: a test
 * that leaks a segment file fails.
 *
 * Every wait in the harness is bounded and yields: up to 64 children share two cores. When a child
 * dies abnormally the parent raises an abort flag, so no sibling waits for it in the bootstrap. */
#ifndef SHMCOLL_TESTS_TEAM_HARNESS_H
#define SHMCOLL_TESTS_TEAM_HARNESS_H

#include "core/team.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TEAM_HARNESS_MAX_P 128

typedef int (*team_harness_body_fn)(shmcoll_team_t *team, void *arg);

/* What became of one child, as the parent saw it. */
typedef struct team_harness_child {
    pid_t pid;
    int finished;  /* reaped */
    int exit_code; /* exit status, or -1 when killed by a signal */
    int signal;    /* terminating signal, 0 if it exited */
    int watchdog;  /* killed by the watchdog */
    double end_s;  /* seconds from the start of the run to its reaping */
} team_harness_child_t;

typedef struct team_harness_spec {
    int p;
    team_harness_body_fn body;
    void *arg;
    double timeout_s; /* watchdog for the whole run */
    /* NULL-terminated "NAME=VALUE" strings applied in every child before the team is created. */
    const char *const *env;
    /* Segment directory; NULL: a fresh private directory, removed after the run. */
    const char *segment_dir;
    /* A file in segment_dir that the test put there itself and that is no leak. */
    const char *keep_file;
    /* Called in a child whose shmcoll_team_create failed; its return value is the child's exit
     * code. NULL: the failure is reported and the child exits 1. */
    int (*create_failed)(int rank, int size, int status, void *arg);
    /* Called in a child before each bootstrap allgather (index counts from 0), e.g. to die there.
     */
    void (*allgather_hook)(int rank, int index, void *arg);
    /* Called in the parent about every millisecond while children run; may signal them. */
    void (*monitor)(const team_harness_child_t *children, int p, double elapsed_s, void *arg);
    /* Bytes of shared memory for the test (team_harness_shared()), zeroed before the fork. */
    size_t shared_bytes;
    /* Out: a copy of the shared memory as the run left it (shared_bytes bytes), or NULL. */
    void *shared_out;
    /* Out: p entries filled by the run, or NULL. */
    team_harness_child_t *children;
    /* 1: a child killed by a signal or exiting non-zero is expected; do not report it. */
    int expect_failures;
    /* Out: files found in the segment directory after the run (-1: unreadable). */
    int leftover_files;
} team_harness_spec_t;

/* Runs `body` on a team of p forked processes; 0 only if every child exited 0 within timeout_s and
 * no segment file was left behind. */
int team_harness_run(int p, team_harness_body_fn body, void *arg, double timeout_s);

/* The same with every option; returns 0 under the same conditions. */
int team_harness_run_spec(team_harness_spec_t *spec);

/* Runs `body` once per team size: the sizes given on the command line, else `sizes`. Prints one
 * line per size with its time; returns the number of sizes that failed. */
int team_harness_for_sizes(int argc, char **argv, const int *sizes, int n,
                           team_harness_body_fn body, void *arg, double timeout_s);

/* The same with every option of `spec` (its p is set per size); `spec` itself is not changed. */
int team_harness_for_sizes_spec(int argc, char **argv, const int *sizes, int n,
                                const team_harness_spec_t *spec);

/* --- In a child (or in the parent's monitor) during a run ----------------------------------- */

/* Rank of the calling child, and the team size. */
int team_harness_rank(void);
int team_harness_size(void);

/* The test's shared memory (spec.shared_bytes), the same mapping in every child and the parent. */
void *team_harness_shared(void);

/* Barrier and allgather of the harness itself, independent of the code under test. Return 0, or
 * -1 when a sibling died or the run's deadline passed. */
int team_harness_barrier(void);
int team_harness_allgather(const void *in, void *out, size_t bytes);

/* Prints "rank r/p: <message>" on stderr (one line; used for every failure a child reports). */
void team_harness_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* 1: drop team_harness_log messages (a test that keeps running the cases of a failed group, so
 * that all members still call the same collectives, silences the repeats). */
void team_harness_log_quiet(int quiet);

/* 0 when the team's pipeline chunk is `bytes` (the SHMCOLL_CHUNK the test set took effect), else 1
 * after saying so. */
int team_harness_check_chunk(const shmcoll_team_t *team, size_t bytes);

/* Seconds on a monotonic clock. */
double team_harness_now(void);

/* Work scale for the current build: 1 normally, smaller under sanitizers (which slow the tests
 * down) or when SHMCOLL_TEST_SCALE is set (a divisor, e.g. 4). Tests divide big counts by it. */
int team_harness_scale_down(void);
/* 1 when the build runs under AddressSanitizer. */
int team_harness_sanitized(void);

/* Counts entries of `dir` other than "." , ".." and `keep` (may be NULL), printing each. */
int team_harness_dir_leftovers(const char *dir, const char *keep);

/* A fresh directory for segments inside the default segment directory; 0 on success. */
int team_harness_dir_create(char *path, size_t len);

#endif
