/* k-nomial tree arithmetic; see knomial.h for the shape. Places are long long so that k^rounds
 * cannot overflow for any int p and k. */
#include "patterns/knomial.h"

static int relative(int p, int root, int rank) {
    return (int)(((long long)rank - root + p) % p);
}

static int absolute(int p, int root, long long v) {
    return (int)((v + root) % p);
}

/* k^rounds: the first place at or above p. */
static long long span(int p, int k) {
    long long place = 1;
    while (place < p) place *= k;
    return place;
}

/* Place of the lowest non-zero base-k digit of v; for the root (v = 0) the span, so that the
 * root's children cover every digit position. */
static long long low_place(int p, int k, int v) {
    if (v == 0) return span(p, k);
    long long place = 1;
    while ((v / place) % k == 0) place *= k;
    return place;
}

int shmcoll_pattern_knomial_rounds(int p, int k) {
    int rounds = 0;
    for (long long place = 1; place < p; place *= k) rounds++;
    return rounds;
}

int shmcoll_pattern_knomial_max_children(int p, int k) {
    return (k - 1) * shmcoll_pattern_knomial_rounds(p, k);
}

int shmcoll_pattern_knomial_parent(int p, int k, int root, int rank) {
    int v = relative(p, root, rank);
    if (v == 0) return -1;
    long long place = low_place(p, k, v);
    return absolute(p, root, v - (v / place) % k * place);
}

int shmcoll_pattern_knomial_children(int p, int k, int root, int rank, int *children) {
    int v = relative(p, root, rank), n = 0;
    for (long long place = low_place(p, k, v) / k; place >= 1; place /= k)
        for (int d = 1; d < k && v + d * place < p; d++)
            children[n++] = absolute(p, root, v + d * place);
    return n;
}

int shmcoll_pattern_knomial_depth(int p, int k, int root, int rank) {
    int depth = 0;
    for (int v = relative(p, root, rank); v; v /= k) depth += v % k != 0;
    return depth;
}

int shmcoll_pattern_knomial_round(int p, int k, int root, int rank) {
    int v = relative(p, root, rank);
    if (v == 0) return -1;
    int position = 0;
    for (long long place = low_place(p, k, v); place > 1; place /= k) position++;
    return shmcoll_pattern_knomial_rounds(p, k) - 1 - position;
}

int shmcoll_pattern_knomial_subtree(int p, int k, int root, int rank) {
    int v = relative(p, root, rank);
    long long end = v + low_place(p, k, v);
    return (int)((end < p ? end : p) - v);
}

int shmcoll_pattern_knomial_height(int p, int k) {
    /* Walk the digits of p-1 from the top: either keep the top digit (one more non-zero digit
     * above, go on with the rest) or lower it by one, after which every digit below may be k-1. */
    int best = 0, above = 0;
    long long n = (long long)p - 1;
    while (n > 0) {
        long long place = 1;
        int below = 0;
        while (place * k <= n) place *= k, below++;
        const long long top = n / place;
        const int lowered = above + (top > 1) + below;
        if (lowered > best) best = lowered;
        above++;
        n %= place;
    }
    return above > best ? above : best;
}
