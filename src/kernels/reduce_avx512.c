/* AVX-512 reduction kernels (this file is compiled with -mavx512f/bw/dq/vl and a preferred
 * vector width of 512 bits).
 *
 * The common element-wise kernels of reduce_template.h are auto-vectorised to 512-bit code; BW
 * gives byte/word operations, DQ the 64-bit integer multiply. Complex PROD multiplies with
 * intrinsics (cmul_*, in the loop of reduce_template.h) for the reason given in reduce_avx2.c;
 * AVX-512 has no addsub, so the real lanes take a masked subtract over the sum, which is the same
 * per-lane arithmetic as the scalar oracle (real = xr*yr - xi*yi, imag = xi*yr + xr*yi).
 * Contraction is off for the whole file. */
#pragma GCC optimize("fp-contract=off")

#include "kernels/reduce_isa.h"
#include "kernels/reduce_template.h"

#include <immintrin.h>

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

REDUCE_DEFINE_CPROD_KERNELS(__m512, __m512d)

static const shmcoll_reduce_fn avx512_table[SHMCOLL_DT_COUNT][SHMCOLL_OP_COUNT] = {
    REDUCE_COMMON_ENTRIES REDUCE_CPROD_ENTRIES};

REDUCE_DEFINE_LOOKUP(shmcoll_kernel_reduce_lookup_avx512, avx512_table)
