/* Reduction test cases: fill, combine and compare per (datatype, op). See reduce_cases.h. */
#include "reduce_cases.h"
#include "mpi_check.h"

#include <complex.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One case over a C scalar type: value from the hash, combine expression over (a = in, b = inout).
 */
#define SCALAR_CASE(tag, ctype, salt, value, combined)                                             \
    static void fill_##tag(void *buf, int rank, size_t n) {                                        \
        ctype *out = buf;                                                                          \
        for (size_t i = 0; i < n; i++) {                                                           \
            uint32_t h = check_hash(rank, i, salt);                                                \
            out[i] = (value);                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void combine_##tag(const void *in_, void *inout_, size_t n) {                           \
        const ctype *in = in_;                                                                     \
        ctype *inout = inout_;                                                                     \
        for (size_t i = 0; i < n; i++) {                                                           \
            ctype a = in[i], b = inout[i];                                                         \
            inout[i] = (combined);                                                                 \
        }                                                                                          \
    }                                                                                              \
    static int equal_##tag(const void *a, const void *b) {                                         \
        return *(const ctype *)a == *(const ctype *)b;                                             \
    }

SCALAR_CASE(int_sum, int, 1, (int)(h % 2001) - 1000, a + b)
SCALAR_CASE(double_sum, double, 2, (double)(h % 1001) - 500.0, a + b)
SCALAR_CASE(float_max, float, 3, (float)(h % 100001) / 8.0f - 6000.0f, a > b ? a : b)
SCALAR_CASE(ulong_prod, unsigned long, 4, 1ul + h % 7, a *b)
SCALAR_CASE(uchar_bxor, unsigned char, 5, (unsigned char)h, (unsigned char)(a ^ b))
SCALAR_CASE(bool_lor, bool, 6, h % 5 == 0, a || b)
SCALAR_CASE(int64_min, int64_t, 7, (int64_t)(h % 1000003) * 1000003 - ((int64_t)1 << 40),
            a < b ? a : b)
SCALAR_CASE(ldouble_sum, long double, 8, (long double)(h % 4001) - 2000.0L, a + b)
SCALAR_CASE(fint_bor, int, 9, (int)(h & 0x7fff), a | b)

