/* Scalar reduction kernels: every (type, op) MPI defines, and the oracle the vector kernels are
 * tested against.
 *
 * Vectorisation is switched off for this file so the oracle is the plain element-by-element
 * evaluation of reduce_elem.h, independent of the auto-vectoriser whose output it checks.
 * Floating-point contraction is off in every kernel file: a fused multiply-add rounds once
 * where the scalar code rounds twice, and all ISAs must give identical bits. Long double, the
 * long double complex type and the MAXLOC/MINLOC pair types exist only here; the dispatcher
 * falls back to them from every ISA. */
#pragma GCC optimize("fp-contract=off", "no-tree-loop-vectorize", "no-tree-slp-vectorize")

#include "kernels/pair_types.h"
#include "kernels/reduce_isa.h"
#include "kernels/reduce_template.h"

#include <stddef.h>
#include <string.h>

REDUCE_DEFINE_COMMON_KERNELS()

/* Loads and stores of one scalar at any byte address; long double moves only its value bytes. */
#define SCALAR_IO(sfx, V, bytes)                                                                   \
    static inline V load_##sfx(const unsigned char *p) {                                           \
        V value = 0;                                                                               \
        memcpy(&value, p, bytes);                                                                  \
        return value;                                                                              \
    }                                                                                              \
    static inline void store_##sfx(unsigned char *p, V value) {                                    \
        memcpy(p, &value, bytes);                                                                  \
    }
SCALAR_IO(f32, float, sizeof(float))
SCALAR_IO(f64, double, sizeof(double))
SCALAR_IO(f80, long double, LDBL_VALUE_BYTES)
SCALAR_IO(int, int, sizeof(int))
SCALAR_IO(long, long, sizeof(long))
SCALAR_IO(short, short, sizeof(short))
#undef SCALAR_IO

#define SCALAR_F80_KERNEL(op)                                                                      \
    static void reduce_##op##_f80(const void *a, const void *b, void *out, size_t n) {             \
        const unsigned char *pa = a, *pb = b;                                                      \
        unsigned char *po = out;                                                                   \
        for (size_t i = 0; i < n; i++) {                                                           \
            size_t at = i * sizeof(long double);                                                   \
            store_f80(po + at, op##_f80(load_f80(pa + at), load_f80(pb + at)));                    \
        }                                                                                          \
    }
SCALAR_F80_KERNEL(sum)
SCALAR_F80_KERNEL(prod)
SCALAR_F80_KERNEL(min)
SCALAR_F80_KERNEL(max)
#undef SCALAR_F80_KERNEL

/* Complex elements are (re, im) pairs of F; both inputs are read before the output is written,
 * which keeps the in-place forms correct. */
#define SCALAR_COMPLEX_KERNELS(sfx, F)                                                             \
    static void reduce_cprod_##sfx(const void *a, const void *b, void *out, size_t n) {            \
        const unsigned char *pa = a, *pb = b;                                                      \
        unsigned char *po = out;                                                                   \
        for (size_t i = 0; i < n; i++) {                                                           \
            size_t re = 2 * i * sizeof(F), im = re + sizeof(F);                                    \
            F rr, ri;                                                                              \
            cprod_##sfx(load_##sfx(pa + re), load_##sfx(pa + im), load_##sfx(pb + re),             \
                        load_##sfx(pb + im), &rr, &ri);                                            \
            store_##sfx(po + re, rr);                                                              \
            store_##sfx(po + im, ri);                                                              \
        }                                                                                          \
    }
SCALAR_COMPLEX_KERNELS(f32, float)
SCALAR_COMPLEX_KERNELS(f64, double)
SCALAR_COMPLEX_KERNELS(f80, long double)
#undef SCALAR_COMPLEX_KERNELS

static void reduce_csum_f80(const void *a, const void *b, void *out, size_t n) {
    reduce_sum_f80(a, b, out, 2 * n);
}

/* MAXLOC/MINLOC: value and index are moved field by field, so the padding between and after
 * them is neither read nor written. */
