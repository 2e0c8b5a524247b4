/* Multi-radix cyclic shift (Jocksch et al., section 2.2; Bruck and Ho's index algorithm without the
 * rotation of the vector before and after): a reduce-scatter and an allgather for ANY p, primes
 * included, for commutative operations only (contributions arrive in rotated order).
 *
 * The vector is cut into p blocks. Rank r's "window" after a number of allgather steps is the
 * blocks r, r+1, ..., r+w-1 (mod p), w = min(stride, p), where stride is the product of the
 * radices of the steps done. Allgather step j (forward order, stride s = stride_j, radix f):
 * for d = 1 .. f-1 rank r reads from peer r + d*s (mod p) that peer's window prefix of
 * min(s, p - d*s) blocks, i.e. blocks r + d*s ... , so its window grows to min(s*f, p). Starting
 * from block r alone, the last step completes all p blocks. The product of the radices may
 * exceed p (e.g. 2,2,2 for p = 7): the last step then reads shorter pieces from some peers.
 *
 * Reduce-scatter is the same data flow reversed, steps n-1 .. 0 (the paper: the factors are
 * reversed for reduce_scatter): before step j rank r holds partial sums for the window of blocks
 * r ... r + min(s*f, p) - 1; it hands the piece of min(s, p - d*s) blocks starting at r + d*s to
 * peer r + d*s, and adds the pieces received from peers r - d*s (all for blocks r ... ) into its
 * own, so its window shrinks to min(s, p). After step 0 rank r holds block r fully reduced, each
 * contribution counted exactly once (the mixed-radix digits of the distance are unique).
 *
 * A factorisation is valid when every step does something: each prefix product before the last
 * step is < p and the last radix is exactly ceil(p / prefix). For p = 8 and radices up to 8 that
 * gives the paper's ten options {2,2,2} {2,3,2} {2,4} {3,2,2} {3,3} {4,2} {5,2} {6,2} {7,2} {8}.
 * With no data to move the allgather's reads are a multi-radix dissemination barrier. */
#ifndef SHMCOLL_PATTERNS_CYCLIC_H
#define SHMCOLL_PATTERNS_CYCLIC_H

#include "patterns/radix.h"

/* Default factorisation of p: the fewest steps with radices <= max_radix, all radices equal to
 * the smallest r with r^steps >= p except the last, which is ceil(p / r^(steps-1)). p = 1 gives
 * no steps. INVALID if p < 1 or max_radix < 2. */
shmcoll_status_t shmcoll_pattern_cyclic_factorise(int p, int max_radix, shmcoll_pattern_radix_t *f);

/* OK if f is a valid cyclic-shift factorisation of p (see above). */
shmcoll_status_t shmcoll_pattern_cyclic_check(int p, const shmcoll_pattern_radix_t *f);

/* Calls fn for every valid factorisation with radices in [2, max_radix]; returns the count. */
long shmcoll_pattern_cyclic_enumerate(int p, int max_radix,
                                      void (*fn)(const shmcoll_pattern_radix_t *f, void *ctx),
                                      void *ctx);

/* Stride of step j: the product of the radices before it (always < p). */
int shmcoll_pattern_cyclic_stride(const shmcoll_pattern_radix_t *f, int step);

/* Window after the first `steps` allgather steps (= before reduce-scatter step `steps`-1 ran):
 * min(prefix product, p) blocks. */
int shmcoll_pattern_cyclic_window(int p, const shmcoll_pattern_radix_t *f, int steps);

/* Peer d (1 <= d < radix[step]) of rank at step j: ahead = rank + d*stride, behind = rank -
 * d*stride (mod p). Allgather reads from ahead; reduce-scatter hands partial sums to ahead and
 * receives from behind. */
int shmcoll_pattern_cyclic_ahead(int p, const shmcoll_pattern_radix_t *f, int step, int d,
                                 int rank);
int shmcoll_pattern_cyclic_behind(int p, const shmcoll_pattern_radix_t *f, int step, int d,
                                  int rank);

/* Blocks exchanged with peer d at step j: min(stride, p - d*stride), >= 1 for a valid f. The
 * piece always starts at the receiver's first window block (the reader's rank for allgather, the
 * peer ahead for reduce-scatter). */
int shmcoll_pattern_cyclic_count(int p, const shmcoll_pattern_radix_t *f, int step, int d);

#endif