/* The pair types: MAXLOC / MINLOC keep the lower index among equal values. */
#define PAIR_CASE(tag, vtype, salt, better)                                                        \
    typedef struct {                                                                               \
        vtype v;                                                                                   \
        int i;                                                                                     \
    } tag##_t;                                                                                     \
    static void fill_##tag(void *buf, int rank, size_t n) {                                        \
        tag##_t *out = buf;                                                                        \
        for (size_t i = 0; i < n; i++) {                                                           \
            uint32_t h = check_hash(rank, i, salt);                                                \
            out[i].v = (vtype)(h % 4);                                                             \
            out[i].i = (int)((h >> 8) % 50);                                                       \
        }                                                                                          \
    }                                                                                              \
    static void combine_##tag(const void *in_, void *inout_, size_t n) {                           \
        const tag##_t *in = in_;                                                                   \
        tag##_t *inout = inout_;                                                                   \
        for (size_t i = 0; i < n; i++) {                                                           \
            tag##_t a = in[i], b = inout[i];                                                       \
            if (a.v better b.v)                                                                    \
                inout[i] = a;                                                                      \
            else if (a.v == b.v && a.i < b.i)                                                      \
                inout[i].i = a.i;                                                                  \
        }                                                                                          \
    }                                                                                              \
    static int equal_##tag(const void *a_, const void *b_) {                                       \
        const tag##_t *a = a_, *b = b_;                                                            \
        return a->v == b->v && a->i == b->i;                                                       \
    }                                                                                              \
    /* the struct's one gap: between v and i, or else after i */                                   \
    enum {                                                                                         \
        tag##_gap_at = offsetof(tag##_t, i) > sizeof(vtype) ? sizeof(vtype)                        \
                                                            : offsetof(tag##_t, i) + sizeof(int),  \
        tag##_gap_len = sizeof(tag##_t) - sizeof(vtype) - sizeof(int)                              \
    };

PAIR_CASE(double_int_maxloc, double, 10, >)
PAIR_CASE(two_int_minloc, int, 11, <)
PAIR_CASE(short_int_maxloc, short, 12, >)

static void fill_dcomplex_sum(void *buf, int rank, size_t n) {
    double complex *out = buf;
    for (size_t i = 0; i < n; i++) {
        uint32_t h = check_hash(rank, i, 13);
        out[i] = CMPLX((double)(h % 201) - 100.0, (double)((h >> 9) % 301) - 150.0);
    }
}
static void combine_dcomplex_sum(const void *in_, void *inout_, size_t n) {
    const double complex *in = in_;
    double complex *inout = inout_;
    for (size_t i = 0; i < n; i++) inout[i] = in[i] + inout[i];
}
static int equal_dcomplex_sum(const void *a, const void *b) {
    return creal(*(const double complex *)a) == creal(*(const double complex *)b) &&
           cimag(*(const double complex *)a) == cimag(*(const double complex *)b);
}

/* MPI_2DOUBLE_PRECISION (Fortran pair, contiguous) with MINLOC: predefined, but without a
 * shmcoll kernel, so it goes through the MPI library's own op via PMPI_Reduce_local. */
typedef struct {
    double v, i;
} two_double_t;
static void fill_two_double_minloc(void *buf, int rank, size_t n) {
    two_double_t *out = buf;
    for (size_t i = 0; i < n; i++) {
        uint32_t h = check_hash(rank, i, 14);
        out[i] = (two_double_t){(double)(h % 4), (double)((h >> 8) % 50)};
    }
}
static void combine_two_double_minloc(const void *in_, void *inout_, size_t n) {
    const two_double_t *in = in_;
    two_double_t *inout = inout_;
    for (size_t i = 0; i < n; i++) {
        if (in[i].v < inout[i].v)
            inout[i] = in[i];
        else if (in[i].v == inout[i].v && in[i].i < inout[i].i)
            inout[i].i = in[i].i;
    }
}
static int equal_two_double_minloc(const void *a, const void *b) {
    return !memcmp(a, b, sizeof(two_double_t));
}

/* A commutative user op on a predefined type (a wrapping sum of unsigned ints). */
static void fill_uint_usersum(void *buf, int rank, size_t n) {
    unsigned *out = buf;
    for (size_t i = 0; i < n; i++) out[i] = check_hash(rank, i, 16);
}
static void combine_uint_usersum(const void *in_, void *inout_, size_t n) {
    const unsigned *in = in_;
    unsigned *inout = inout_;
    for (size_t i = 0; i < n; i++) inout[i] += in[i];
}
static int equal_uint_usersum(const void *a, const void *b) {
    return *(const unsigned *)a == *(const unsigned *)b;
}
static void usersum_op(void *in, void *inout, int *len, MPI_Datatype *type) {
    combine_uint_usersum(in, inout, (size_t)*len);
}

/* 2x2 matrices (row major) under the product: inout = in x inout, not commutative. Inputs are
 * chosen among four small integer matrices, so products stay exact in double. */
typedef struct {
    double m[4];
} mat2_t;
static void fill_matmul(void *buf, int rank, size_t n) {
    static const mat2_t choices[4] = {
        {{1, 1, 0, 1}}, {{1, 0, 1, 1}}, {{0, 1, 1, 0}}, {{2, 1, 1, 1}}};
    mat2_t *out = buf;
    for (size_t i = 0; i < n; i++) out[i] = choices[check_hash(rank, i, 15) % 4];
}
static void combine_matmul(const void *in_, void *inout_, size_t n) {
    const mat2_t *in = in_;
    mat2_t *inout = inout_;
    for (size_t i = 0; i < n; i++) {
        const double *a = in[i].m, *b = inout[i].m;
        mat2_t r = {{a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                     a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]}};
        inout[i] = r;
    }
}
static int equal_matmul(const void *a, const void *b) {
    return !memcmp(a, b, sizeof(mat2_t));
}
static void matmul_op(void *in, void *inout, int *len, MPI_Datatype *type) {
    combine_matmul(in, inout, (size_t)*len);
}

#define CASE(tag, type_, op_, ctype)                                                               \
    (reduce_case_t) {                                                                              \
        .name = #tag, .type = type_, .op = op_, .extent = sizeof(ctype), .fill = fill_##tag,       \
        .combine = combine_##tag, .equal = equal_##tag                                             \
    }
