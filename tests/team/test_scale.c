/* Large and prime team sizes, oversubscribed far beyond the CPUs: p in {32, 61, 64}, a few cheap
 * cases each (allreduce of 1000 elements, reduce to the last rank, broadcasts), so waits that do
 * not yield, p-dependent arithmetic (part sizes, roots) and the bootstrap at scale are covered.
 * Team sizes may be given on the command line. */
#include "select/team_coll.h"
#include "coll_check.h"
#include "team_harness.h"
#include "test_data.h"

#include <stdio.h>

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

static int body(shmcoll_team_t *team, void *arg) {
    const int p = team->size;
    const coll_case_t cases[] = {
        {SHMCOLL_DT_INT32, SHMCOLL_OP_SUM, 1000, 0, 0, 0, test_data_mix(p, 1, 10)},
        {SHMCOLL_DT_DOUBLE_INT, SHMCOLL_OP_MAXLOC, 1000, 0, 1, 1, test_data_mix(p, 2, 10)},
        {SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM, 20000, 0, 0, 0, test_data_mix(p, 3, 10)},
    };
    int failed = 0;
    for (size_t i = 0; i < NELEMS(cases); i++) failed |= coll_check_allreduce(team, &cases[i]);
    coll_case_t r = cases[0];
    r.root = p - 1;
    failed |= coll_check_reduce(team, &r);
    const size_t bytes[] = {1, 100000};
    for (size_t i = 0; i < NELEMS(bytes); i++) {
        coll_case_t c = {
            .count = bytes[i], .root = (int)(p / 2 + i) % p, .seed = test_data_mix(p, 4 + i, 10)};
        failed |= coll_check_bcast(team, &c);
    }
    shmcoll_status_t status = shmcoll_barrier(team);
    if (status != SHMCOLL_OK) {
        team_harness_log("barrier returned %s (%s)", shmcoll_status_string(status), team->error);
        failed = 1;
    }
    coll_check_print_algorithms(team, "all");
    return failed;
}

int main(int argc, char **argv) {
    static const int sizes[] = {32, 61, 64};
    return team_harness_for_sizes(argc, argv, sizes, NELEMS(sizes), body, NULL, 120.0) != 0;
}
