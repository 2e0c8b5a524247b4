/* Allreduce over teams of forked processes: p in {1,2,3,4,5,7,8,13,16} x counts {0,1,7,1000,5000} x
 * a spread of (type, op) pairs covering every type class (integers of every width, C _Bool,
 * float/double/long double, complex, every MINLOC/MAXLOC pair type incl. SHORT_INT whose size 6
 * differs from its extent 8) x in-place and not x aligned and misaligned buffers; then a count
 * that needs many pipeline chunks (200000 doubles = 1.6 MB over the default 256 KiB chunk) for a
 * few pairs. Results are compared with the scalar oracle's rank-order fold and must be bitwise
 * identical on every member. Team sizes may be given on the command line. */
#include "coll_check.h"
#include "team_harness.h"
#include "test_data.h"

#include <stdio.h>

/* Pairs run at the many-chunk count (the reference costs p * count per case). */
static const coll_pair_t big_pairs[] = {
    {SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM},
    {SHMCOLL_DT_INT32, SHMCOLL_OP_SUM},
    {SHMCOLL_DT_SHORT_INT, SHMCOLL_OP_MINLOC},
    {SHMCOLL_DT_LONG_DOUBLE_COMPLEX, SHMCOLL_OP_SUM},
};

#define NPAIRS(a) (sizeof(a) / sizeof((a)[0]))
/* After a pair failed on this member, its remaining cases still run (every member must call the
 * same collectives) but silently; the other pairs report again, so one bug does not hide another.
 */
static int body(shmcoll_team_t *team, void *arg) {
    static const size_t counts[] = {0, 1, 7, 1000, 5000};
    int failed = 0;
    uint64_t index = 0;
    for (int k = 0; k < coll_check_npairs; k++) {
        int pair_failed = 0;
        for (size_t n = 0; n < NPAIRS(counts); n++)
            for (int in_place = 0; in_place < 2; in_place++) {
                coll_case_t c = {.dtype = coll_check_pairs[k].dtype,
                                 .op = coll_check_pairs[k].op,
                                 .count = counts[n],
                                 .in_place = in_place,
                                 .misalign = (int)(index & 1) ^ in_place,
                                 .seed = test_data_mix(team->size, index++, 1)};
                pair_failed |= coll_check_allreduce(team, &c);
                team_harness_log_quiet(pair_failed);
            }
        failed |= pair_failed;
        team_harness_log_quiet(0);
    }
    const size_t big = 200000 / (size_t)team_harness_scale_down() + 3;
    for (size_t k = 0; k < NPAIRS(big_pairs); k++) {
        int pair_failed = 0;
        for (int in_place = 0; in_place < 2; in_place++) {
            coll_case_t c = {.dtype = big_pairs[k].dtype,
                             .op = big_pairs[k].op,
                             .count = big,
                             .in_place = in_place,
                             .misalign = in_place,
                             .seed = test_data_mix(team->size, index++, 2)};
            pair_failed |= coll_check_allreduce(team, &c);
            team_harness_log_quiet(pair_failed);
        }
        failed |= pair_failed;
        team_harness_log_quiet(0);
    }
    coll_check_print_algorithms(team, "allreduce");
    return failed;
}

int main(int argc, char **argv) {
    static const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 13, 16};
    if (test_data_check_layouts()) return 1;
    return team_harness_for_sizes(argc, argv, sizes, NPAIRS(sizes), body, NULL, 120.0) != 0;
}
