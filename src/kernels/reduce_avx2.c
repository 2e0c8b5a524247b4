/* AVX2 reduction kernels (this file is compiled with -mavx2 -mfma).
 *
 * The common element-wise kernels of reduce_template.h are auto-vectorised to 256-bit code.
 * Complex PROD is written with intrinsics: GCC's vectoriser turns the multiply/add-subtract
 * pattern of a complex product into vfmaddsub even under -ffp-contract=off, which rounds
 * differently from the scalar oracle; explicit vmulpd + vaddsubpd round exactly like it
 * (real = xr*yr - xi*yi, imag = xi*yr + xr*yi). Contraction is off for the whole file so no
 * other multiply-add gets fused either. Types without a kernel here fall back to scalar. */
#pragma GCC optimize("fp-contract=off")

#include "kernels/reduce_isa.h"
#include "kernels/reduce_template.h"

#include <immintrin.h>
#include <stddef.h>
#include <string.h>

REDUCE_DEFINE_COMMON_KERNELS()

/* Two complex doubles: t1 = (xr*yr, xi*yr), t2 = (xi*yi, xr*yi), addsub = (t1 - t2, t1 + t2). */
static inline __m256d cmul_f64(__m256d x, __m256d y) {
    __m256d t1 = _mm256_mul_pd(x, _mm256_movedup_pd(y));
    __m256d t2 = _mm256_mul_pd(_mm256_permute_pd(x, 0x5), _mm256_permute_pd(y, 0xF));
    return _mm256_addsub_pd(t1, t2);
}

/* Four complex floats, same lane arithmetic. */
static inline __m256 cmul_f32(__m256 x, __m256 y) {
    __m256 t1 = _mm256_mul_ps(x, _mm256_moveldup_ps(y));
    __m256 t2 = _mm256_mul_ps(_mm256_permute_ps(x, 0xB1), _mm256_movehdup_ps(y));
    return _mm256_addsub_ps(t1, t2);
}

static inline __m256d load_f64(const unsigned char *p) {
    return _mm256_loadu_pd((const double *)p);
}
static inline void store_f64(unsigned char *p, __m256d v) {
    _mm256_storeu_pd((double *)p, v);
}
static inline __m256 load_f32(const unsigned char *p) {
    return _mm256_loadu_ps((const float *)p);
}
static inline void store_f32(unsigned char *p, __m256 v) {
    _mm256_storeu_ps((float *)p, v);
}

/* Whole vectors in place; the last partial vector goes through zero-filled bounce buffers so
 * the same instructions compute it and no byte beyond the element range is touched. */
#define AVX2_CPROD_KERNEL(sfx, F, V)                                                               \
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
AVX2_CPROD_KERNEL(f32, float, __m256)
AVX2_CPROD_KERNEL(f64, double, __m256d)
#undef AVX2_CPROD_KERNEL

static const shmcoll_reduce_fn avx2_table[SHMCOLL_DT_COUNT][SHMCOLL_OP_COUNT] = {
    REDUCE_COMMON_ENTRIES[SHMCOLL_DT_FLOAT_COMPLEX][SHMCOLL_OP_PROD] = reduce_cprod_f32,
    [SHMCOLL_DT_DOUBLE_COMPLEX][SHMCOLL_OP_PROD] = reduce_cprod_f64,
};

REDUCE_DEFINE_LOOKUP(shmcoll_kernel_reduce_lookup_avx2, avx2_table)
