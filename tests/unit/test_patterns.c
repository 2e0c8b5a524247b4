/* Rank arithmetic of patterns/ for every team size p in 1..256, simulated symbolically:
 *  - k-nomial trees (k = 2, 3, 4, 8; every root for p <= 64): a spanning tree rooted at the root,
 *    parent/children consistent, contiguous subtrees, a broadcast completes in ceil(log_k p)
 *    rounds;
 *  - recursive exchange: every rank ends with its block reduced over all ranks in canonical
 *    order 0..p-1 (partial results are rank intervals, and folding two is legal only when they
 *    are adjacent, so a duplicate, a gap or a non-commutative reordering fails), the allgather
 *    then gives everyone everything, each block received once;
 *  - cyclic shift: every rank ends with its block holding each contribution exactly once
 *    (bitmasks), allgather likewise; the enumeration matches the paper's ten options for p = 8;
 *  - dissemination: ceil(log2 p) rounds let everyone hear from everyone, one fewer does not. */
#include "check.h"
#include "patterns/cyclic.h"
#include "patterns/dissem.h"
#include "patterns/knomial.h"
#include "patterns/recexch.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PMAX 256

/* ---- bit sets of up to PMAX ranks or blocks ---------------------------------------------- */

typedef struct {
    uint64_t w[PMAX / 64];
} mask_t;

/* Words in use for the current p: the simulations cost O(p^2) masks, so keep them short. */
static int words = PMAX / 64;
static void set_words(int p) {
    words = (p + 63) / 64;
}

static void mask_clear(mask_t *m) {
    memset(m, 0, sizeof *m);
}
static void mask_set(mask_t *m, int i) {
    m->w[i / 64] |= 1ULL << (i % 64);
}
static int mask_has(const mask_t *m, int i) {
    return (int)(m->w[i / 64] >> (i % 64) & 1);
}
static int mask_disjoint(const mask_t *a, const mask_t *b) {
    for (int i = 0; i < words; i++)
        if (a->w[i] & b->w[i]) return 0;
    return 1;
}
static void mask_or(mask_t *a, const mask_t *b) {
    for (int i = 0; i < words; i++) a->w[i] |= b->w[i];
}
static int mask_count(const mask_t *m) {
    int n = 0;
    for (int i = 0; i < words; i++) n += __builtin_popcountll(m->w[i]);
    return n;
}
static int mask_is_range(const mask_t *m, int p, int first, int count) {
    if (mask_count(m) != count) return 0;
    for (int i = 0; i < count; i++)
        if (!mask_has(m, (first + i) % p)) return 0;
    return 1;
}

static int mod(int a, int p) {
    return ((a % p) + p) % p;
}

/* ---- k-nomial trees ------------------------------------------------------------------------ */

