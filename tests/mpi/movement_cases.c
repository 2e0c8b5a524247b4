/* Data-movement test cases. See movement_cases.h. */
#include "movement_cases.h"
#include "mpi_check.h"

#include <stdlib.h>

double movement_value(int from, int to, size_t k, int salt) {
    return (double)(check_hash(from * 4099 + to + 1, k, salt) % 1000003);
}

size_t movement_count(size_t n, int j, int salt) {
    unsigned u = (unsigned)(j + salt);
    return u % 3 == 1 ? 0 : n + (u * 7) % 5;
}

size_t movement_uneven(size_t n, int p, int salt, size_t *counts, size_t *displs) {
    size_t at = 0;
    for (int j = p - 1; j >= 0; j--) {
        counts[j] = movement_count(n, j, salt);
        at += MOVEMENT_GAP;
        displs[j] = at;
        at += counts[j];
    }
    return at;
}

size_t movement_uniform(size_t n, int p, size_t *counts, size_t *displs) {
    for (int j = 0; j < p; j++) counts[j] = n, displs[j] = (size_t)j * n;
    return (size_t)p * n;
}

void movement_fill(double *buf, size_t total, int p, const size_t *counts, const size_t *displs,
                   int from, int salt) {
    for (size_t i = 0; i < total; i++) buf[i] = MOVEMENT_SENTINEL;
    for (int j = 0; j < p; j++)
        for (size_t k = 0; k < counts[j]; k++)
            buf[displs[j] + k] = movement_value(from, j, k, salt);
}

void movement_fill_received(double *buf, size_t total, int p, const size_t *counts,
                            const size_t *displs, int to, const int *present, int salt) {
    for (size_t i = 0; i < total; i++) buf[i] = MOVEMENT_SENTINEL;
    for (int j = 0; j < p; j++)
        if (!present || present[j])
            for (size_t k = 0; k < counts[j]; k++)
                buf[displs[j] + k] = movement_value(j, to, k, salt);
}

int movement_check(const double *buf, size_t total, int p, const size_t *counts,
                   const size_t *displs, int to, int salt, const char *what) {
    char *covered = calloc(total ? total : 1, 1);
    int ok = 1;
    for (int j = 0; j < p && ok; j++)
        for (size_t k = 0; k < counts[j] && ok; k++) {
            covered[displs[j] + k] = 1;
            ok = CHECK(buf[displs[j] + k] == movement_value(j, to, k, salt),
                       "%s: block %d element %zu is %g, expected %g", what, j, k,
                       buf[displs[j] + k], movement_value(j, to, k, salt));
        }
    for (size_t i = 0; i < total && ok; i++)
        if (!covered[i])
            ok = CHECK(buf[i] == MOVEMENT_SENTINEL, "%s: element %zu outside the blocks written",
                       what, i);
    free(covered);
    return ok;
}

int movement_check_one(const double *buf, size_t n, int from, int to, int salt, const char *what) {
    for (size_t k = 0; k < n; k++)
        if (!CHECK(buf[k] == movement_value(from, to, k, salt),
                   "%s: element %zu is %g, expected %g", what, k, buf[k],
                   movement_value(from, to, k, salt)))
            return 0;
    return 1;
}

movement_args_t movement_args(const size_t *counts, const size_t *displs, int p, int large) {
    movement_args_t a;
    if (large) {
        MPI_Count *c = check_alloc((size_t)p * sizeof *c);
        MPI_Aint *d = check_alloc((size_t)p * sizeof *d);
        for (int j = 0; j < p; j++) c[j] = (MPI_Count)counts[j], d[j] = (MPI_Aint)displs[j];
        a.counts = c, a.displs = d;
    } else {
        int *c = check_alloc((size_t)p * sizeof *c), *d = check_alloc((size_t)p * sizeof *d);
        for (int j = 0; j < p; j++) c[j] = (int)counts[j], d[j] = (int)displs[j];
        a.counts = c, a.displs = d;
    }
    return a;
}

void movement_args_free(movement_args_t *a) {
    free(a->counts);
    free(a->displs);
    a->counts = a->displs = NULL;
}
