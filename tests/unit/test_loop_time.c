/* The loop check's time per call (select/loop_time.h) on stamps built here: a steady loop gives
 * its period; a pause and the two periods after it, in which the ranks come back, are left out; a
 * stall every few calls, which a loop of the MPI library's eager sends has, stays in; a period
 * that holds an unstamped call (a break) goes with the two after it; the warm-up's periods are not
 * counted; nothing left gives 0. The median (the barrier's release order takes it over calls): one
 * slow call does not move it, as it moved a mean. */
#include "check.h"
#include "select/loop_time.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define N 128

static double stamps[N];
static uint64_t breaks[N / 64];

/* Stamps whose periods are `period` each, but `at` (the period that ends at stamp `at`), which is
 * `odd`, and the next two, `after` each. */
static void build(double period, uint32_t at, double odd, double after) {
    stamps[0] = 10.0;
    for (uint32_t i = 1; i < N; i++) {
        double p = period;
        if (i == at) p = odd;
        if (i == at + 1 || i == at + 2) p = after;
        stamps[i] = stamps[i - 1] + p;
    }
    breaks[0] = breaks[1] = 0;
}

static int near(double a, double b) {
    return fabs(a - b) < 1e-9 * (fabs(b) + 1);
}

int main(void) {
    uint32_t counted;

    build(1.0, N, 0, 0); /* steady: no odd period */
    double t = shmcoll_loop_time(stamps, breaks, N, 0, 32, 2, &counted);
    CHECK(near(t, 1.0) && counted == N - 1, "steady: %g over %u", t, counted);

    /* a pause of 100 periods and a recovery of 5 and 3 after it: all three left out */
    build(1.0, 40, 100.0, 5.0);
    stamps[42] = stamps[41] + 3.0;
    for (uint32_t i = 43; i < N; i++) stamps[i] = stamps[i - 1] + 1.0;
    t = shmcoll_loop_time(stamps, breaks, N, 0, 32, 2, &counted);
    CHECK(near(t, 1.0) && counted == N - 4, "pause: %g over %u", t, counted);
    /* without the recovery left out, the mean holds it */
    t = shmcoll_loop_time(stamps, breaks, N, 0, 32, 0, &counted);
    CHECK(near(t, (N - 4 + 5.0 + 3.0) / (N - 2)) && counted == N - 2, "no recovery: %g over %u", t,
          counted);

    /* a stall of 4 periods every 8th: the collective's own, kept */
    stamps[0] = 0;
    for (uint32_t i = 1; i < N; i++) stamps[i] = stamps[i - 1] + (i % 8 == 0 ? 4.0 : 1.0);
    t = shmcoll_loop_time(stamps, breaks, N, 0, 32, 2, &counted);
    double sum = stamps[N - 1] - stamps[0];
    CHECK(near(t, sum / (N - 1)) && counted == N - 1, "stalls: %g, not %g, over %u", t,
          sum / (N - 1), counted);

    /* a break at stamp 70 (a call with other arguments and a barrier lie in its period, 12 times
     * a call's: no outlier) and stamp 100: each period and the two after it go */
    build(1.0, 70, 12.0, 1.0);
    shmcoll_loop_break(breaks, 70);
    shmcoll_loop_break(breaks, 100);
    t = shmcoll_loop_time(stamps, breaks, N, 0, 32, 2, &counted);
    CHECK(near(t, 1.0) && counted == N - 1 - 6, "breaks: %g over %u", t, counted);

    /* a warm-up of 32 periods at twice the pace's: left out with warm = 32, the rest is the pace */
    stamps[0] = 0;
    for (uint32_t i = 1; i < N; i++) stamps[i] = stamps[i - 1] + (i < 32 ? 2.0 : 1.0);
    breaks[0] = breaks[1] = 0;
    t = shmcoll_loop_time(stamps, breaks, N, 32, 32, 2, &counted);
    CHECK(near(t, 1.0) && counted == N - 32, "warm-up: %g over %u", t, counted);
    t = shmcoll_loop_time(stamps, breaks, N, 0, 32, 2, &counted);
    CHECK(near(t, (N - 1 + 31.0) / (N - 1)) && counted == N - 1, "warm-up counted: %g over %u", t,
          counted);
    t = shmcoll_loop_time(stamps, breaks, N, N, 32, 2, &counted);
    CHECK(t == 0 && counted == 0, "all warm-up: %g over %u", t, counted);

    /* every period a break, or fewer than two stamps: nothing to tell */
    breaks[0] = breaks[1] = ~(uint64_t)0;
    t = shmcoll_loop_time(stamps, breaks, N, 0, 32, 2, &counted);
    CHECK(t == 0 && counted == 0, "all breaks: %g over %u", t, counted);
    breaks[0] = breaks[1] = 0;
    t = shmcoll_loop_time(stamps, breaks, 1, 0, 32, 2, &counted);
    CHECK(t == 0 && counted == 0, "one stamp: %g over %u", t, counted);

    /* leads of 0.3 over 15 calls and one of 5000 (a preempted rank): the median stays 0.3 */
    double leads[16];
    for (int i = 0; i < 16; i++) leads[i] = i == 5 ? 5000.0 : 0.3;
    double median = shmcoll_loop_median(leads, 16);
    CHECK(near(median, 0.3), "median with an outlier: %g", median);
    const double odd[3] = {3.0, -1.0, 2.0}, even[4] = {4.0, 1.0, 3.0, 2.0};
    double v[4];
    memcpy(v, odd, sizeof odd);
    median = shmcoll_loop_median(v, 3);
    CHECK(near(median, 2.0), "median of 3: %g", median);
    memcpy(v, even, sizeof even);
    median = shmcoll_loop_median(v, 4);
    CHECK(near(median, 2.0), "median of 4 (the lower middle): %g", median);

    printf("test_loop_time: %ld checks, %ld failures\n", check_total(), check_failures());
    return check_failures() != 0;
}