static void check_tree(int p, int k, int root) {
    int rounds = shmcoll_pattern_knomial_rounds(p, k);
    long long reach = 1, below = 1;
    for (int i = 0; i < rounds; i++) below = reach, reach *= k;
    CHECK(reach >= p && (rounds == 0 || below < p), "p=%d k=%d: %d rounds is not ceil(log_k p)", p,
          k, rounds);

    int maxc = shmcoll_pattern_knomial_max_children(p, k);
    int children[PMAX * 8], seen[PMAX] = {0}, order[PMAX], n = 0, max_round = -1;
    CHECK(shmcoll_pattern_knomial_parent(p, k, root, root) == -1, "root has a parent");
    CHECK(shmcoll_pattern_knomial_round(p, k, root, root) == -1, "root receives");
    CHECK(shmcoll_pattern_knomial_depth(p, k, root, root) == 0, "root depth");
    CHECK(shmcoll_pattern_knomial_subtree(p, k, root, root) == p, "root subtree");
    /* Breadth-first walk from the root through the children lists. */
    order[n++] = root;
    seen[root] = 1;
    for (int head = 0; head < n; head++) {
        int r = order[head];
        int nc = shmcoll_pattern_knomial_children(p, k, root, r, children);
        CHECK(nc <= maxc, "p=%d k=%d: %d children > bound %d", p, k, nc, maxc);
        int subtree = 1, last_round = -1;
        for (int c = 0; c < nc; c++) {
            int child = children[c];
            if (child < 0 || child >= p) {
                CHECK(0, "p=%d k=%d root=%d: child %d out of range", p, k, root, child);
                continue;
            }
            CHECK(!seen[child], "p=%d k=%d root=%d: rank %d reached twice", p, k, root, child);
            seen[child] = 1;
            order[n++] = child;
            CHECK(shmcoll_pattern_knomial_parent(p, k, root, child) == r,
                  "p=%d k=%d root=%d: parent of %d is not %d", p, k, root, child, r);
            CHECK(shmcoll_pattern_knomial_depth(p, k, root, child) ==
                      shmcoll_pattern_knomial_depth(p, k, root, r) + 1,
                  "depth of %d", child);
            int round = shmcoll_pattern_knomial_round(p, k, root, child);
            CHECK(round > shmcoll_pattern_knomial_round(p, k, root, r) && round < rounds,
                  "p=%d k=%d root=%d: %d receives in round %d before its parent or too late", p, k,
                  root, child, round);
            CHECK(round >= last_round, "children not in broadcast order");
            last_round = round;
            if (round > max_round) max_round = round;
            subtree += shmcoll_pattern_knomial_subtree(p, k, root, child);
            /* The child's subtree is the contiguous relative range right after its own rank. */
            int rel = mod(child - root, p),
                size = shmcoll_pattern_knomial_subtree(p, k, root, child);
            int rel_parent = mod(r - root, p),
                size_parent = shmcoll_pattern_knomial_subtree(p, k, root, r);
            CHECK(rel > rel_parent && rel + size <= rel_parent + size_parent,
                  "subtree of %d not inside its parent's", child);
        }
        CHECK(subtree == shmcoll_pattern_knomial_subtree(p, k, root, r),
              "p=%d k=%d root=%d: subtree of %d is %d, children give %d", p, k, root, r,
              shmcoll_pattern_knomial_subtree(p, k, root, r), subtree);
        CHECK(shmcoll_pattern_knomial_depth(p, k, root, r) <= rounds, "depth above rounds");
    }
    CHECK(n == p, "p=%d k=%d root=%d: tree reaches %d ranks", p, k, root, n);
    CHECK(max_round == rounds - 1, "p=%d k=%d: last round used %d of %d", p, k, max_round, rounds);
}

static void test_knomial(void) {
    const int ks[] = {2, 3, 4, 8};
    for (int p = 1; p <= PMAX; p++)
        for (int i = 0; i < 4; i++) {
            if (p <= 64) {
                for (int root = 0; root < p; root++) check_tree(p, ks[i], root);
            } else {
                check_tree(p, ks[i], 0);
                check_tree(p, ks[i], p / 3);
                check_tree(p, ks[i], p - 1);
            }
        }
    /* A radix at least p gives a flat tree: the root has every other rank as a child. */
    int children[16];
    CHECK(shmcoll_pattern_knomial_children(7, 9, 3, 3, children) == 6, "flat tree");
}

/* Whether f equals the factorisation of the previous radix limit (index i-1) for the same p, so
 * the simulation can be skipped: the defaults for several limits often coincide. */
static int same_as_previous(const shmcoll_pattern_radix_t *f, int i) {
    static shmcoll_pattern_radix_t previous;
    int same = i > 0 && previous.nsteps == f->nsteps &&
               !memcmp(previous.radix, f->radix, sizeof(int) * (size_t)f->nsteps);
    previous = *f;
    return same;
}

/* ---- recursive exchange --------------------------------------------------------------------- */

/* A partial result: the fold of contributions lo .. hi-1 in that order. */
typedef struct {
    short lo, hi;
} interval_t;

