/* The plan of an allreduce across nodes (group/allreduce_plan.h): the form by size, leaders, step
 * kind and tuning choice; the shares cover every element once; the segments' count and size. */
#include "base/config.h"
#include "check.h"
#include "group/allreduce_plan.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every element is in exactly one channel's share: the channels' totals add up to count, and
 * each is within one element per segment of count / shares. */
static void check_cover(const shmcoll_allreduce_plan_t *plan, size_t count, const char *what) {
    size_t total = 0;
    for (int c = 0; c < plan->shares; c++) {
        const size_t mine = shmcoll_allreduce_plan_channel(plan, count, c);
        const size_t even = count / (size_t)plan->shares;
        CHECK(mine + plan->segments >= even && mine <= even + plan->segments,
              "%s: channel %d has %zu of %zu elements", what, c, mine, count);
        total += mine;
    }
    CHECK(total == count, "%s: shares add up to %zu, want %zu", what, total, count);
    CHECK(shmcoll_allreduce_plan_channel(plan, count, plan->shares) == 0,
          "%s: no channel past the shares", what);
}

int main(void) {
    setenv("SHMCOLL_NET_SPLIT", "64k", 1);
    setenv("SHMCOLL_NET_SEGMENT", "1M", 1);
    shmcoll_config_reload();
    shmcoll_allreduce_plan_t plan;
    const size_t d = sizeof(double);

    /* Below the split: one leader, whatever the leaders and steps. */
    for (int leaders = 1; leaders <= 4; leaders++)
        for (int block = 0; block < 2; block++) {
            shmcoll_allreduce_plan(8191, d, leaders, block, 0, &plan);
            CHECK(plan.form == SHMCOLL_ALLREDUCE_ONE_LEADER && plan.shares == 1 &&
                      plan.segments == 1 && plan.segment == 8191,
                  "8191 doubles, %d leaders: one leader", leaders);
            check_cover(&plan, 8191, "below the split");
        }
    /* One leader per node: one leader at any size. */
    shmcoll_allreduce_plan((size_t)1 << 24, d, 1, 0, 0, &plan);
    CHECK(plan.form == SHMCOLL_ALLREDUCE_ONE_LEADER && plan.segments == 1, "1 leader, 128 MiB");
    /* From the split: shares where steps block, segments where they do not. */
    shmcoll_allreduce_plan(8192, d, 2, 1, 0, &plan);
    CHECK(plan.form == SHMCOLL_ALLREDUCE_SHARES && plan.shares == 2 && plan.segments == 1,
          "64 KiB, 2 leaders, blocking steps: shares");
    check_cover(&plan, 8192, "shares");
    shmcoll_allreduce_plan(2000001, d, 3, 0, 0, &plan);
    CHECK(plan.form == SHMCOLL_ALLREDUCE_SEGMENTS && plan.shares == 3 && plan.segment == 131072 &&
              plan.segments == 16,
          "2000001 doubles, 3 leaders, non-blocking steps: 16 segments of 1 MiB, got %zu of %zu",
          plan.segments, plan.segment);
    check_cover(&plan, 2000001, "segments");
    /* Tuning choices: one leader, shares or segments asked for; shares need two leaders. */
    shmcoll_allreduce_plan(100, d, 2, 0, SHMCOLL_ALLREDUCE_SHARES + 1, &plan);
    CHECK(plan.form == SHMCOLL_ALLREDUCE_SHARES && plan.shares == 2,
          "shares asked for: shares, even below the split");
    check_cover(&plan, 100, "asked shares");
    shmcoll_allreduce_plan(1 << 20, d, 2, 1, SHMCOLL_ALLREDUCE_SEGMENTS + 1, &plan);
    CHECK(plan.form == SHMCOLL_ALLREDUCE_SEGMENTS && plan.segments == 8,
          "segments asked for with blocking steps: segments");
    shmcoll_allreduce_plan(1 << 20, d, 4, 1, SHMCOLL_ALLREDUCE_ONE_LEADER + 1, &plan);
    CHECK(plan.form == SHMCOLL_ALLREDUCE_ONE_LEADER, "one leader asked for: one leader");
    shmcoll_allreduce_plan(1 << 20, d, 1, 1, SHMCOLL_ALLREDUCE_SHARES + 1, &plan);
    CHECK(plan.form == SHMCOLL_ALLREDUCE_ONE_LEADER, "shares with one leader: one leader");
    /* A share that does not fit an int: segments even where steps block. */
    shmcoll_allreduce_plan((size_t)INT_MAX * 2 + 10, 1, 2, 1, 0, &plan);
    CHECK(plan.form == SHMCOLL_ALLREDUCE_SEGMENTS, "shares past INT_MAX: segments");
    CHECK(!strcmp(shmcoll_allreduce_form_name(SHMCOLL_ALLREDUCE_SHARES), "shares"), "names");

    printf("test_allreduce_plan: %ld checks, %ld failed\n", check_total(), check_failures());
    return check_failures() != 0;
}
