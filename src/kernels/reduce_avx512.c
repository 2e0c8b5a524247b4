/* AVX-512 reduction kernels (this file is compiled with -mavx512f/bw/dq/vl and a preferred
 * vector width of 512 bits).
 *
 * The common element-wise kernels of reduce_template.h are auto-vectorised to 512-bit code; BW
 * gives byte/word operations, DQ the 64-bit integer multiply. Complex PROD is written with
 * intrinsics for the reason given in reduce_avx2.c; AVX-512 has no addsub, so the real lanes
 * take a masked subtract over the sum, which is the same per-lane arithmetic as the scalar
 * oracle (real = xr*yr - xi*yi, imag = xi*yr + xr*yi). Contraction is off for the whole file. */
#pragma GCC optimize("fp-contract=off")

#include "kernels/reduce_isa.h"
#include "kernels/reduce_template.h"

#include <immintrin.h>
#include <stddef.h>
#include <string.h>

REDUCE_DEFINE_COMMON_KERNELS()

/* Four complex doubles: t1 = (xr*yr, xi*yr), t2 = (xi*yi, xr*yi); even (real) lanes t1 - t2,
 * odd (imaginary) lanes t1 + t2. */
static inline __m512d cmul_f64(__m512d x, __m512d y) {
    __m512d t1 = _mm512_mul_pd(x, _mm512_movedup_pd(y));
    __m512d t2 = _mm512_mul_pd(_mm512_permute_pd(x, 0x55), _mm512_permute_pd(y, 0xFF));
    return _mm512_mask_sub_pd(_mm512_add_pd(t1, t2), 0x55, t1, t2);
}

/* Eight complex floats, same lane arithmetic. */
static inline __m512 cmul_f32(__m512 x, __m512 y) {
    __m512 t1 = _mm512_mul_ps(x, _mm512_moveldup_ps(y));
    __m512 t2 = _mm512_mul_ps(_mm512_permute_ps(x, 0xB1), _mm512_movehdup_ps(y));
    return _mm512_mask_sub_ps(_mm512_add_ps(t1, t2), 0x5555, t1, t2);
}

static inline __m512d load_f64(const unsigned char *p) {
    return _mm512_loadu_pd(p);
}
static inline void store_f64(unsigned char *p, __m512d v) {
    _mm512_storeu_pd(p, v);
}
static inline __m512 load_f32(const unsigned char *p) {
    return _mm512_loadu_ps(p);
}
static inline void store_f32(unsigned char *p, __m512 v) {
    _mm512_storeu_ps(p, v);
}

/* Whole vectors in place; the last partial vector goes through zero-filled bounce buffers so
 * the same instructions compute it and no byte beyond the element range is touched. */
#define AVX512_CPROD_KERNEL(sfx, F, V)                                                             \
    static void reduce_cprod_##sfx(const void *a, const void *b, void *out, size_t n) {            \
        const unsigned char *pa = a, *pb = b;                                                      \
        unsigned char *po = out;                                                                   \
        const size_t bytes = 2 * sizeof(F) * n;                                                    \
        size_t at = 0;                                                                             \
        for (; at + sizeof(V) <= bytes; at += sizeof(V))                                           \
            store_##sfx(po + at, cmul_##sfx(load_##sfx(pa + at), load_##sfx(pb + at)));            \
        if (at < bytes) {                                                                          \
            unsigned char ta[sizeof(V)] = {0}, tb[sizeof(V)] = {0}, to[sizeof(V)];                 \
            memcpy(ta, pa + at, bytes - at);                                                       \
            memcpy(tb, pb + at, bytes - at);                                                       \
            store_##sfx(to, cmul_##sfx(load_##sfx(ta), load_##sfx(tb)));                           \
            memcpy(po + at, to, bytes - at);                                                       \
        }                                                                                          \
    }
AVX512_CPROD_KERNEL(f32, float, __m512)
AVX512_CPROD_KERNEL(f64, double, __m512d)
#undef AVX512_CPROD_KERNEL

static const shmcoll_reduce_fn avx512_table[SHMCOLL_DT_COUNT][SHMCOLL_OP_COUNT] = {
    REDUCE_COMMON_ENTRIES[SHMCOLL_DT_FLOAT_COMPLEX][SHMCOLL_OP_PROD] = reduce_cprod_f32,
    [SHMCOLL_DT_DOUBLE_COMPLEX][SHMCOLL_OP_PROD] = reduce_cprod_f64,
};

REDUCE_DEFINE_LOOKUP(shmcoll_kernel_reduce_lookup_avx512, avx512_table)