static interval_t state[PMAX][PMAX], next_state[PMAX][PMAX];
static mask_t held[PMAX], next_held[PMAX];

/* Symbolic reduce-scatter and allgather of f over p ranks; returns 0 if all is well. */
static int simulate_recexch(int p, const shmcoll_pattern_radix_t *f) {
    const long before = check_failures();
    int members[PMAX];
    char text[128];
    shmcoll_pattern_radix_format(f, text, sizeof text);
    for (int r = 0; r < p; r++)
        for (int b = 0; b < p; b++) state[r][b] = (interval_t){(short)r, (short)(r + 1)};

    set_words(p);
    for (int j = 0; j < f->nsteps; j++) {
        for (int r = 0; r < p; r++) {
            int first, count, nfirst, ncount, mfirst, mcount;
            int digit = shmcoll_pattern_recexch_group(f, j, r, members);
            CHECK(members[digit] == r, "p=%d {%s}: rank %d not at its digit", p, text, r);
            shmcoll_pattern_recexch_blocks(f, j, r, &first, &count);
            shmcoll_pattern_recexch_blocks(f, j + 1, r, &nfirst, &ncount);
            CHECK(ncount * f->radix[j] == count && nfirst == first + digit * ncount,
                  "p=%d {%s} step %d: rank %d's new range is not part %d of the old", p, text, j, r,
                  digit);
            for (int m = 0; m < f->radix[j]; m++) {
                shmcoll_pattern_recexch_blocks(f, j, members[m], &mfirst, &mcount);
                CHECK(mfirst == first && mcount == count, "group members disagree on the range");
            }
            for (int b = nfirst; b < nfirst + ncount; b++) {
                interval_t acc = state[members[0]][b];
                for (int m = 1; m < f->radix[j]; m++) {
                    interval_t x = state[members[m]][b];
                    CHECK(acc.hi == x.lo,
                          "p=%d {%s} step %d: folding [%d,%d) with [%d,%d) breaks the order", p,
                          text, j, acc.lo, acc.hi, x.lo, x.hi);
                    acc.hi = x.hi;
                }
                next_state[r][b] = acc;
            }
        }
        /* Members read the old state: commit the new ranges only after the whole step. */
        for (int r = 0; r < p; r++) {
            int first, count;
            shmcoll_pattern_recexch_blocks(f, j + 1, r, &first, &count);
            memcpy(&state[r][first], &next_state[r][first], sizeof(interval_t) * (size_t)count);
        }
        if (check_failures() > before) return 1;
    }
    mask_t owners = {{0}};
    for (int r = 0; r < p; r++) {
        int first, count;
        shmcoll_pattern_recexch_blocks(f, f->nsteps, r, &first, &count);
        CHECK(count == 1 && first >= 0 && first < p, "p=%d {%s}: rank %d ends with %d blocks", p,
              text, r, count);
        if (count != 1 || first < 0 || first >= p) return 1;
        CHECK(!mask_has(&owners, first), "p=%d {%s}: block %d owned twice", p, text, first);
        mask_set(&owners, first);
        CHECK(state[r][first].lo == 0 && state[r][first].hi == p,
              "p=%d {%s}: rank %d's block %d is [%d,%d)", p, text, r, first, state[r][first].lo,
              state[r][first].hi);
        mask_clear(&held[r]);
        mask_set(&held[r], first);
    }
    /* Allgather: steps backwards; step j merges the group's ranges into the range before it. */
    for (int j = f->nsteps - 1; j >= 0; j--) {
        for (int r = 0; r < p; r++) {
            shmcoll_pattern_recexch_group(f, j, r, members);
            mask_t got = {{0}};
            for (int m = 0; m < f->radix[j]; m++) {
                CHECK(mask_disjoint(&got, &held[members[m]]), "allgather receives a block twice");
                mask_or(&got, &held[members[m]]);
            }
            int first, count;
            shmcoll_pattern_recexch_blocks(f, j, r, &first, &count);
            CHECK(mask_is_range(&got, p, first, count),
                  "p=%d {%s} allgather step %d: rank %d does not hold its range", p, text, j, r);
            next_held[r] = got;
        }
        memcpy(held, next_held, sizeof(mask_t) * (size_t)p);
    }
    for (int r = 0; r < p; r++)
        CHECK(mask_count(&held[r]) == p, "p=%d {%s}: allgather incomplete at %d", p, text, r);
    return check_failures() > before;
}

