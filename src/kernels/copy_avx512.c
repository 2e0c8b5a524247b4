/* AVX-512 streaming copy loop (this file is compiled with -mavx512f).
 *
 * As copy_avx2.c with 64-byte vectors: one streaming store writes a whole cache line, so the
 * write-combining buffer of a line is filled by a single instruction and flushed at once.
 * Ordinary stores bring dst to a 64-byte boundary, four lines go out per iteration, and the
 * tail takes ordinary stores. Unaligned, prefetched loads; no fence here (see copy_isa.h). */
#include "kernels/copy_isa.h"

#include <immintrin.h>
#include <string.h>

enum { VEC = 64, PREFETCH_AHEAD = 1024 };

void shmcoll_kernel_copy_stream_avx512(void *dst, const void *src, size_t bytes) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    shmcoll_kernel_copy_head(&d, &s, &bytes, VEC);
    for (; bytes >= 4 * VEC; d += 4 * VEC, s += 4 * VEC, bytes -= 4 * VEC) {
        for (int k = 0; k < 4; k++)
            _mm_prefetch((const char *)s + PREFETCH_AHEAD + k * VEC, _MM_HINT_T0);
        __m512i v0 = _mm512_loadu_si512(s);
        __m512i v1 = _mm512_loadu_si512(s + VEC);
        __m512i v2 = _mm512_loadu_si512(s + 2 * VEC);
        __m512i v3 = _mm512_loadu_si512(s + 3 * VEC);
        _mm512_stream_si512((void *)d, v0);
        _mm512_stream_si512((void *)(d + VEC), v1);
        _mm512_stream_si512((void *)(d + 2 * VEC), v2);
        _mm512_stream_si512((void *)(d + 3 * VEC), v3);
    }
    for (; bytes >= VEC; d += VEC, s += VEC, bytes -= VEC)
        _mm512_stream_si512((void *)d, _mm512_loadu_si512(s));
    memcpy(d, s, bytes);
}
