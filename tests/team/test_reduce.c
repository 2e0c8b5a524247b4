/* Reduce over teams of forked processes: p in {1,2,3,4,5,7,8,13,16} x roots (every rank for
 * p <= 5, else {0, p-1, p/2}) x the spread of (type, op) pairs x counts {0,1,7,1000,5000} x
 * in-place at the root or not; then a count that needs many pipeline chunks for a few pairs and
 * roots. The root compares with the scalar oracle's rank-order fold; non-roots pass no receive
 * buffer or one that must stay untouched. No synchronisation of the harness separates the cases, so
 * a member that races into the next reduce while others still read its slots shows up as a wrong
 * result. Team sizes may be given on the command line. */
#include "coll_check.h"
#include "team_harness.h"
#include "test_data.h"

#include <stdio.h>

static const coll_pair_t big_pairs[] = {
    {SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM},
    {SHMCOLL_DT_DOUBLE_INT, SHMCOLL_OP_MAXLOC},
};

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* After a pair failed on this member its remaining cases still run (every member must call the
 * same collectives), silently; other pairs report again, so one bug does not hide another. */
static int body(shmcoll_team_t *team, void *arg) {
    static const size_t counts[] = {0, 1, 7, 1000, 5000};
    int roots[8], nroots = coll_check_roots(team->size, roots);
    int failed = 0;
    uint64_t index = 0;
    for (int k = 0; k < coll_check_npairs; k++) {
        int pair_failed = 0;
        for (int ri = 0; ri < nroots; ri++)
            for (size_t n = 0; n < NELEMS(counts); n++)
                for (int in_place = 0; in_place < 2; in_place++) {
                    coll_case_t c = {.dtype = coll_check_pairs[k].dtype,
                                     .op = coll_check_pairs[k].op,
                                     .count = counts[n],
                                     .root = roots[ri],
                                     .in_place = in_place,
                                     .misalign = (int)(index & 1) ^ in_place,
                                     .seed = test_data_mix(team->size, index++, 3)};
                    pair_failed |= coll_check_reduce(team, &c);
                    team_harness_log_quiet(pair_failed);
                }
        failed |= pair_failed;
        team_harness_log_quiet(0);
    }
    const size_t big = 200000 / (size_t)team_harness_scale_down() + 5;
    for (size_t k = 0; k < NELEMS(big_pairs); k++) {
        int pair_failed = 0;
        for (int ri = 0; ri < nroots && ri < 2; ri++) {
            coll_case_t c = {.dtype = big_pairs[k].dtype,
                             .op = big_pairs[k].op,
                             .count = big,
                             .root = roots[nroots - 1 - ri],
                             .in_place = ri & 1,
                             .misalign = !(ri & 1),
                             .seed = test_data_mix(team->size, index++, 4)};
            pair_failed |= coll_check_reduce(team, &c);
            team_harness_log_quiet(pair_failed);
        }
        failed |= pair_failed;
        team_harness_log_quiet(0);
    }
    coll_check_print_algorithms(team, "reduce");
    return failed;
}

int main(int argc, char **argv) {
    static const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 13, 16};
    if (test_data_check_layouts()) return 1;
    return team_harness_for_sizes(argc, argv, sizes, NELEMS(sizes), body, NULL, 120.0) != 0;
}