static void simulate_recexch_cb(const shmcoll_pattern_radix_t *f, void *ctx) {
    simulate_recexch(*(int *)ctx, f);
}

static int largest_prime_factor(int p) {
    int largest = 1;
    for (int q = 2; q <= p; q++)
        while (p % q == 0) p /= q, largest = q;
    return largest;
}

/* Ordered factorisations of n into factors >= 2, by the divisor recurrence (independent of the
 * library's enumeration). */
static long ordered_factorisations(int n, int max_radix) {
    if (n == 1) return 1;
    long count = 0;
    for (int d = 2; d <= n && d <= max_radix; d++)
        if (n % d == 0) count += ordered_factorisations(n / d, max_radix);
    return count;
}

static int min_steps;
static void min_steps_cb(const shmcoll_pattern_radix_t *f, void *ctx) {
    if (f->nsteps < min_steps) min_steps = f->nsteps;
}

static void test_recexch(void) {
    const int limits[] = {2, 3, 4, 8};
    shmcoll_pattern_radix_t f;
    for (int p = 1; p <= PMAX; p++)
        for (int i = 0; i < 4; i++) {
            int limit = limits[i];
            CHECK(shmcoll_pattern_recexch_factorise(p, limit, &f) == SHMCOLL_OK, "factorise");
            CHECK(shmcoll_pattern_recexch_check(p, &f) == SHMCOLL_OK, "p=%d: default invalid", p);
            int lpf = largest_prime_factor(p), largest = shmcoll_pattern_radix_largest(&f);
            if (lpf <= limit) {
                CHECK(largest <= limit, "p=%d limit %d: radix %d", p, limit, largest);
                min_steps = 1 << 30;
                shmcoll_pattern_recexch_enumerate(p, limit, min_steps_cb, NULL);
                CHECK(f.nsteps == (p == 1 ? 0 : min_steps), "p=%d limit %d: %d steps, %d possible",
                      p, limit, f.nsteps, min_steps);
            } else {
                CHECK(largest == lpf, "p=%d: a prime factor %d above the limit must be one radix",
                      p, lpf);
            }
            for (int j = 1; j < f.nsteps; j++)
                CHECK(f.radix[j] <= f.radix[j - 1], "p=%d: radices not descending", p);
            if (!same_as_previous(&f, i)) simulate_recexch(p, &f);
        }
    /* Every ordered factorisation of the small sizes. */
    for (int p = 1; p <= 48; p++) {
        long n = shmcoll_pattern_recexch_enumerate(p, p < 2 ? 2 : p, simulate_recexch_cb, &p);
        CHECK(n == ordered_factorisations(p, p < 2 ? 2 : p), "p=%d: %ld factorisations enumerated",
              p, n);
        CHECK(shmcoll_pattern_recexch_enumerate(p, 4, NULL, NULL) == ordered_factorisations(p, 4),
              "p=%d: enumeration with radix limit 4", p);
    }
    /* The paper's 8-rank example {4,2} and odd, prime and invalid factorisations. */
    CHECK(shmcoll_pattern_radix_parse("4,2", &f) == SHMCOLL_OK && f.nsteps == 2, "parse 4,2");
    CHECK(shmcoll_pattern_recexch_check(8, &f) == SHMCOLL_OK, "{4,2} for 8");
    CHECK(shmcoll_pattern_recexch_check(9, &f) != SHMCOLL_OK, "{4,2} is not for 9");
    CHECK(shmcoll_pattern_radix_parse("3x5x2", &f) == SHMCOLL_OK, "parse 3x5x2");
    CHECK(shmcoll_pattern_recexch_check(30, &f) == SHMCOLL_OK && !simulate_recexch(30, &f), "30");
    CHECK(shmcoll_pattern_radix_parse("2,1,4", &f) != SHMCOLL_OK, "radix 1 accepted");
    CHECK(shmcoll_pattern_radix_parse("2,,4", &f) != SHMCOLL_OK, "empty radix accepted");
    CHECK(shmcoll_pattern_radix_parse("2,4,", &f) != SHMCOLL_OK, "trailing comma accepted");
    CHECK(shmcoll_pattern_recexch_factorise(0, 8, &f) != SHMCOLL_OK, "p = 0 accepted");
    CHECK(shmcoll_pattern_recexch_factorise(8, 1, &f) != SHMCOLL_OK, "radix limit 1 accepted");
    CHECK(shmcoll_pattern_recexch_factorise(2147483647, 8, &f) == SHMCOLL_OK && f.nsteps == 1 &&
              f.radix[0] == 2147483647,
          "a large prime is one step");
    CHECK(shmcoll_pattern_recexch_factorise(1 << 30, 8, &f) == SHMCOLL_OK && f.nsteps == 10,
          "2^30 in ten steps of 8");
    char text[64];
    CHECK(shmcoll_pattern_recexch_factorise(12, 8, &f) == SHMCOLL_OK, "12");
    shmcoll_pattern_radix_format(&f, text, sizeof text);
    shmcoll_pattern_radix_t back;
    CHECK(shmcoll_pattern_radix_parse(text, &back) == SHMCOLL_OK && back.nsteps == f.nsteps &&
              !memcmp(back.radix, f.radix, sizeof(int) * (size_t)f.nsteps),
          "format/parse round trip of %s", text);
}

