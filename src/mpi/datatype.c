/* The table of predefined MPI datatypes and the layout queries for derived ones.
 *
 * The table is built once after MPI_Init: MPI handles are link-time constants in MPICH but
 * addresses of library objects in Open MPI, so they are compared at run time, through a small
 * open-addressing hash. A row is kept only when MPI's size and extent of the type agree with the
 * shmcoll_dtype_t it maps to (C integer types map by size and signedness, Fortran types by the
 * size MPI reports); a type whose row is dropped still works through the contiguous-layout path
 * or the fallback, never through a kernel of the wrong width. */
#include "mpi/datatype.h"

#include "base/log.h"

#include <limits.h>
#include <stdint.h>
#include <wchar.h>

typedef struct type_row {
    MPI_Datatype handle;
    const char *name;
    shmcoll_dtype_t dtype;
    MPI_Count size, extent, span;
} type_row_t;

/* How a row's shmcoll type is found: given, or from the size MPI reports (Fortran kinds). */
typedef enum row_kind {
    ROW_FIXED,
    ROW_FORTRAN_INT,
    ROW_FORTRAN_REAL,
    ROW_FORTRAN_COMPLEX
} row_kind_t;

#define HASH_SLOTS 128 /* power of two, at least twice SHMCOLL_MPI_DATATYPE_MAX */

static type_row_t rows[SHMCOLL_MPI_DATATYPE_MAX];
static int nrows;
static struct {
    MPI_Datatype handle;
    int row; /* -1: empty slot */
} hash[HASH_SLOTS];

static unsigned hash_of(MPI_Datatype datatype) {
    uint64_t key = (uint64_t)(uintptr_t)datatype;
    key ^= key >> 29;
    key *= 0x9E3779B97F4A7C15ull;
    return (unsigned)(key >> 57) & (HASH_SLOTS - 1);
}

static int lookup(MPI_Datatype datatype) {
    for (unsigned slot = hash_of(datatype);; slot = (slot + 1) & (HASH_SLOTS - 1)) {
        if (hash[slot].row < 0) return -1;
        if (hash[slot].handle == datatype) return hash[slot].row;
    }
}

static shmcoll_dtype_t integer_dtype(size_t size, int is_signed) {
    switch (size) {
    case 1:
        return is_signed ? SHMCOLL_DT_INT8 : SHMCOLL_DT_UINT8;
    case 2:
        return is_signed ? SHMCOLL_DT_INT16 : SHMCOLL_DT_UINT16;
    case 4:
        return is_signed ? SHMCOLL_DT_INT32 : SHMCOLL_DT_UINT32;
    case 8:
        return is_signed ? SHMCOLL_DT_INT64 : SHMCOLL_DT_UINT64;
    default:
        return SHMCOLL_DT_COUNT;
    }
}

static shmcoll_dtype_t fortran_dtype(row_kind_t kind, MPI_Count size) {
    switch (kind) {
    case ROW_FORTRAN_INT:
        return integer_dtype((size_t)size, 1);
    case ROW_FORTRAN_REAL:
        return size == 4 ? SHMCOLL_DT_FLOAT : size == 8 ? SHMCOLL_DT_DOUBLE : SHMCOLL_DT_COUNT;
    case ROW_FORTRAN_COMPLEX:
        return size == 8    ? SHMCOLL_DT_FLOAT_COMPLEX
               : size == 16 ? SHMCOLL_DT_DOUBLE_COMPLEX
                            : SHMCOLL_DT_COUNT;
    default:
        return SHMCOLL_DT_COUNT;
    }
}

