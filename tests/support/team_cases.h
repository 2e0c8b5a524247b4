/* What the team tests that run a matrix of checked cases (the movement collectives, reduce-scatter,
 * scan) share: this member's failures, buffers inside poisoned guard zones and their checks, and
 * the loop over team sizes and the two chunk settings.
 *
 * Every member always runs every case, whatever it saw, so the members never disagree on which
 * collective comes next; only the first few failures of each group of cases (one op, one
 * collective) are described, so one bug does not hide another. Every check returns 1 after
 * describing (team_cases_fail) what was wrong, 0 when all was well. */
#ifndef SHMCOLL_TESTS_TEAM_CASES_H
#define SHMCOLL_TESTS_TEAM_CASES_H

#include "core/team.h"
#include "team_harness.h"

#include <stddef.h>

/* ---- Failures of this member -------------------------------------------------------------- */

/* The group the next failures count in (0..63). */
void team_cases_set_group(int group);

/* Counts a failure; describes it (team_harness_log) unless its group has described 3 already. */
void team_cases_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The member's verdict after its cases: 0 when none failed, else 1 after logging how many did. */
int team_cases_verdict(void);

/* A status other than SHMCOLL_OK is a failure. */
int team_cases_status_check(shmcoll_team_t *team, shmcoll_status_t status, const char *desc);

/* ---- Guarded buffers ---------------------------------------------------------------------- */

/* A buffer of `len` data bytes starting `misalign` bytes into a poisoned guard zone, with a
 * poisoned guard behind it; used for receive buffers and for the image they must have after. */
typedef struct team_cases_image {
    unsigned char *mem;
    unsigned char *data;
    size_t total;
} team_cases_image_t;

int team_cases_image_alloc(team_cases_image_t *im, size_t len, size_t misalign);
void team_cases_image_free(team_cases_image_t *im);

/* The poison before the data and after its first `len` bytes must be intact. */
int team_cases_image_guards(const team_cases_image_t *im, size_t len, const char *desc);

/* A whole receive buffer, guards included, must equal the image it must have, byte for byte. A
 * wrong byte is located in the p blocks: at displs[r] with counts[r] bytes, or (counts NULL) at
 * r * bytes with `bytes` bytes. */
int team_cases_image_check(const team_cases_image_t *got, const team_cases_image_t *want, int p,
                           const size_t *counts, const size_t *displs, size_t bytes,
                           const char *desc);

/* A buffer of exactly n bytes (at least one, so a send buffer is never NULL = in place); NULL
 * after a failure when out of memory. */
unsigned char *team_cases_alloc(size_t n);

/* A send buffer of n bytes as above and *copy, one of the same size to compare it with
 * afterwards; NULL (both) when out of memory. */
unsigned char *team_cases_send_alloc(size_t n, unsigned char **copy);

/* The send buffer (if any: NULL passes) must still equal its copy. */
int team_cases_send_check(const unsigned char *buf, const unsigned char *copy, size_t n,
                          const char *desc);

/* ---- Team sizes and chunk settings -------------------------------------------------------- */

/* What the test body gets as its argument. */
typedef struct team_cases_mode {
    int rounds; /* 1: 4 KiB chunks, counts that need many pipeline rounds */
} team_cases_mode_t;

/* ---- The case loop of the rooted collectives (gather, scatter) ------------------------------ */

/* Checks one call of `bytes` (the mean block for a v-variant) with `root`. */
typedef int (*team_cases_rooted_fn)(shmcoll_team_t *team, size_t bytes, int root, int in_place,
                                    size_t misalign, uint64_t seed);

/* The body of a rooted collective's test: for every size of blocks_sizes (the big one 100000
 * bytes), every root of coll_check_roots, in place and not, `plain` (failure group 0) and then
 * `v` (group 1), with seeds from `salt`; returns team_cases_verdict(). */
int team_cases_rooted_body(shmcoll_team_t *team, const team_cases_mode_t *mode, uint64_t salt,
                           team_cases_rooted_fn plain, team_cases_rooted_fn v);

/* Asks team_cases_run_sizes for a third run per team size with single-copy transfers for every
 * block of 60 bytes and more (SHMCOLL_CMA=all, SHMCOLL_CMA_MIN=60: blocks around 64 bytes fall on
 * both sides, so gatherv moves some blocks single-copy and others through slots in one call);
 * there team_cases_verdict fails a member whose team may move single-copy but none of whose calls
 * did. For the data-movement collectives. */
void team_cases_single_copy_runs(void);

/* Runs `body` for p in {1,2,3,4,5,7,8,13,16,31} (or the sizes on the command line), each with the
 * default chunk (environment env_default) and, up to p = 16, again with 4 KiB chunks (env_rounds,
 * which must set SHMCOLL_CHUNK=4k; single-copy off) and, when asked, single-copy; shared_bytes of
 * harness shared memory. Prints one line per
 * run; returns 1 when any failed. */
int team_cases_run_sizes(int argc, char **argv, team_harness_body_fn body,
                         const char *const *env_default, const char *const *env_rounds,
                         size_t shared_bytes);

#endif
