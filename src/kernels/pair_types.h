/* Memory layout of the MPI pair types and of long double, shared by the kernels and the dtype
 * table.
 *
 * The pair types are real C structs so that the compiler, not a hand-written table, decides
 * offsets, padding and extent exactly as the MPI library does for MPI_DOUBLE_INT and friends.
 * An x87 long double holds 10 value bytes in a 16-byte slot; the kernels read and write only the
 * value bytes, so the slot's tail is treated like padding. */
#ifndef SHMCOLL_KERNELS_PAIR_TYPES_H
#define SHMCOLL_KERNELS_PAIR_TYPES_H

#include <float.h>

typedef struct pair_float_int {
    float v;
    int i;
} pair_float_int_t;

typedef struct pair_double_int {
    double v;
    int i;
} pair_double_int_t;

typedef struct pair_long_int {
    long v;
    int i;
} pair_long_int_t;

typedef struct pair_2int {
    int v;
    int i;
} pair_2int_t;

typedef struct pair_short_int {
    short v;
    int i;
} pair_short_int_t;

typedef struct pair_long_double_int {
    long double v;
    int i;
} pair_long_double_int_t;

/* Bytes of a long double that carry its value: 10 for the x87 80-bit format (64-bit mantissa),
 * the whole object elsewhere (IEEE quad, double-double). */
#define LDBL_VALUE_BYTES (LDBL_MANT_DIG == 64 ? (size_t)10 : sizeof(long double))

#endif