/* A pair type's case, with its gap. */
#define PAIR(tag, type_, op_)                                                                      \
    (reduce_case_t) {                                                                              \
        .name = #tag, .type = type_, .op = op_, .extent = sizeof(tag##_t), .fill = fill_##tag,     \
        .combine = combine_##tag, .equal = equal_##tag, .gap_at = tag##_gap_at,                    \
        .gap_len = tag##_gap_len                                                                   \
    }

int reduce_cases_create(reduce_case_t *cases, int max) {
    int n = 0;
    MPI_Datatype mat2;
    MPI_Op matmul, usersum;
    MPI_Type_contiguous(4, MPI_DOUBLE, &mat2);
    MPI_Type_commit(&mat2);
    MPI_Op_create(matmul_op, 0, &matmul);
    MPI_Op_create(usersum_op, 1, &usersum);

    reduce_case_t all[] = {
        CASE(int_sum, MPI_INT, MPI_SUM, int),
        CASE(double_sum, MPI_DOUBLE, MPI_SUM, double),
        CASE(float_max, MPI_FLOAT, MPI_MAX, float),
        CASE(ulong_prod, MPI_UNSIGNED_LONG, MPI_PROD, unsigned long),
        CASE(uchar_bxor, MPI_UNSIGNED_CHAR, MPI_BXOR, unsigned char),
        CASE(bool_lor, MPI_C_BOOL, MPI_LOR, bool),
        CASE(int64_min, MPI_INT64_T, MPI_MIN, int64_t),
        CASE(ldouble_sum, MPI_LONG_DOUBLE, MPI_SUM, long double),
        CASE(fint_bor, MPI_INTEGER, MPI_BOR, int),
        PAIR(double_int_maxloc, MPI_DOUBLE_INT, MPI_MAXLOC),
        PAIR(two_int_minloc, MPI_2INT, MPI_MINLOC),
        PAIR(short_int_maxloc, MPI_SHORT_INT, MPI_MAXLOC),
        CASE(dcomplex_sum, MPI_C_DOUBLE_COMPLEX, MPI_SUM, double complex),
        CASE(two_double_minloc, MPI_2DOUBLE_PRECISION, MPI_MINLOC, two_double_t),
        CASE(uint_usersum, MPI_UNSIGNED, usersum, unsigned),
        CASE(matmul, mat2, matmul, mat2_t),
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0] && n < max; i++) {
        /* The Fortran types stand for 4-byte INTEGER and 8-byte DOUBLE PRECISION here. */
        MPI_Count size = 0;
        PMPI_Type_size_x(all[i].type, &size);
        if (all[i].type == MPI_INTEGER && size != sizeof(int)) continue;
        if (all[i].type == MPI_2DOUBLE_PRECISION && size != sizeof(two_double_t)) continue;
        cases[n++] = all[i];
    }
    return n;
}

void reduce_cases_free(reduce_case_t *cases, int ncases) {
    for (int i = 0; i < ncases; i++) {
        if (!strcmp(cases[i].name, "matmul")) {
            MPI_Type_free(&cases[i].type);
            MPI_Op_free(&cases[i].op);
        }
        if (!strcmp(cases[i].name, "uint_usersum")) MPI_Op_free(&cases[i].op);
    }
}

void reduce_case_expected(const reduce_case_t *c, int p, size_t n, void *out) {
    /* Folded from the right: x(p-2) op x(p-1) first, then x(p-3) op that, ... */
    c->fill(out, p - 1, n);
    void *input = malloc(n * c->extent + 1);
    for (int r = p - 2; r >= 0; r--) {
        c->fill(input, r, n);
        c->combine(input, out, n);
    }
    free(input);
}

size_t reduce_case_mismatch(const reduce_case_t *c, const void *got, const void *want, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!c->equal((const char *)got + i * c->extent, (const char *)want + i * c->extent))
            return i;
    return n;
}

size_t reduce_case_gap_written(const reduce_case_t *c, const void *buf, size_t n,
                               unsigned char byte) {
    for (size_t i = 0; i < n; i++)
        for (size_t b = 0; b < c->gap_len; b++)
            if (((const unsigned char *)buf)[i * c->extent + c->gap_at + b] != byte) return i;
    return n;
}
