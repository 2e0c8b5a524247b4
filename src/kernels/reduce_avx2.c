/* AVX2 reduction kernels (this file is compiled with -mavx2 -mfma).
 *
 * The common element-wise kernels of reduce_template.h are auto-vectorised to 256-bit code.
 * Complex PROD multiplies with intrinsics (cmul_*, in the loop of reduce_template.h): GCC's
 * vectoriser turns the multiply/add-subtract pattern of a complex product into vfmaddsub even
 * under -ffp-contract=off, which rounds differently from the scalar oracle; explicit vmulpd +
 * vaddsubpd round exactly like it (real = xr*yr - xi*yi, imag = xi*yr + xr*yi). Contraction is off
 * for the whole file so no other multiply-add gets fused either. Types without a kernel here fall
 * back to scalar. */
#pragma GCC optimize("fp-contract=off")

#include "kernels/reduce_isa.h"
#include "kernels/reduce_template.h"

#include <immintrin.h>

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

REDUCE_DEFINE_CPROD_KERNELS(__m256, __m256d)

static const shmcoll_reduce_fn avx2_table[SHMCOLL_DT_COUNT][SHMCOLL_OP_COUNT] = {
    REDUCE_COMMON_ENTRIES REDUCE_CPROD_ENTRIES};

REDUCE_DEFINE_LOOKUP(shmcoll_kernel_reduce_lookup_avx2, avx2_table)