#define SCALAR_LOC_KERNEL(op, sfx, P, V, vio)                                                      \
    static void reduce_##op##_##sfx(const void *a, const void *b, void *out, size_t n) {           \
        const unsigned char *pa = a, *pb = b;                                                      \
        unsigned char *po = out;                                                                   \
        const size_t v_at = offsetof(P, v), i_at = offsetof(P, i);                                 \
        for (size_t k = 0; k < n; k++) {                                                           \
            size_t at = k * sizeof(P);                                                             \
            V rv;                                                                                  \
            int ri;                                                                                \
            op##_##sfx(load_##vio(pa + at + v_at), load_int(pa + at + i_at),                       \
                       load_##vio(pb + at + v_at), load_int(pb + at + i_at), &rv, &ri);            \
            store_##vio(po + at + v_at, rv);                                                       \
            store_int(po + at + i_at, ri);                                                         \
        }                                                                                          \
    }
#define SCALAR_LOC_KERNELS(sfx, P, V, vio)                                                         \
    SCALAR_LOC_KERNEL(maxloc, sfx, P, V, vio)                                                      \
    SCALAR_LOC_KERNEL(minloc, sfx, P, V, vio)
SCALAR_LOC_KERNELS(float_int, pair_float_int_t, float, f32)
SCALAR_LOC_KERNELS(double_int, pair_double_int_t, double, f64)
SCALAR_LOC_KERNELS(long_int, pair_long_int_t, long, long)
SCALAR_LOC_KERNELS(2int, pair_2int_t, int, int)
SCALAR_LOC_KERNELS(short_int, pair_short_int_t, short, short)
SCALAR_LOC_KERNELS(long_double_int, pair_long_double_int_t, long double, f80)
#undef SCALAR_LOC_KERNELS
#undef SCALAR_LOC_KERNEL

#define LOC_ENTRIES(DT, sfx)                                                                       \
    [SHMCOLL_DT_##DT][SHMCOLL_OP_MAXLOC] = reduce_maxloc_##sfx,                                    \
    [SHMCOLL_DT_##DT][SHMCOLL_OP_MINLOC] = reduce_minloc_##sfx,

static const shmcoll_reduce_fn scalar_table[SHMCOLL_DT_COUNT][SHMCOLL_OP_COUNT] = {
    REDUCE_COMMON_ENTRIES[SHMCOLL_DT_FLOAT_COMPLEX][SHMCOLL_OP_PROD] = reduce_cprod_f32,
    [SHMCOLL_DT_DOUBLE_COMPLEX][SHMCOLL_OP_PROD] = reduce_cprod_f64,
    [SHMCOLL_DT_LONG_DOUBLE][SHMCOLL_OP_SUM] = reduce_sum_f80,
    [SHMCOLL_DT_LONG_DOUBLE][SHMCOLL_OP_PROD] = reduce_prod_f80,
    [SHMCOLL_DT_LONG_DOUBLE][SHMCOLL_OP_MIN] = reduce_min_f80,
    [SHMCOLL_DT_LONG_DOUBLE][SHMCOLL_OP_MAX] = reduce_max_f80,
    [SHMCOLL_DT_LONG_DOUBLE_COMPLEX][SHMCOLL_OP_SUM] = reduce_csum_f80,
    [SHMCOLL_DT_LONG_DOUBLE_COMPLEX][SHMCOLL_OP_PROD] = reduce_cprod_f80,
    LOC_ENTRIES(FLOAT_INT, float_int) LOC_ENTRIES(DOUBLE_INT, double_int)
        LOC_ENTRIES(LONG_INT, long_int) LOC_ENTRIES(2INT, 2int) LOC_ENTRIES(SHORT_INT, short_int)
            LOC_ENTRIES(LONG_DOUBLE_INT, long_double_int)};

REDUCE_DEFINE_LOOKUP(shmcoll_kernel_reduce_lookup_scalar, scalar_table)
