/* The team tests' user reduction functions; see user_ops.h. */
#include "user_ops.h"

#include "test_data.h"

mat2_t user_ops_mat2_mul(const mat2_t *l, const mat2_t *r) {
    return (mat2_t){l->a * r->a + l->b * r->c, l->a * r->b + l->b * r->d, l->c * r->a + l->d * r->c,
                    l->c * r->b + l->d * r->d};
}

void user_ops_mat2_product(const void *in, void *inout, size_t n, void *ctx) {
    const mat2_t *l = in;
    mat2_t *r = inout;
    for (size_t i = 0; i < n; i++) r[i] = user_ops_mat2_mul(&l[i], &r[i]);
}

mat2_t user_ops_mat2_input(int rank, size_t i, uint64_t seed) {
    static const mat2_t generators[] = {
        {1, 1, 0, 1}, {1, 0, 1, 1}, {0, 1, 1, 0}, {1, -1, 0, 1}, {-1, 0, 0, 1}, {1, 0, -1, 1},
    };
    return generators[test_data_mix(seed, (uint64_t)rank, i) %
                      (sizeof generators / sizeof *generators)];
}

void user_ops_summax(const void *in, void *inout, size_t n, void *ctx) {
    const summax_t *l = in;
    summax_t *r = inout;
    for (size_t i = 0; i < n; i++) {
        r[i].sum += l[i].sum;
        r[i].max = l[i].max > r[i].max ? l[i].max : r[i].max;
    }
}

void user_ops_int3_sum(const void *in, void *inout, size_t n, void *ctx) {
    for (size_t i = 0; i < n; i++) {
        const int32_t *a = (const int32_t *)((const char *)in + 16 * i);
        int32_t *b = (int32_t *)((char *)inout + 16 * i);
        b[0] += a[0], b[1] += a[1], b[2] += a[2];
    }
}
