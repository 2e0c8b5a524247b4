/* Reduction ops of the reduce-scatter and scan tests: inputs, references, comparisons; see
 * rop.h. */
#include "rop.h"

#include "team_cases.h"
#include "test_data.h"
#include "user_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The matrices these tests multiply: shears, signed permutations and reflections, whose products
 * over up to 64 ranks keep every entry below 2^53 (the shears' spectral norm is the golden ratio),
 * so the results are exact whatever the association, and only the order of the factors matters.
 * (A set of seven; the tree tests draw from user_ops_mat2_input's six.) */
static const mat2_t mat2_factors[] = {
    {1, 1, 0, 1}, {1, 0, 1, 1},  {1, -1, 0, 1}, {1, 0, -1, 1},
    {0, 1, 1, 0}, {0, -1, 1, 0}, {1, 0, 0, -1},
};

int rop_make(const rop_t *r, shmcoll_reduce_op_t *op) {
    switch (r->kind) {
    case ROP_KERNEL:
        if (test_data_op(r->dtype, r->opcode, op)) return -1;
        op->commutative = r->commutative;
        return 0;
    case ROP_MAT2:
        *op = (shmcoll_reduce_op_t){.user_fn = user_ops_mat2_product,
                                    .size = sizeof(mat2_t),
                                    .extent = sizeof(mat2_t),
                                    .commutative = 0,
                                    .name = "user 2x2 matrix product"};
        return 0;
    case ROP_SUMMAX:
        *op = (shmcoll_reduce_op_t){.user_fn = user_ops_summax,
                                    .size = sizeof(summax_t),
                                    .extent = sizeof(summax_t),
                                    .commutative = 1,
                                    .name = "user (sum, max)/int64"};
        return 0;
    }
    return -1;
}

void rop_name(const rop_t *r, char *text, size_t len) {
    if (r->kind == ROP_KERNEL)
        snprintf(text, len, "%s/%s%s", shmcoll_opcode_name(r->opcode), shmcoll_dtype_name(r->dtype),
                 r->commutative ? "" : " (as non-commutative)");
    else
        snprintf(text, len, "%s",
                 r->kind == ROP_MAT2 ? "user 2x2 matrix product" : "user (sum, max)/int64");
}

size_t rop_extent(const rop_t *r) {
    return r->kind == ROP_KERNEL ? shmcoll_dtype_extent(r->dtype)
           : r->kind == ROP_MAT2 ? sizeof(mat2_t)
                                 : sizeof(summax_t);
}

size_t rop_align(const rop_t *r) {
    return r->kind == ROP_KERNEL ? test_data_align(r->dtype) : sizeof(double);
}

size_t rop_span(const rop_t *r, size_t n) {
    return r->kind == ROP_KERNEL ? test_data_span(r->dtype, n) : n * rop_extent(r);
}

int rop_fill(const rop_t *r, int rank, int p, uint64_t seed, size_t first, size_t n, void *out) {
    const size_t extent = rop_extent(r);
    if (r->kind == ROP_KERNEL) { /* the generator starts at element 0 */
        unsigned char *all = calloc(first + n ? first + n : 1, extent);
        if (!all) {
            team_cases_fail("out of memory for %zu elements", first + n);
            return -1;
        }
        test_data_fill(r->dtype, r->opcode, rank, p, seed, all, first + n);
        memcpy(out, all + first * extent, rop_span(r, n)); /* not the padding past the data */
        free(all);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        const uint64_t h = test_data_mix(seed, (uint64_t)rank, first + i);
        if (r->kind == ROP_MAT2)
            ((mat2_t *)out)[i] = mat2_factors[h % (sizeof mat2_factors / sizeof *mat2_factors)];
        else
            ((summax_t *)out)[i] =
                (summax_t){(int64_t)(h % 2001) - 1000, (int64_t)((h >> 16) % 2000001) - 1000000};
    }
    return 0;
}

/* acc = x op acc over n elements (x is the left operand, the lower ranks). */
static void apply(const rop_t *r, const void *x, void *acc, size_t n) {
    if (r->kind == ROP_KERNEL)
        shmcoll_kernel_reduce_scalar(r->dtype, r->opcode)(x, acc, acc, n);
    else if (r->kind == ROP_MAT2)
        user_ops_mat2_product(x, acc, n, NULL);
    else
        user_ops_summax(x, acc, n, NULL);
}

int rop_reference(const rop_t *r, int p, uint64_t seed, int lo, int hi, size_t first, size_t n,
                  void *out) {
    void *tmp = malloc(n ? n * rop_extent(r) : 1);
    int failed = !tmp || rop_fill(r, hi, p, seed, first, n, out);
    for (int q = hi - 1; q >= lo && !failed; q--) {
        failed = rop_fill(r, q, p, seed, first, n, tmp);
        if (!failed) apply(r, tmp, out, n);
    }
    free(tmp);
    return failed;
}

/* Index of the first element whose data differ, or -1 (matrix entries compare as numbers, so
 * that a zero's sign, which depends on the association, does not count). */
static long compare(const rop_t *r, const void *got, const void *want, size_t n) {
    if (r->kind == ROP_KERNEL) return test_data_compare(r->dtype, got, want, n);
    for (size_t i = 0; i < n; i++) {
        if (r->kind == ROP_MAT2) {
            const mat2_t *g = (const mat2_t *)got + i, *w = (const mat2_t *)want + i;
            if (g->a != w->a || g->b != w->b || g->c != w->c || g->d != w->d) return (long)i;
        } else if (memcmp((const summax_t *)got + i, (const summax_t *)want + i,
                          sizeof(summax_t))) {
            return (long)i;
        }
    }
    return -1;
}

static void format_elem(const rop_t *r, const void *elem, char *text, size_t len) {
    if (r->kind == ROP_KERNEL) {
        test_data_format(r->dtype, elem, text, len);
    } else if (r->kind == ROP_MAT2) {
        mat2_t m;
        memcpy(&m, elem, sizeof m);
        snprintf(text, len, "[[%g %g] [%g %g]]", m.a, m.b, m.c, m.d);
    } else {
        summax_t s;
        memcpy(&s, elem, sizeof s);
        snprintf(text, len, "(%lld, %lld)", (long long)s.sum, (long long)s.max);
    }
}

int rop_check(const rop_t *r, const void *got, const void *want, size_t n, const char *desc) {
    const long first = compare(r, got, want, n);
    if (first < 0) return 0;
    size_t bad = 0;
    const size_t extent = rop_extent(r);
    for (size_t i = (size_t)first; i < n; i++)
        bad += compare(r, (const char *)got + i * extent, (const char *)want + i * extent, 1) >= 0;
    char g[128], w[128];
    format_elem(r, (const char *)got + (size_t)first * extent, g, sizeof g);
    format_elem(r, (const char *)want + (size_t)first * extent, w, sizeof w);
    team_cases_fail("%s: %zu of %zu elements wrong; element %ld is %s, expected %s", desc, bad, n,
                    first, g, w);
    return 1;
}