/* ---- cyclic shift --------------------------------------------------------------------------- */

static mask_t partial[PMAX][PMAX], next_partial[PMAX][PMAX];

static int simulate_cyclic(int p, const shmcoll_pattern_radix_t *f) {
    const long before = check_failures();
    int n = f->nsteps;
    char text[128];
    shmcoll_pattern_radix_format(f, text, sizeof text);
    set_words(p);
    for (int r = 0; r < p; r++)
        for (int b = 0; b < p; b++) {
            mask_clear(&partial[r][b]);
            mask_set(&partial[r][b], r);
        }

    /* Reduce-scatter: steps n-1 .. 0. */
    for (int j = n - 1; j >= 0; j--) {
        int s = shmcoll_pattern_cyclic_stride(f, j), radix = f->radix[j];
        int window = shmcoll_pattern_cyclic_window(p, f, j + 1);
        int kept = shmcoll_pattern_cyclic_window(p, f, j);
        /* Kept part and the pieces handed ahead tile the window exactly. */
        int covered = kept;
        for (int d = 1; d < radix; d++) {
            int count = shmcoll_pattern_cyclic_count(p, f, j, d);
            CHECK(count >= 1 && d * s == covered, "p=%d {%s} step %d: piece %d misplaced", p, text,
                  j, d);
            covered += count;
        }
        CHECK(covered == window, "p=%d {%s} step %d: pieces cover %d of %d blocks", p, text, j,
              covered, window);
        int counts[PMAX];
        for (int d = 1; d < radix; d++) counts[d] = shmcoll_pattern_cyclic_count(p, f, j, d);
        for (int r = 0; r < p; r++) {
            for (int i = 0; i < kept; i++) next_partial[r][(r + i) % p] = partial[r][(r + i) % p];
            for (int d = 1; d < radix; d++) {
                int from = shmcoll_pattern_cyclic_behind(p, f, j, d, r);
                CHECK(shmcoll_pattern_cyclic_ahead(p, f, j, d, from) == r, "ahead/behind");
                for (int i = 0; i < kept && i < counts[d]; i++) {
                    int b = (r + i) % p;
                    mask_t *acc = &next_partial[r][b];
                    CHECK(mask_disjoint(acc, &partial[from][b]),
                          "p=%d {%s} step %d: rank %d counts a contribution twice", p, text, j, r);
                    mask_or(acc, &partial[from][b]);
                }
            }
        }
        /* Peers read the old partial sums: commit the kept windows only after the whole step. */
        for (int r = 0; r < p; r++)
            for (int i = 0; i < kept; i++) partial[r][(r + i) % p] = next_partial[r][(r + i) % p];
        if (check_failures() > before) return 1;
    }
    for (int r = 0; r < p; r++)
        CHECK(mask_count(&partial[r][r]) == p, "p=%d {%s}: rank %d's block has %d contributions", p,
              text, r, mask_count(&partial[r][r]));

    /* Allgather: steps 0 .. n-1; rank r reads the peers ahead. */
    for (int r = 0; r < p; r++) {
        mask_clear(&held[r]);
        mask_set(&held[r], r);
    }
    for (int j = 0; j < n; j++) {
        for (int r = 0; r < p; r++) {
            mask_t got = held[r];
            for (int d = 1; d < f->radix[j]; d++) {
                int peer = shmcoll_pattern_cyclic_ahead(p, f, j, d, r);
                int count = shmcoll_pattern_cyclic_count(p, f, j, d);
                for (int i = 0; i < count; i++) {
                    int b = (peer + i) % p;
                    CHECK(mask_has(&held[peer], b), "p=%d {%s}: peer %d does not have block %d", p,
                          text, peer, b);
                    CHECK(!mask_has(&got, b), "p=%d {%s}: block %d received twice", p, text, b);
                    mask_set(&got, b);
                }
            }
            CHECK(mask_is_range(&got, p, r, shmcoll_pattern_cyclic_window(p, f, j + 1)),
                  "p=%d {%s} step %d: rank %d's window", p, text, j, r);
            next_held[r] = got;
        }
        memcpy(held, next_held, sizeof(mask_t) * (size_t)p);
    }
    for (int r = 0; r < p; r++)
        CHECK(mask_count(&held[r]) == p, "p=%d {%s}: allgather incomplete", p, text);
    return check_failures() > before;
}

