/* The element-wise kernel loops that every ISA file instantiates.
 *
 * Each ISA file (reduce_scalar.c, reduce_avx2.c, reduce_avx512.c) includes this header and is
 * compiled with its own -m flags, so the same simple loops become plain scalar code, AVX2 or
 * AVX-512 code; the compiler's auto-vectoriser does the work and reduce_elem.h keeps the
 * semantics identical.
 *
 * Elements are moved with memcpy: it compiles to plain (unaligned) loads and stores, lets the
 * kernels accept buffers at any byte offset without undefined behaviour, and never touches
 * bytes outside an element's data. `GCC ivdep` is true because out may alias a or b only exactly:
 * element i is read before it is written and no other iteration touches it, so there is no
 * loop-carried dependence. `restrict` would be false for the in-place forms, hence not used. */
#ifndef SHMCOLL_KERNELS_REDUCE_TEMPLATE_H
#define SHMCOLL_KERNELS_REDUCE_TEMPLATE_H

#include "kernels/kernels.h"
#include "kernels/reduce_elem.h"

#include <stddef.h>
#include <string.h>

/* static void name(a, b, out, n): out[i] = fn(a[i], b[i]) over elements of type T. */
#define REDUCE_KERNEL(name, T, fn)                                                                 \
    static void name(const void *a, const void *b, void *out, size_t n) {                          \
        const unsigned char *pa = a, *pb = b;                                                      \
        unsigned char *po = out;                                                                   \
        _Pragma("GCC ivdep") for (size_t i = 0; i < n; i++) {                                      \
            T x, y, r;                                                                             \
            memcpy(&x, pa + i * sizeof(T), sizeof(T));                                             \
            memcpy(&y, pb + i * sizeof(T), sizeof(T));                                             \
            r = fn(x, y);                                                                          \
            memcpy(po + i * sizeof(T), &r, sizeof(T));                                             \
        }                                                                                          \
    }

/* The kernels every ISA compiles: integers, C _Bool and MPI_BYTE (as bytes), float and double,
 * and complex SUM (a float SUM over twice as many components). Complex PROD is per ISA (below). */
