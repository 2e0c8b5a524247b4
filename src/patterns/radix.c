/* Helpers common to the multi-radix factorisations. */
#include "patterns/radix.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

long long shmcoll_pattern_radix_prefix(const shmcoll_pattern_radix_t *f, int steps) {
    long long product = 1;
    for (int j = 0; j < steps; j++) product *= f->radix[j];
    return product;
}

int shmcoll_pattern_radix_largest(const shmcoll_pattern_radix_t *f) {
    int largest = 1;
    for (int j = 0; j < f->nsteps; j++)
        if (f->radix[j] > largest) largest = f->radix[j];
    return largest;
}

static long walk(shmcoll_pattern_radix_t *f, int p, long long prefix, int max_radix,
                 shmcoll_pattern_radix_next_fn next,
                 void (*fn)(const shmcoll_pattern_radix_t *, void *), void *ctx) {
    if (prefix >= p) {
        if (fn) fn(f, ctx);
        return 1;
    }
    if (f->nsteps == SHMCOLL_PATTERN_MAX_STEPS) return 0;
    long count = 0;
    for (int radix = next(p, prefix, max_radix, 0); radix;
         radix = next(p, prefix, max_radix, radix)) {
        f->radix[f->nsteps++] = radix;
        count += walk(f, p, prefix * radix, max_radix, next, fn, ctx);
        f->nsteps--;
    }
    return count;
}

long shmcoll_pattern_radix_enumerate(int p, int max_radix, shmcoll_pattern_radix_next_fn next,
                                     void (*fn)(const shmcoll_pattern_radix_t *f, void *ctx),
                                     void *ctx) {
    if (p < 1 || max_radix < 2) return 0;
    shmcoll_pattern_radix_t f = {.nsteps = 0};
    return walk(&f, p, 1, max_radix, next, fn, ctx);
}

void shmcoll_pattern_radix_format(const shmcoll_pattern_radix_t *f, char *text, size_t len) {
    size_t used = 0;
    if (len == 0) return;
    text[0] = '\0';
    for (int j = 0; j < f->nsteps && used < len; j++) {
        int n = snprintf(text + used, len - used, j ? ",%d" : "%d", f->radix[j]);
        if (n < 0) break;
        used += (size_t)n;
    }
}

shmcoll_status_t shmcoll_pattern_radix_parse(const char *text, shmcoll_pattern_radix_t *f) {
    f->nsteps = 0;
    const char *s = text;
    while (*s) {
        if (f->nsteps == SHMCOLL_PATTERN_MAX_STEPS) return SHMCOLL_ERR_INVALID;
        char *end;
        errno = 0;
        long radix = strtol(s, &end, 10);
        if (end == s || errno || radix < 2 || radix > 1 << 30) return SHMCOLL_ERR_INVALID;
        f->radix[f->nsteps++] = (int)radix;
        s = end;
        if (*s == ',' || *s == 'x') {
            s++;
            if (!*s) return SHMCOLL_ERR_INVALID; /* trailing separator */
        } else if (*s) {
            return SHMCOLL_ERR_INVALID;
        }
    }
    return SHMCOLL_OK;
}
