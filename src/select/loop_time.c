/* The loop check's time per call. See loop_time.h. */
#include "select/loop_time.h"

#include <stdlib.h>

static int double_order(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int broken(const uint64_t *breaks, uint32_t i) {
    return (int)(breaks[i / 64] >> (i % 64) & 1);
}

double shmcoll_loop_median(double *values, uint32_t n) {
    qsort(values, n, sizeof *values, double_order);
    return values[(n - 1) / 2];
}

double shmcoll_loop_time(const double *stamps, const uint64_t *breaks, uint32_t n, uint32_t warm,
                         double outlier, uint32_t recovery, uint32_t *counted) {
    *counted = 0;
    const uint32_t first = warm > 1 ? warm : 1; /* the stamp the first counted period ends at */
    if (n <= first) return 0;
    double sorted[n - first];
    uint32_t m = 0;
    for (uint32_t i = first; i < n; i++)
        if (!broken(breaks, i)) sorted[m++] = stamps[i] - stamps[i - 1];
    if (m == 0) return 0;
    const double limit = outlier * shmcoll_loop_median(sorted, m);
    double sum = 0;
    uint32_t skip = 0; /* periods still to leave out after a pause */
    for (uint32_t i = first; i < n; i++) {
        const double period = stamps[i] - stamps[i - 1];
        if (broken(breaks, i) || period > limit) {
            skip = recovery;
        } else if (skip) {
            skip--;
        } else {
            sum += period;
            ++*counted;
        }
    }
    return *counted ? sum / *counted : 0;
}
