/* One checked collective call: allocate buffers with poisoned guard zones, generate the inputs,
 * run the collective on the team, and compare with the locally computed reference.
 *
 * Every function is collective over the team (all members call it with the same arguments) and
 * returns 0 when this member saw a correct result, 1 after logging what was wrong. A status other
 * than SHMCOLL_OK is a failure: NOT_SUPPORTED is no pass for a case the library should handle.
 *
 * What is checked besides the values: the bytes before and after the result stay untouched, the
 * send buffer is not modified, a non-root's receive buffer of reduce is not touched, and allreduce
 * results are bitwise identical on every member (small cases: every member compares with the
 * reference; large ones: members exchange hashes through the harness and one member, rotating,
 * compares with the reference, which keeps the reference work per case O(p * count)). */
#ifndef SHMCOLL_TESTS_COLL_CHECK_H
#define SHMCOLL_TESTS_COLL_CHECK_H

#include "core/team.h"
#include "kernels/kernels.h"

#include <stddef.h>
#include <stdint.h>

typedef struct coll_case {
    shmcoll_dtype_t dtype;
    shmcoll_opcode_t op;
    size_t count; /* elements (bcast: bytes) */
    int root;     /* reduce and bcast */
    int in_place; /* sendbuf NULL (at the root for reduce) */
    int misalign; /* buffers start at an offset that keeps only the element's own alignment */
    uint64_t seed;
} coll_case_t;

/* A (type, op) pair of the test matrix. */
typedef struct coll_pair {
    shmcoll_dtype_t dtype;
    shmcoll_opcode_t op;
} coll_pair_t;

/* The spread of pairs the team tests run: every type class (integers of every width, C _Bool,
 * float/double/long double, complex, every MINLOC/MAXLOC pair type incl. SHORT_INT whose size 6
 * differs from its extent 8) and every op class. */
extern const coll_pair_t coll_check_pairs[];
extern const int coll_check_npairs;

int coll_check_allreduce(shmcoll_team_t *team, const coll_case_t *c);
int coll_check_reduce(shmcoll_team_t *team, const coll_case_t *c);
/* Broadcast of c->count bytes from c->root (dtype and op unused). */
int coll_check_bcast(shmcoll_team_t *team, const coll_case_t *c);

/* The case as text for messages: "allreduce SUM/INT32 count 7 in-place ...". */
void coll_case_format(const char *coll, const coll_case_t *c, char *text, size_t len);

/* Prints (rank 0 only) how many checked calls each algorithm served, from team->last_algo, so a
 * run shows which algorithms the matrix reached. */
void coll_check_print_algorithms(shmcoll_team_t *team, const char *coll);

/* Roots to test for team size p: every rank for p <= 5, else {0, p-1, p/2}; roots[] holds at
 * least 5 entries. Returns how many. */
int coll_check_roots(int p, int roots[]);

#endif