static void simulate_cyclic_cb(const shmcoll_pattern_radix_t *f, void *ctx) {
    CHECK(shmcoll_pattern_cyclic_check(*(int *)ctx, f) == SHMCOLL_OK, "enumerated invalid");
    simulate_cyclic(*(int *)ctx, f);
}

/* Counts radix sequences (each in [2, limit]) that the checker accepts, by brute force. */
static long brute_force_cyclic(int p, int limit, shmcoll_pattern_radix_t *f, long long product) {
    long count = shmcoll_pattern_cyclic_check(p, f) == SHMCOLL_OK;
    if (product >= p || f->nsteps == SHMCOLL_PATTERN_MAX_STEPS) return count;
    for (int radix = 2; radix <= limit; radix++) {
        f->radix[f->nsteps++] = radix;
        count += brute_force_cyclic(p, limit, f, product * radix);
        f->nsteps--;
    }
    return count;
}

static void test_cyclic(void) {
    const int limits[] = {2, 3, 4, 8};
    shmcoll_pattern_radix_t f;
    for (int p = 1; p <= PMAX; p++)
        for (int i = 0; i < 4; i++) {
            int limit = limits[i];
            CHECK(shmcoll_pattern_cyclic_factorise(p, limit, &f) == SHMCOLL_OK, "factorise");
            CHECK(shmcoll_pattern_cyclic_check(p, &f) == SHMCOLL_OK, "p=%d: default invalid", p);
            CHECK(shmcoll_pattern_radix_largest(&f) <= limit, "p=%d: radix above %d", p, limit);
            long long reach = 1;
            int steps = 0;
            while (reach < p) reach *= limit, steps++;
            CHECK(f.nsteps == steps, "p=%d limit %d: %d steps, %d needed", p, limit, f.nsteps,
                  steps);
            if (!same_as_previous(&f, i)) simulate_cyclic(p, &f);
        }
    for (int p = 1; p <= 40; p++) {
        long n = shmcoll_pattern_cyclic_enumerate(p, 8, simulate_cyclic_cb, &p);
        shmcoll_pattern_radix_t scratch = {.nsteps = 0};
        CHECK(n == brute_force_cyclic(p, 8, &scratch, 1), "p=%d: enumeration incomplete", p);
    }
    /* The paper's count for eight tasks, and its seven-task example {2,2,2}. */
    CHECK(shmcoll_pattern_cyclic_enumerate(8, 8, NULL, NULL) == 10, "p=8 has ten options");
    CHECK(shmcoll_pattern_radix_parse("2,2,2", &f) == SHMCOLL_OK &&
              shmcoll_pattern_cyclic_check(7, &f) == SHMCOLL_OK,
          "{2,2,2} for 7");
    CHECK(shmcoll_pattern_radix_parse("2,2,3", &f) == SHMCOLL_OK &&
              shmcoll_pattern_cyclic_check(8, &f) != SHMCOLL_OK,
          "{2,2,3} for 8 has an oversized last step");
    CHECK(shmcoll_pattern_radix_parse("8,2", &f) == SHMCOLL_OK &&
              shmcoll_pattern_cyclic_check(8, &f) != SHMCOLL_OK,
          "{8,2} for 8 has an idle step");
    CHECK(shmcoll_pattern_cyclic_factorise(2147483647, 8, &f) == SHMCOLL_OK &&
              shmcoll_pattern_cyclic_check(2147483647, &f) == SHMCOLL_OK && f.nsteps == 11,
          "INT_MAX in 11 steps");
}