#define REDUCE_DEFINE_INT_KERNELS(DT, sfx, T, W)                                                   \
    REDUCE_KERNEL(reduce_sum_##sfx, T, sum_##sfx)                                                  \
    REDUCE_KERNEL(reduce_prod_##sfx, T, prod_##sfx)                                                \
    REDUCE_KERNEL(reduce_min_##sfx, T, min_##sfx)                                                  \
    REDUCE_KERNEL(reduce_max_##sfx, T, max_##sfx)                                                  \
    REDUCE_KERNEL(reduce_land_##sfx, T, land_##sfx)                                                \
    REDUCE_KERNEL(reduce_lor_##sfx, T, lor_##sfx)                                                  \
    REDUCE_KERNEL(reduce_lxor_##sfx, T, lxor_##sfx)                                                \
    REDUCE_KERNEL(reduce_band_##sfx, T, band_##sfx)                                                \
    REDUCE_KERNEL(reduce_bor_##sfx, T, bor_##sfx)                                                  \
    REDUCE_KERNEL(reduce_bxor_##sfx, T, bxor_##sfx)

#define REDUCE_DEFINE_FLOAT_KERNELS(sfx, F, B)                                                     \
    REDUCE_KERNEL(reduce_sum_##sfx, F, sum_##sfx)                                                  \
    REDUCE_KERNEL(reduce_prod_##sfx, F, prod_##sfx)                                                \
    REDUCE_KERNEL(reduce_min_##sfx, B, min_##sfx)                                                  \
    REDUCE_KERNEL(reduce_max_##sfx, B, max_##sfx)                                                  \
    static void reduce_csum_##sfx(const void *a, const void *b, void *out, size_t n) {             \
        reduce_sum_##sfx(a, b, out, 2 * n);                                                        \
    }

#define REDUCE_DEFINE_COMMON_KERNELS()                                                             \
    REDUCE_INT_TYPES(REDUCE_DEFINE_INT_KERNELS)                                                    \
    REDUCE_FLOAT_TYPES(REDUCE_DEFINE_FLOAT_KERNELS)

/* Complex PROD with an ISA's vectors: the ISA file defines V cmul_<sfx>(V x, V y), the complex
 * products of two vectors of (re, im) pairs, for f32 (V32 of floats) and f64 (V64 of doubles),
 * with the per-lane arithmetic of the scalar oracle, then instantiates the kernels. Whole vectors
 * in place; the last partial vector goes through zero-filled bounce vectors, so the same
 * instructions compute it and no byte beyond the element range is touched. Vectors move with
 * memcpy: plain unaligned loads and stores, at any byte offset. */
#define REDUCE_CPROD_KERNEL(sfx, F, V)                                                             \
    static void reduce_cprod_##sfx(const void *a, const void *b, void *out, size_t n) {            \
        const unsigned char *pa = a, *pb = b;                                                      \
        unsigned char *po = out;                                                                   \
        const size_t bytes = 2 * sizeof(F) * n;                                                    \
        size_t at = 0;                                                                             \
        for (; at + sizeof(V) <= bytes; at += sizeof(V)) {                                         \
            V x, y, r;                                                                             \
            memcpy(&x, pa + at, sizeof x);                                                         \
            memcpy(&y, pb + at, sizeof y);                                                         \
            r = cmul_##sfx(x, y);                                                                  \
            memcpy(po + at, &r, sizeof r);                                                         \
        }                                                                                          \
        if (at < bytes) {                                                                          \
            V x, y, r;                                                                             \
            memset(&x, 0, sizeof x);                                                               \
            memset(&y, 0, sizeof y);                                                               \
            memcpy(&x, pa + at, bytes - at);                                                       \
            memcpy(&y, pb + at, bytes - at);                                                       \
            r = cmul_##sfx(x, y);                                                                  \
            memcpy(po + at, &r, bytes - at);                                                       \
        }                                                                                          \
    }

#define REDUCE_DEFINE_CPROD_KERNELS(V32, V64)                                                      \
    REDUCE_CPROD_KERNEL(f32, float, V32)                                                           \
    REDUCE_CPROD_KERNEL(f64, double, V64)

/* Table entries [dtype][op] for the common kernels; MPI-4 section 6.9.2 decides which pairs
 * exist: C integer x all arithmetic, logical and bitwise ops; Logical (C _Bool) x LAND, LOR,
 * LXOR; Byte x BAND, BOR, BXOR; Floating point x SUM, PROD, MIN, MAX; Complex x SUM, PROD. */
#define REDUCE_INT_ENTRIES(DT, sfx, T, W)                                                          \
    [SHMCOLL_DT_##DT][SHMCOLL_OP_SUM] = reduce_sum_##sfx,                                          \
    [SHMCOLL_DT_##DT][SHMCOLL_OP_PROD] = reduce_prod_##sfx,                                        \
    [SHMCOLL_DT_##DT][SHMCOLL_OP_MIN] = reduce_min_##sfx,                                          \
    [SHMCOLL_DT_##DT][SHMCOLL_OP_MAX] = reduce_max_##sfx,                                          \
    [SHMCOLL_DT_##DT][SHMCOLL_OP_LAND] = reduce_land_##sfx,                                        \
    [SHMCOLL_DT_##DT][SHMCOLL_OP_LOR] = reduce_lor_##sfx,                                          \
    [SHMCOLL_DT_##DT][SHMCOLL_OP_LXOR] = reduce_lxor_##sfx,                                        \
    [SHMCOLL_DT_##DT][SHMCOLL_OP_BAND] = reduce_band_##sfx,                                        \
    [SHMCOLL_DT_##DT][SHMCOLL_OP_BOR] = reduce_bor_##sfx,                                          \
    [SHMCOLL_DT_##DT][SHMCOLL_OP_BXOR] = reduce_bxor_##sfx,

/* _Bool is one byte holding 0 or 1 (checked in dtype.c); the uint8 logical kernels read any
 * non-zero byte as true, which avoids loading a _Bool object with another value (undefined). */
#define REDUCE_COMMON_ENTRIES                                                                      \
    REDUCE_INT_TYPES(REDUCE_INT_ENTRIES)                                                           \
    [SHMCOLL_DT_BOOL][SHMCOLL_OP_LAND] = reduce_land_u8,                                           \
    [SHMCOLL_DT_BOOL][SHMCOLL_OP_LOR] = reduce_lor_u8,                                             \
    [SHMCOLL_DT_BOOL][SHMCOLL_OP_LXOR] = reduce_lxor_u8,                                           \
    [SHMCOLL_DT_BYTE][SHMCOLL_OP_BAND] = reduce_band_u8,                                           \
    [SHMCOLL_DT_BYTE][SHMCOLL_OP_BOR] = reduce_bor_u8,                                             \
    [SHMCOLL_DT_BYTE][SHMCOLL_OP_BXOR] = reduce_bxor_u8,                                           \
    [SHMCOLL_DT_FLOAT][SHMCOLL_OP_SUM] = reduce_sum_f32,                                           \
    [SHMCOLL_DT_FLOAT][SHMCOLL_OP_PROD] = reduce_prod_f32,                                         \
    [SHMCOLL_DT_FLOAT][SHMCOLL_OP_MIN] = reduce_min_f32,                                           \
    [SHMCOLL_DT_FLOAT][SHMCOLL_OP_MAX] = reduce_max_f32,                                           \
    [SHMCOLL_DT_DOUBLE][SHMCOLL_OP_SUM] = reduce_sum_f64,                                          \
    [SHMCOLL_DT_DOUBLE][SHMCOLL_OP_PROD] = reduce_prod_f64,                                        \
    [SHMCOLL_DT_DOUBLE][SHMCOLL_OP_MIN] = reduce_min_f64,                                          \
    [SHMCOLL_DT_DOUBLE][SHMCOLL_OP_MAX] = reduce_max_f64,                                          \
    [SHMCOLL_DT_FLOAT_COMPLEX][SHMCOLL_OP_SUM] = reduce_csum_f32,                                  \
    [SHMCOLL_DT_DOUBLE_COMPLEX][SHMCOLL_OP_SUM] = reduce_csum_f64,

/* Complex PROD, whose kernels every ISA file defines its own way. */
#define REDUCE_CPROD_ENTRIES                                                                       \
    [SHMCOLL_DT_FLOAT_COMPLEX][SHMCOLL_OP_PROD] = reduce_cprod_f32,                                \
    [SHMCOLL_DT_DOUBLE_COMPLEX][SHMCOLL_OP_PROD] = reduce_cprod_f64,

/* The lookup every ISA file exports: its table entry, or NULL. */
#define REDUCE_DEFINE_LOOKUP(fname, table)                                                         \
    shmcoll_reduce_fn fname(shmcoll_dtype_t dtype, shmcoll_opcode_t op) {                          \
        if ((unsigned)dtype >= SHMCOLL_DT_COUNT || (unsigned)op >= SHMCOLL_OP_COUNT) return NULL;  \
        return table[dtype][op];                                                                   \
    }

#endif
