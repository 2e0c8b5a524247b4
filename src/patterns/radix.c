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
