/* Multi-radix recursive exchange (Jocksch et al., section 2.1): a butterfly whose step j joins
 * groups of radix[j] ranks, with radix[0] * ... * radix[n-1] = p exactly.
 *
 * Write rank r in mixed radix with the least significant digit in base radix[0]: digit j is
 * (r / stride_j) mod radix[j], stride_j = radix[0] * ... * radix[j-1]. The group of r at step j is
 * the radix[j] ranks that differ from r only in digit j, i.e. base + d * stride_j for d in
 * [0, radix[j]). Step 0 therefore joins consecutive ranks (the closest ones under a linear
 * mapping), and the last step joins the farthest ones when the least data is left to move.
 *
 * Reduce-scatter runs steps 0 .. n-1. The vector is cut into p blocks; before step j all members
 * of a group hold the same block range (it depends only on digits 0..j-1), the step cuts it into
 * radix[j] equal parts, and member d gets part d reduced over the group in ascending d. Because
 * the partial results of step j-1 cover contiguous rank intervals, folding the group in ascending
 * d concatenates them: after step j each partial result is x_b op ... op x_(b+stride_(j+1)-1) for
 * the group's base b, so the final result is in canonical order x_0 op ... op x_(p-1). This is
 * what makes the pattern safe for non-commutative operations. After the last step rank r holds
 * one block, the digit-reversal of r. Allgather runs the steps backwards (n-1 .. 0): step j gives
 * every member the union of its group's ranges, undoing reduce-scatter step j.
 *
 * p with a prime factor q above the radix limit can still be factorised, with q as one radix (a
 * q-way step); the paper then prefers cyclic shift (commutative operations) or another
 * algorithm, so the default factorisation reports it and the caller decides. */
#ifndef SHMCOLL_PATTERNS_RECEXCH_H
#define SHMCOLL_PATTERNS_RECEXCH_H

#include "patterns/radix.h"

/* Default factorisation of p: the fewest steps with radices <= max_radix (prime factors above
 * max_radix become radices of their own), then the smallest largest radix, listed in descending
 * order so the widest step joins the closest ranks. p = 1 gives no steps. INVALID if p < 1 or
 * max_radix < 2. */
shmcoll_status_t shmcoll_pattern_recexch_factorise(int p, int max_radix,
                                                   shmcoll_pattern_radix_t *f);

/* OK if f is a recursive-exchange factorisation of p: every radix >= 2, product == p. */
shmcoll_status_t shmcoll_pattern_recexch_check(int p, const shmcoll_pattern_radix_t *f);

/* Calls fn for every ordered factorisation of p with radices in [2, max_radix] (for a tuner to
 * try them all); returns how many there are. */
long shmcoll_pattern_recexch_enumerate(int p, int max_radix,
                                       void (*fn)(const shmcoll_pattern_radix_t *f, void *ctx),
                                       void *ctx);

/* The group of rank at step j in fold order: writes radix[j] ranks to members and returns rank's
 * digit (its position among them). */
int shmcoll_pattern_recexch_group(const shmcoll_pattern_radix_t *f, int step, int rank,
                                  int *members);

/* Blocks (out of p) rank holds after the first `steps` reduce-scatter steps, 0 <= steps <= n:
 * [*first, *first + *count). steps = 0 is the whole vector, steps = n the one final block. */
void shmcoll_pattern_recexch_blocks(const shmcoll_pattern_radix_t *f, int steps, int rank,
                                    int *first, int *count);

#endif
