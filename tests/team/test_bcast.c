/* Broadcast of arbitrary bytes over teams of forked processes: p in {1,2,3,4,5,7,8,13,16} x
 * roots (every rank for p <= 5, else {0, p-1, p/2}) x sizes {0, 1, 7, 63, 64, 65 (around the
 * inline limit of a flag line), 1000, 4097, and 1.6 MB + 3 (many pipeline chunks, odd)} x aligned
 * and odd-offset buffers. Every member compares the whole buffer with the root's pattern and checks
 * that the bytes around it are untouched. Back-to-back without harness synchronisation, so a root
 * that reuses a slot too early corrupts the next broadcast. Then the same cases single-copy
 * (SHMCOLL_CMA=all, SHMCOLL_CMA_MIN=1, SHMCOLL_TUNE=bcast:@single-copy): every non-empty bcast must
 * have moved single-copy where the kernel allows it. Team sizes may be given on the command
 * line. */
#include "coll_check.h"
#include "team_harness.h"
#include "test_data.h"

#include <stdio.h>
#include <string.h>

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

static int body(shmcoll_team_t *team, void *arg) {
    const size_t big = (size_t)1600000 / (size_t)team_harness_scale_down() + 3;
    const size_t sizes[] = {0, 1, 7, 63, 64, 65, 1000, 4097, big};
    int roots[8], nroots = coll_check_roots(team->size, roots);
    int failed = 0;
    uint64_t index = 0;
    for (int ri = 0; ri < nroots; ri++)
        for (size_t n = 0; n < NELEMS(sizes); n++)
            for (int misalign = 0; misalign < 2; misalign++) {
                coll_case_t c = {.count = sizes[n],
                                 .root = roots[ri],
                                 .misalign = misalign,
                                 .seed = test_data_mix(team->size, index++, 5)};
                failed |= coll_check_bcast(team, &c);
                if (arg && team->cma && team->size > 1 && c.count &&
                    strcmp(team->last_algo, "single-copy")) {
                    team_harness_log("bcast of %zu bytes: algorithm %s, not single-copy", c.count,
                                     team->last_algo);
                    failed = 1;
                }
                team_harness_log_quiet(failed); /* the first failure says it all */
            }
    team_harness_log_quiet(0);
    coll_check_print_algorithms(team, "bcast");
    return failed;
}

int main(int argc, char **argv) {
    static const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 13, 16};
    static const char *const single_copy[] = {"SHMCOLL_CMA=all", "SHMCOLL_CMA_MIN=1",
                                              "SHMCOLL_TUNE=bcast:@single-copy", NULL};
    int failed = team_harness_for_sizes(argc, argv, sizes, NELEMS(sizes), body, NULL, 120.0);
    printf("bcast single-copy:\n");
    const team_harness_spec_t spec = {
        .body = body, .arg = (void *)single_copy, .timeout_s = 120.0, .env = single_copy};
    failed |= team_harness_for_sizes_spec(argc, argv, sizes, NELEMS(sizes), &spec);
    return failed != 0;
}
