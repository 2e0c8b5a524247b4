/* The semantics of every reduction on one element, defined once.
 *
 * Every ISA file builds its kernels from these functions, so the scalar oracle and the vector
 * kernels cannot disagree by construction; the unit test checks that the compiler kept them
 * bit-identical. The choices MPI leaves open are made here:
 *
 * - Signed SUM and PROD wrap modulo 2^width like every MPI library does, computed in an unsigned
 *   type at least as wide as unsigned int (so neither the sum nor a promoted-int product can
 *   overflow, which would be undefined behaviour).
 * - Logical ops (LAND, LOR, LXOR) treat any non-zero value as true and return 0 or 1.
 * - Floating MIN and MAX are IEEE 754-2019 minimum/maximum: a NaN operand wins (the left one if
 *   both are NaN) and -0 < +0. Unlike C's `a < b ? a : b` this is associative and commutative up
 *   to NaN payloads, so the result does not depend on the order or tree shape in which an
 *   algorithm combines the ranks. They work on the bit patterns so that the compiler can
 *   vectorise the selects without speculating floating-point arithmetic.
 * - Complex PROD is the textbook (ac - bd) + (bc + ad)i without the C Annex G recovery of
 *   infinities from NaN products (as in MPICH), computed without fused multiply-add so every ISA
 *   rounds identically; the operand order matches the vector kernels' addsub lanes.
 * - MAXLOC/MINLOC follow MPI-4 section 6.9.4 literally: the larger (smaller) value wins, equal
 *   values take the smaller index; a NaN value compares unordered and so the right operand wins. */
#ifndef SHMCOLL_KERNELS_REDUCE_ELEM_H
#define SHMCOLL_KERNELS_REDUCE_ELEM_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* X(DT, sfx, T, W): the integer types with W, the unsigned type their SUM and PROD use. */
#define REDUCE_INT_TYPES(X)                                                                        \
    X(INT8, i8, int8_t, unsigned)                                                                  \
    X(UINT8, u8, uint8_t, unsigned)                                                                \
    X(INT16, i16, int16_t, unsigned)                                                               \
    X(UINT16, u16, uint16_t, unsigned)                                                             \
    X(INT32, i32, int32_t, uint32_t)                                                               \
    X(UINT32, u32, uint32_t, uint32_t)                                                             \
    X(INT64, i64, int64_t, uint64_t)                                                               \
    X(UINT64, u64, uint64_t, uint64_t)

#define ELEM_INT_OPS(DT, sfx, T, W)                                                                \
    static inline T sum_##sfx(T x, T y) {                                                          \
        return (T)((W)x + (W)y);                                                                   \
    }                                                                                              \
    static inline T prod_##sfx(T x, T y) {                                                         \
        return (T)((W)x * (W)y);                                                                   \
    }                                                                                              \
    static inline T min_##sfx(T x, T y) {                                                          \
        return y < x ? y : x;                                                                      \
    }                                                                                              \
    static inline T max_##sfx(T x, T y) {                                                          \
        return x < y ? y : x;                                                                      \
    }                                                                                              \
    static inline T land_##sfx(T x, T y) {                                                         \
        return (T)((x != 0) & (y != 0));                                                           \
    }                                                                                              \
    static inline T lor_##sfx(T x, T y) {                                                          \
        return (T)((x != 0) | (y != 0));                                                           \
    }                                                                                              \
    static inline T lxor_##sfx(T x, T y) {                                                         \
        return (T)((x != 0) ^ (y != 0));                                                           \
    }                                                                                              \
    static inline T band_##sfx(T x, T y) {                                                         \
        return (T)(x & y);                                                                         \
    }                                                                                              \
    static inline T bor_##sfx(T x, T y) {                                                          \
        return (T)(x | y);                                                                         \
    }                                                                                              \
    static inline T bxor_##sfx(T x, T y) {                                                         \
        return (T)(x ^ y);                                                                         \
    }
REDUCE_INT_TYPES(ELEM_INT_OPS)
#undef ELEM_INT_OPS

/* X(sfx, F, B): the vectorisable floating types F with B, the unsigned type of their bits. */
#define REDUCE_FLOAT_TYPES(X)                                                                      \
    X(f32, float, uint32_t)                                                                        \
    X(f64, double, uint64_t)