static void add_row(MPI_Datatype handle, const char *name, row_kind_t kind, shmcoll_dtype_t dtype) {
    /* Optional types (e.g. MPI_INTEGER16 in MPICH) may be defined as MPI_DATATYPE_NULL. */
    if (handle == MPI_DATATYPE_NULL || nrows == SHMCOLL_MPI_DATATYPE_MAX) return;
    if (lookup(handle) >= 0) return; /* an alias, e.g. MPI_LONG_LONG and MPI_LONG_LONG_INT */
    MPI_Count size = 0, lb = 0, extent = 0, true_lb = 0, true_extent = 0;
    if (PMPI_Type_size_x(handle, &size) != MPI_SUCCESS ||
        PMPI_Type_get_extent_x(handle, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent_x(handle, &true_lb, &true_extent) != MPI_SUCCESS)
        return;
    if (kind != ROW_FIXED) dtype = fortran_dtype(kind, size);
    if (dtype == SHMCOLL_DT_COUNT) return;
    if (lb != 0 || true_lb != 0 || (size_t)size != shmcoll_dtype_size(dtype) ||
        (size_t)extent != shmcoll_dtype_extent(dtype)) {
        shmcoll_log_verbose("%s (size %lld, extent %lld) does not match %s; not using its kernels",
                            name, (long long)size, (long long)extent, shmcoll_dtype_name(dtype));
        return;
    }
    rows[nrows] = (type_row_t){handle, name, dtype, size, extent, true_extent};
    unsigned slot = hash_of(handle);
    while (hash[slot].row >= 0) slot = (slot + 1) & (HASH_SLOTS - 1);
    hash[slot].handle = handle;
    hash[slot].row = nrows++;
}

/* is_signed is spelled per row: char and wchar_t signedness come from their limits (MIN != 0);
 * MPI_Aint, MPI_Offset and MPI_Count are signed by definition. */
#define ADD_INTEGER(handle, ctype, is_signed)                                                      \
    add_row(handle, #handle, ROW_FIXED, integer_dtype(sizeof(ctype), is_signed))
#define ADD_FIXED(handle, dtype)  add_row(handle, #handle, ROW_FIXED, dtype)
#define ADD_FORTRAN(handle, kind) add_row(handle, #handle, kind, SHMCOLL_DT_COUNT)

void shmcoll_mpi_datatype_init(void) {
    for (int slot = 0; slot < HASH_SLOTS; slot++) hash[slot].row = -1;
    nrows = 0;

    ADD_FIXED(MPI_DOUBLE, SHMCOLL_DT_DOUBLE);
    ADD_FIXED(MPI_FLOAT, SHMCOLL_DT_FLOAT);
    ADD_INTEGER(MPI_INT, int, 1);
    ADD_INTEGER(MPI_LONG, long, 1);
    ADD_INTEGER(MPI_UNSIGNED, unsigned, 0);
    ADD_INTEGER(MPI_UNSIGNED_LONG, unsigned long, 0);
    ADD_INTEGER(MPI_LONG_LONG_INT, long long, 1);
    ADD_INTEGER(MPI_LONG_LONG, long long, 1);
    ADD_INTEGER(MPI_UNSIGNED_LONG_LONG, unsigned long long, 0);
    ADD_INTEGER(MPI_SHORT, short, 1);
    ADD_INTEGER(MPI_UNSIGNED_SHORT, unsigned short, 0);
    ADD_INTEGER(MPI_CHAR, char, CHAR_MIN != 0);
    ADD_INTEGER(MPI_SIGNED_CHAR, signed char, 1);
    ADD_INTEGER(MPI_UNSIGNED_CHAR, unsigned char, 0);
    ADD_INTEGER(MPI_WCHAR, wchar_t, WCHAR_MIN != 0);
    ADD_INTEGER(MPI_INT8_T, int8_t, 1);
    ADD_INTEGER(MPI_INT16_T, int16_t, 1);
    ADD_INTEGER(MPI_INT32_T, int32_t, 1);
    ADD_INTEGER(MPI_INT64_T, int64_t, 1);
    ADD_INTEGER(MPI_UINT8_T, uint8_t, 0);
    ADD_INTEGER(MPI_UINT16_T, uint16_t, 0);
    ADD_INTEGER(MPI_UINT32_T, uint32_t, 0);
    ADD_INTEGER(MPI_UINT64_T, uint64_t, 0);
    ADD_INTEGER(MPI_AINT, MPI_Aint, 1);
    ADD_INTEGER(MPI_OFFSET, MPI_Offset, 1);
    ADD_INTEGER(MPI_COUNT, MPI_Count, 1);
    ADD_FIXED(MPI_C_BOOL, SHMCOLL_DT_BOOL);
    ADD_FIXED(MPI_LONG_DOUBLE, SHMCOLL_DT_LONG_DOUBLE);
    ADD_FIXED(MPI_C_COMPLEX, SHMCOLL_DT_FLOAT_COMPLEX);
    ADD_FIXED(MPI_C_FLOAT_COMPLEX, SHMCOLL_DT_FLOAT_COMPLEX);
    ADD_FIXED(MPI_C_DOUBLE_COMPLEX, SHMCOLL_DT_DOUBLE_COMPLEX);
    ADD_FIXED(MPI_C_LONG_DOUBLE_COMPLEX, SHMCOLL_DT_LONG_DOUBLE_COMPLEX);
    ADD_FIXED(MPI_FLOAT_INT, SHMCOLL_DT_FLOAT_INT);
    ADD_FIXED(MPI_DOUBLE_INT, SHMCOLL_DT_DOUBLE_INT);
    ADD_FIXED(MPI_LONG_INT, SHMCOLL_DT_LONG_INT);
    ADD_FIXED(MPI_2INT, SHMCOLL_DT_2INT);
    ADD_FIXED(MPI_SHORT_INT, SHMCOLL_DT_SHORT_INT);
    ADD_FIXED(MPI_LONG_DOUBLE_INT, SHMCOLL_DT_LONG_DOUBLE_INT);
    ADD_FIXED(MPI_BYTE, SHMCOLL_DT_BYTE);

    /* Fortran types, by the size this MPI library gives them. */
    ADD_FORTRAN(MPI_INTEGER, ROW_FORTRAN_INT);
    ADD_FORTRAN(MPI_REAL, ROW_FORTRAN_REAL);
    ADD_FORTRAN(MPI_DOUBLE_PRECISION, ROW_FORTRAN_REAL);
    ADD_FORTRAN(MPI_COMPLEX, ROW_FORTRAN_COMPLEX);
    ADD_FORTRAN(MPI_DOUBLE_COMPLEX, ROW_FORTRAN_COMPLEX);
#ifdef MPI_INTEGER1
    ADD_FORTRAN(MPI_INTEGER1, ROW_FORTRAN_INT);
#endif
#ifdef MPI_INTEGER2
    ADD_FORTRAN(MPI_INTEGER2, ROW_FORTRAN_INT);
#endif
#ifdef MPI_INTEGER4
    ADD_FORTRAN(MPI_INTEGER4, ROW_FORTRAN_INT);
#endif
#ifdef MPI_INTEGER8
    ADD_FORTRAN(MPI_INTEGER8, ROW_FORTRAN_INT);
#endif
#ifdef MPI_REAL4
    ADD_FORTRAN(MPI_REAL4, ROW_FORTRAN_REAL);
#endif
#ifdef MPI_REAL8
    ADD_FORTRAN(MPI_REAL8, ROW_FORTRAN_REAL);
#endif
#ifdef MPI_COMPLEX8
    ADD_FORTRAN(MPI_COMPLEX8, ROW_FORTRAN_COMPLEX);
#endif
#ifdef MPI_COMPLEX16
    ADD_FORTRAN(MPI_COMPLEX16, ROW_FORTRAN_COMPLEX);
#endif
}

int shmcoll_mpi_datatype_known(MPI_Datatype datatype) {
    return datatype != MPI_DATATYPE_NULL && lookup(datatype) >= 0;
}

const char *shmcoll_mpi_datatype_name(int index) {
    return index >= 0 && index < nrows ? rows[index].name : "derived datatype";
}

shmcoll_status_t shmcoll_mpi_datatype_layout(MPI_Datatype datatype, shmcoll_mpi_layout_t *layout) {
    if (datatype == MPI_DATATYPE_NULL) return SHMCOLL_ERR_INVALID;
    int row = lookup(datatype);
    if (row >= 0) {
        const int contiguous = rows[row].size == rows[row].extent;
        *layout = (shmcoll_mpi_layout_t){.predefined = 1,
                                         .dtype = rows[row].dtype,
                                         .index = row,
                                         .contiguous = contiguous,
                                         .dense = contiguous,
                                         .size = rows[row].size,
                                         .extent = rows[row].extent,
                                         .span = rows[row].span};
        return SHMCOLL_OK;
    }
    MPI_Count size, lb, extent, true_lb, true_extent;
    if (PMPI_Type_size_x(datatype, &size) != MPI_SUCCESS ||
        PMPI_Type_get_extent_x(datatype, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent_x(datatype, &true_lb, &true_extent) != MPI_SUCCESS ||
        size == MPI_UNDEFINED)
        return SHMCOLL_ERR_INVALID;
    /* Data exactly fills [0, size) of each element and elements follow each other without gap:
     * then count elements are count * size bytes at the buffer address. Only then can the bytes
     * also be in signature order (dense), which takes a walk of the type's constructors. */
    const int contiguous = size > 0 && size == extent && true_lb == 0 && true_extent == size;
    *layout = (shmcoll_mpi_layout_t){.predefined = 0,
                                     .dtype = SHMCOLL_DT_COUNT,
                                     .index = -1,
                                     .contiguous = contiguous,
                                     .dense = contiguous && shmcoll_mpi_datatype_dense(datatype),
                                     .size = size,
                                     .extent = extent,
                                     .span = true_lb + true_extent};
    return SHMCOLL_OK;
}
