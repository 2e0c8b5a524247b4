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

static long enumerate(shmcoll_pattern_radix_t *f, int p, long long prefix, int max_radix,
                      void (*fn)(const shmcoll_pattern_radix_t *, void *), void *ctx) {
    if (f->nsteps == SHMCOLL_PATTERN_MAX_STEPS) return 0;
    long count = 0;
    /* Either finish with the one radix that makes the product reach p ... */
    long long last = ceil_div(p, prefix);
    if (last <= max_radix) {
        f->radix[f->nsteps++] = (int)last;
        if (fn) fn(f, ctx);
        count++;
        f->nsteps--;
    }
    /* ... or take a radix that leaves the product below p and continue. */
    for (int radix = 2; radix <= max_radix && prefix * radix < p; radix++) {
        f->radix[f->nsteps++] = radix;
        count += enumerate(f, p, prefix * radix, max_radix, fn, ctx);
        f->nsteps--;
    }
    return count;
}

long shmcoll_pattern_cyclic_enumerate(int p, int max_radix,
                                      void (*fn)(const shmcoll_pattern_radix_t *f, void *ctx),
                                      void *ctx) {
    if (p < 1 || max_radix < 2) return 0;
    shmcoll_pattern_radix_t f = {.nsteps = 0};
    if (p == 1) {
        if (fn) fn(&f, ctx);
        return 1;
    }
    return enumerate(&f, p, 1, max_radix, fn, ctx);
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
