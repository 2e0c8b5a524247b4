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

double shmcoll_loop_time(const double *stamps, const uint64_t *breaks, uint32_t n, double outlier,
                         uint32_t recovery, uint32_t *counted) {
    *counted = 0;
    if (n < 2) return 0;
    double sorted[n - 1];
    uint32_t m = 0;
    for (uint32_t i = 1; i < n; i++)
        if (!broken(breaks, i)) sorted[m++] = stamps[i] - stamps[i - 1];
    if (m == 0) return 0;
    qsort(sorted, m, sizeof *sorted, double_order);
    const double limit = outlier * sorted[(m - 1) / 2];
    double sum = 0;
    uint32_t skip = 0; /* periods still to leave out after a pause */
    for (uint32_t i = 1; i < n; i++) {
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