/* ---- dissemination -------------------------------------------------------------------------- */

static void test_dissem(void) {
    static mask_t heard[PMAX], next_heard[PMAX];
    for (int p = 1; p <= PMAX; p++) {
        int rounds = shmcoll_pattern_dissem_rounds(p);
        set_words(p);
        CHECK((1LL << rounds) >= p && (rounds == 0 || (1LL << (rounds - 1)) < p),
              "p=%d: %d rounds is not ceil(log2 p)", p, rounds);
        for (int r = 0; r < p; r++) {
            mask_clear(&heard[r]);
            mask_set(&heard[r], r);
        }
        for (int k = 0; k < rounds; k++) {
            for (int r = 0; r < p; r++) {
                int from = shmcoll_pattern_dissem_from(p, k, r);
                CHECK(shmcoll_pattern_dissem_to(p, k, from) == r, "p=%d: to/from disagree", p);
                next_heard[r] = heard[r];
                mask_or(&next_heard[r], &heard[from]);
            }
            memcpy(heard, next_heard, sizeof(mask_t) * (size_t)p);
            if (k == rounds - 2)
                for (int r = 0; r < p; r++)
                    CHECK(mask_count(&heard[r]) < p, "p=%d: complete a round early", p);
        }
        for (int r = 0; r < p; r++)
            CHECK(mask_count(&heard[r]) == p, "p=%d: rank %d heard from %d", p, r,
                  mask_count(&heard[r]));
    }
}

int main(void) {
    check_log_limit(30); /* one wrong schedule fails many checks */
    test_knomial();
    test_recexch();
    test_cyclic();
    test_dissem();
    if (check_failures()) {
        fprintf(stderr, "test_patterns: %ld failures\n", check_failures());
        return 1;
    }
    printf("test_patterns: ok\n");
    return 0;
}
