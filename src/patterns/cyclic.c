/* Cyclic shift arithmetic and its default factorisation; see cyclic.h. */
#include "patterns/cyclic.h"

static long long ceil_div(long long a, long long b) {
    return (a + b - 1) / b;
}

shmcoll_status_t shmcoll_pattern_cyclic_factorise(int p, int max_radix,
                                                  shmcoll_pattern_radix_t *f) {
    if (p < 1 || max_radix < 2) return SHMCOLL_ERR_INVALID;
    f->nsteps = 0;
    if (p == 1) return SHMCOLL_OK;
    int steps = 0;
    for (long long reach = 1; reach < p; reach *= max_radix) steps++;
    if (steps == 1) {
        f->radix[f->nsteps++] = p;
        return SHMCOLL_OK;
    }
    /* Smallest uniform radix that reaches p in that many steps: r <= max_radix, and since
     * max_radix^(steps-1) < p every prefix r^i (i < steps) stays below p. */
    int r = 2;
    for (;; r++) {
        long long reach = 1;
        for (int i = 0; i < steps; i++) reach *= r;
        if (reach >= p) break;
    }
    long long prefix = 1;
    for (int i = 0; i < steps - 1; i++) {
        f->radix[f->nsteps++] = r;
        prefix *= r;
    }
    f->radix[f->nsteps++] = (int)ceil_div(p, prefix);
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_pattern_cyclic_check(int p, const shmcoll_pattern_radix_t *f) {
    if (p < 1 || f->nsteps < 0 || f->nsteps > SHMCOLL_PATTERN_MAX_STEPS) return SHMCOLL_ERR_INVALID;
    if (p == 1) return f->nsteps == 0 ? SHMCOLL_OK : SHMCOLL_ERR_INVALID;
    if (f->nsteps == 0) return SHMCOLL_ERR_INVALID;
    long long prefix = 1;
    for (int j = 0; j < f->nsteps - 1; j++) {
        if (f->radix[j] < 2) return SHMCOLL_ERR_INVALID;
        prefix *= f->radix[j];
        if (prefix >= p) return SHMCOLL_ERR_INVALID;
    }
    return f->radix[f->nsteps - 1] == ceil_div(p, prefix) ? SHMCOLL_OK : SHMCOLL_ERR_INVALID;
}

/* After the steps of product `prefix`: either the one radix that makes the product reach p (the
 * last step), or, ascending, one that leaves it below p. */
static int next_radix(int p, long long prefix, int max_radix, int previous) {
    const long long last = ceil_div(p, prefix);
    if (previous == 0 && last <= max_radix) return (int)last;
    const int radix = previous == 0 || previous == last ? 2 : previous + 1;
    return radix <= max_radix && prefix * radix < p ? radix : 0;
}

long shmcoll_pattern_cyclic_enumerate(int p, int max_radix,
                                      void (*fn)(const shmcoll_pattern_radix_t *f, void *ctx),
                                      void *ctx) {
    return shmcoll_pattern_radix_enumerate(p, max_radix, next_radix, fn, ctx);
}

int shmcoll_pattern_cyclic_stride(const shmcoll_pattern_radix_t *f, int step) {
    return (int)shmcoll_pattern_radix_prefix(f, step);
}

int shmcoll_pattern_cyclic_window(int p, const shmcoll_pattern_radix_t *f, int steps) {
    long long prefix = shmcoll_pattern_radix_prefix(f, steps);
    return (int)(prefix < p ? prefix : p);
}

int shmcoll_pattern_cyclic_ahead(int p, const shmcoll_pattern_radix_t *f, int step, int d,
                                 int rank) {
    long long offset = (long long)d * shmcoll_pattern_cyclic_stride(f, step);
    return (int)((rank + offset) % p);
}

int shmcoll_pattern_cyclic_behind(int p, const shmcoll_pattern_radix_t *f, int step, int d,
                                  int rank) {
    long long offset = (long long)d * shmcoll_pattern_cyclic_stride(f, step);
    return (int)(((rank - offset) % p + p) % p);
}

int shmcoll_pattern_cyclic_count(int p, const shmcoll_pattern_radix_t *f, int step, int d) {
    long long stride = shmcoll_pattern_cyclic_stride(f, step), rest = p - d * stride;
    return (int)(rest < stride ? rest : stride);
}
