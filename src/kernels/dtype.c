/* Names and memory layout of the kernel element types and names of the reduction ops.
 *
 * Size is the bytes of data in one element as MPI_Type_size reports it (the sum of the
 * members); extent is the stride in an array. They differ for the pair types whose struct has
 * padding (MPI_DOUBLE_INT: 12 and 16), so both come from the C structs the kernels use. */
#include "kernels/kernels.h"
#include "kernels/pair_types.h"

#include <stddef.h>

/* The logical kernels treat C _Bool as one byte. */
_Static_assert(sizeof(_Bool) == 1, "C _Bool must be one byte");

#define PAIR_INFO(name, P, V)                                                                      \
    { name, sizeof(V) + sizeof(int), sizeof(P), offsetof(P, i) + sizeof(int) }
#define PLAIN_INFO(name, T)                                                                        \
    { name, sizeof(T), sizeof(T), sizeof(T) }

static const struct dtype_info {
    const char *name;
    size_t size;
    size_t extent;
    size_t data_end;
} dtype_table[SHMCOLL_DT_COUNT] = {
    [SHMCOLL_DT_INT8] = PLAIN_INFO("int8", int8_t),
    [SHMCOLL_DT_UINT8] = PLAIN_INFO("uint8", uint8_t),
    [SHMCOLL_DT_INT16] = PLAIN_INFO("int16", int16_t),
    [SHMCOLL_DT_UINT16] = PLAIN_INFO("uint16", uint16_t),
    [SHMCOLL_DT_INT32] = PLAIN_INFO("int32", int32_t),
    [SHMCOLL_DT_UINT32] = PLAIN_INFO("uint32", uint32_t),
    [SHMCOLL_DT_INT64] = PLAIN_INFO("int64", int64_t),
    [SHMCOLL_DT_UINT64] = PLAIN_INFO("uint64", uint64_t),
    [SHMCOLL_DT_BOOL] = PLAIN_INFO("bool", _Bool),
    [SHMCOLL_DT_FLOAT] = PLAIN_INFO("float", float),
    [SHMCOLL_DT_DOUBLE] = PLAIN_INFO("double", double),
    [SHMCOLL_DT_LONG_DOUBLE] = PLAIN_INFO("long_double", long double),
    [SHMCOLL_DT_FLOAT_COMPLEX] = PLAIN_INFO("float_complex", float _Complex),
    [SHMCOLL_DT_DOUBLE_COMPLEX] = PLAIN_INFO("double_complex", double _Complex),
    [SHMCOLL_DT_LONG_DOUBLE_COMPLEX] = PLAIN_INFO("long_double_complex", long double _Complex),
    [SHMCOLL_DT_FLOAT_INT] = PAIR_INFO("float_int", pair_float_int_t, float),
    [SHMCOLL_DT_DOUBLE_INT] = PAIR_INFO("double_int", pair_double_int_t, double),
    [SHMCOLL_DT_LONG_INT] = PAIR_INFO("long_int", pair_long_int_t, long),
    [SHMCOLL_DT_2INT] = PAIR_INFO("2int", pair_2int_t, int),
    [SHMCOLL_DT_SHORT_INT] = PAIR_INFO("short_int", pair_short_int_t, short),
    [SHMCOLL_DT_LONG_DOUBLE_INT] =
        PAIR_INFO("long_double_int", pair_long_double_int_t, long double),
    [SHMCOLL_DT_BYTE] = PLAIN_INFO("byte", unsigned char),
};

static const char *const opcode_names[SHMCOLL_OP_COUNT] = {
    [SHMCOLL_OP_SUM] = "sum",   [SHMCOLL_OP_PROD] = "prod",     [SHMCOLL_OP_MIN] = "min",
    [SHMCOLL_OP_MAX] = "max",   [SHMCOLL_OP_LAND] = "land",     [SHMCOLL_OP_LOR] = "lor",
    [SHMCOLL_OP_LXOR] = "lxor", [SHMCOLL_OP_BAND] = "band",     [SHMCOLL_OP_BOR] = "bor",
    [SHMCOLL_OP_BXOR] = "bxor", [SHMCOLL_OP_MAXLOC] = "maxloc", [SHMCOLL_OP_MINLOC] = "minloc",
};

static int dtype_valid(shmcoll_dtype_t dtype) {
    return (unsigned)dtype < SHMCOLL_DT_COUNT;
}

const char *shmcoll_dtype_name(shmcoll_dtype_t dtype) {
    return dtype_valid(dtype) ? dtype_table[dtype].name : "invalid";
}

size_t shmcoll_dtype_size(shmcoll_dtype_t dtype) {
    return dtype_valid(dtype) ? dtype_table[dtype].size : 0;
}

size_t shmcoll_dtype_extent(shmcoll_dtype_t dtype) {
    return dtype_valid(dtype) ? dtype_table[dtype].extent : 0;
}

size_t shmcoll_dtype_data_end(shmcoll_dtype_t dtype) {
    return dtype_valid(dtype) ? dtype_table[dtype].data_end : 0;
}

const char *shmcoll_opcode_name(shmcoll_opcode_t op) {
    return (unsigned)op < SHMCOLL_OP_COUNT ? opcode_names[op] : "invalid";
}
