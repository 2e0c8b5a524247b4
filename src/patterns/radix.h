/* A factorisation of a team size p into per-step radices, shared by the multi-radix patterns
 * (recursive exchange, cyclic shift). Step j of a pattern involves radix[j] ranks per group and
 * has stride radix[0] * ... * radix[j-1]. Jocksch et al. call these "factors"; the name
 * multi-radix says that each step may use a different one (section 2 of their paper).
 *
 * The radices are always listed in the order of the allgather (forward) direction, from the
 * smallest stride to the largest; reduce-scatter phases walk them in reverse. */
#ifndef SHMCOLL_PATTERNS_RADIX_H
#define SHMCOLL_PATTERNS_RADIX_H

#include "base/status.h"

#include <stddef.h>

/* Every radix is >= 2 and every prefix product is < p <= INT_MAX, so 32 steps always suffice. */
#define SHMCOLL_PATTERN_MAX_STEPS 32

/* Largest radix the default factorisations use: 2..8 peers per step keeps every step's reads
 * within a few cache lines of flags while taking few steps (seed: factors 2..8 in Table 1). */
#define SHMCOLL_PATTERN_MAX_RADIX_DEFAULT 8

typedef struct shmcoll_pattern_radix {
    int nsteps;
    int radix[SHMCOLL_PATTERN_MAX_STEPS];
} shmcoll_pattern_radix_t;

/* Product of radix[0 .. steps-1] (1 for steps = 0). */
long long shmcoll_pattern_radix_prefix(const shmcoll_pattern_radix_t *f, int steps);

/* Largest radix (1 when there are no steps): a radix above the caller's limit means the team size
 * has a prime factor that large. */
int shmcoll_pattern_radix_largest(const shmcoll_pattern_radix_t *f);

/* The radices a pattern lets follow the steps taken so far, whose product is `prefix` (< p), one
 * at a time in the order they are tried: the first for previous = 0, else the one after
 * `previous`; 0 after the last. */
typedef int (*shmcoll_pattern_radix_next_fn)(int p, long long prefix, int max_radix, int previous);

/* The factorisations of p a pattern allows, depth first: every sequence of radices in
 * [2, max_radix] that `next` allows, step by step, until the product reaches p (that sequence is
 * one; at most SHMCOLL_PATTERN_MAX_STEPS steps). Calls fn (unless NULL) for each and returns how
 * many there are; 0 for p < 1 or max_radix < 2. The patterns' enumerations for a tuner. */
long shmcoll_pattern_radix_enumerate(int p, int max_radix, shmcoll_pattern_radix_next_fn next,
                                     void (*fn)(const shmcoll_pattern_radix_t *f, void *ctx),
                                     void *ctx);

/* "4,2" (empty for no steps); truncated to len. */
void shmcoll_pattern_radix_format(const shmcoll_pattern_radix_t *f, char *text, size_t len);

/* Parses "4,2" (or "4x2"); INVALID on anything else, a radix < 2 or too many steps. The result
 * still has to pass the check of the pattern it is meant for. */
shmcoll_status_t shmcoll_pattern_radix_parse(const char *text, shmcoll_pattern_radix_t *f);

#endif