/* MIN/MAX take and return bit patterns: equal operands are ±0 or identical, so OR (AND) of the
 * bits yields -0 (+0) when the signs differ and the common value otherwise. */
#define ELEM_FLOAT_OPS(sfx, F, B)                                                                  \
    static inline F sum_##sfx(F x, F y) {                                                          \
        return x + y;                                                                              \
    }                                                                                              \
    static inline F prod_##sfx(F x, F y) {                                                         \
        return x * y;                                                                              \
    }                                                                                              \
    static inline F from_bits_##sfx(B bits) {                                                      \
        F value;                                                                                   \
        memcpy(&value, &bits, sizeof value);                                                       \
        return value;                                                                              \
    }                                                                                              \
    static inline B min_##sfx(B xb, B yb) {                                                        \
        F x = from_bits_##sfx(xb), y = from_bits_##sfx(yb);                                        \
        B r = x < y ? xb : yb;                                                                     \
        r = x == y ? (B)(xb | yb) : r;                                                             \
        return x != x ? xb : r;                                                                    \
    }                                                                                              \
    static inline B max_##sfx(B xb, B yb) {                                                        \
        F x = from_bits_##sfx(xb), y = from_bits_##sfx(yb);                                        \
        B r = x > y ? xb : yb;                                                                     \
        r = x == y ? (B)(xb & yb) : r;                                                             \
        return x != x ? xb : r;                                                                    \
    }
REDUCE_FLOAT_TYPES(ELEM_FLOAT_OPS)
#undef ELEM_FLOAT_OPS

/* long double stays scalar (x87); same semantics, written with isnan/signbit. */
static inline long double sum_f80(long double x, long double y) {
    return x + y;
}
static inline long double prod_f80(long double x, long double y) {
    return x * y;
}
static inline long double min_f80(long double x, long double y) {
    if (isnan(x)) return x;
    if (isnan(y)) return y;
    if (x != y) return x < y ? x : y;
    return signbit(y) ? y : x;
}
static inline long double max_f80(long double x, long double y) {
    if (isnan(x)) return x;
    if (isnan(y)) return y;
    if (x != y) return x > y ? x : y;
    return signbit(y) ? x : y;
}

/* Complex product on (re, im) components; r may alias nothing (the caller passes locals). */
#define ELEM_COMPLEX_PROD(sfx, F)                                                                  \
    static inline void cprod_##sfx(F xr, F xi, F yr, F yi, F *rr, F *ri) {                         \
        *rr = xr * yr - xi * yi;                                                                   \
        *ri = xi * yr + xr * yi;                                                                   \
    }
ELEM_COMPLEX_PROD(f32, float)
ELEM_COMPLEX_PROD(f64, double)
ELEM_COMPLEX_PROD(f80, long double)
#undef ELEM_COMPLEX_PROD

/* MAXLOC/MINLOC on (value, index) pairs. */
#define ELEM_LOC_OPS(sfx, V)                                                                       \
    static inline void maxloc_##sfx(V xv, int xi, V yv, int yi, V *rv, int *ri) {                  \
        if (xv > yv) {                                                                             \
            *rv = xv, *ri = xi;                                                                    \
        } else if (xv == yv) {                                                                     \
            *rv = xv, *ri = xi < yi ? xi : yi;                                                     \
        } else {                                                                                   \
            *rv = yv, *ri = yi;                                                                    \
        }                                                                                          \
    }                                                                                              \
    static inline void minloc_##sfx(V xv, int xi, V yv, int yi, V *rv, int *ri) {                  \
        if (xv < yv) {                                                                             \
            *rv = xv, *ri = xi;                                                                    \
        } else if (xv == yv) {                                                                     \
            *rv = xv, *ri = xi < yi ? xi : yi;                                                     \
        } else {                                                                                   \
            *rv = yv, *ri = yi;                                                                    \
        }                                                                                          \
    }
ELEM_LOC_OPS(float_int, float)
ELEM_LOC_OPS(double_int, double)
ELEM_LOC_OPS(long_int, long)
ELEM_LOC_OPS(2int, int)
ELEM_LOC_OPS(short_int, short)
ELEM_LOC_OPS(long_double_int, long double)
#undef ELEM_LOC_OPS

#endif
