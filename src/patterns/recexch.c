/* Recursive exchange arithmetic and its default factorisation; see recexch.h. */
#include "patterns/recexch.h"

typedef struct search {
    shmcoll_pattern_radix_t current, best;
    int found;
} search_t;

/* Better = fewer steps, then a smaller largest radix, then lexicographically larger (a fixed
 * tie-break so every rank computes the same factorisation). */
static int better(const shmcoll_pattern_radix_t *a, const shmcoll_pattern_radix_t *b) {
    if (a->nsteps != b->nsteps) return a->nsteps < b->nsteps;
    int la = shmcoll_pattern_radix_largest(a), lb = shmcoll_pattern_radix_largest(b);
    if (la != lb) return la < lb;
    for (int j = 0; j < a->nsteps; j++)
        if (a->radix[j] != b->radix[j]) return a->radix[j] > b->radix[j];
    return 0;
}

/* Multiplicative partitions of rest into non-increasing radices <= limit. The count is tiny for
 * radices <= 8 (for 2^30, the partitions of 30 into parts 1..3), so exhaustive search is cheap. */
static void search_partitions(search_t *s, long long rest, int limit) {
    if (rest == 1) {
        if (!s->found || better(&s->current, &s->best)) s->best = s->current;
        s->found = 1;
        return;
    }
    if (s->current.nsteps == SHMCOLL_PATTERN_MAX_STEPS) return;
    for (int radix = rest < limit ? (int)rest : limit; radix >= 2; radix--) {
        if (rest % radix) continue;
        s->current.radix[s->current.nsteps++] = radix;
        search_partitions(s, rest / radix, radix);
        s->current.nsteps--;
    }
}

static void sort_descending(shmcoll_pattern_radix_t *f) {
    for (int i = 1; i < f->nsteps; i++)
        for (int j = i; j > 0 && f->radix[j] > f->radix[j - 1]; j--) {
            int t = f->radix[j];
            f->radix[j] = f->radix[j - 1];
            f->radix[j - 1] = t;
        }
}

shmcoll_status_t shmcoll_pattern_recexch_factorise(int p, int max_radix,
                                                   shmcoll_pattern_radix_t *f) {
    if (p < 1 || max_radix < 2) return SHMCOLL_ERR_INVALID;
    /* Prime factors above max_radix cannot share a step with anything: set them aside. */
    int large[SHMCOLL_PATTERN_MAX_STEPS], nlarge = 0;
    long long rest = p, small = 1;
    for (long long q = 2; q * q <= rest; q++)
        while (rest % q == 0) {
            if (q > max_radix)
                large[nlarge++] = (int)q;
            else
                small *= q;
            rest /= q;
        }
    if (rest > 1) {
        if (rest > max_radix)
            large[nlarge++] = (int)rest;
        else
            small *= rest;
    }
    search_t s = {.found = 0};
    s.current.nsteps = 0;
    search_partitions(&s, small, max_radix);
    *f = s.best;
    for (int i = 0; i < nlarge; i++) f->radix[f->nsteps++] = large[i];
    sort_descending(f);
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_pattern_recexch_check(int p, const shmcoll_pattern_radix_t *f) {
    if (p < 1 || f->nsteps < 0 || f->nsteps > SHMCOLL_PATTERN_MAX_STEPS) return SHMCOLL_ERR_INVALID;
    long long product = 1;
    for (int j = 0; j < f->nsteps; j++) {
        if (f->radix[j] < 2) return SHMCOLL_ERR_INVALID;
        product *= f->radix[j];
        if (product > p) return SHMCOLL_ERR_INVALID;
    }
    return product == p ? SHMCOLL_OK : SHMCOLL_ERR_INVALID;
}

/* After the steps of product `prefix`: ascending, the radices that divide what is left of p. */
static int next_radix(int p, long long prefix, int max_radix, int previous) {
    const long long rest = p / prefix;
    for (int radix = previous + 1 < 2 ? 2 : previous + 1; radix <= max_radix && radix <= rest;
         radix++)
        if (rest % radix == 0) return radix;
    return 0;
}

long shmcoll_pattern_recexch_enumerate(int p, int max_radix,
                                       void (*fn)(const shmcoll_pattern_radix_t *f, void *ctx),
                                       void *ctx) {
    return shmcoll_pattern_radix_enumerate(p, max_radix, next_radix, fn, ctx);
}

int shmcoll_pattern_recexch_group(const shmcoll_pattern_radix_t *f, int step, int rank,
                                  int *members) {
    int stride = (int)shmcoll_pattern_radix_prefix(f, step), radix = f->radix[step];
    int digit = rank / stride % radix, base = rank - digit * stride;
    for (int d = 0; d < radix; d++) members[d] = base + d * stride;
    return digit;
}

void shmcoll_pattern_recexch_blocks(const shmcoll_pattern_radix_t *f, int steps, int rank,
                                    int *first, int *count) {
    int start = 0, n = (int)shmcoll_pattern_radix_prefix(f, f->nsteps), stride = 1;
    for (int j = 0; j < steps; j++) {
        int radix = f->radix[j], digit = rank / stride % radix;
        n /= radix;
        start += digit * n;
        stride *= radix;
    }
    *first = start;
    *count = n;
}
