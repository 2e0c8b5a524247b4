/* Test data for reductions: generators, the scalar-oracle reference, layout-aware comparison;
 * byte streams and a random stream. See test_data.h for the choice of values. */
#include "test_data.h"

#include <complex.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    float v;
    int i;
} float_int_t;
typedef struct {
    double v;
    int i;
} double_int_t;
typedef struct {
    long v;
    int i;
} long_int_t;
typedef struct {
    int v;
    int i;
} two_int_t;
typedef struct {
    short v;
    int i;
} short_int_t;
typedef struct {
    long double v;
    int i;
} long_double_int_t;

/* Bytes of an x87 long double that carry the value (the rest of its 16 bytes is padding). */
#define LD_BYTES 10

/* Data bytes of one element, as (offset, length) pieces. A piece of the length of a float,
 * double or long double in a floating type is compared by value: +0 and -0 are the same result
 * (a product's zero takes its sign from the evaluation order, which MPI leaves open). */
typedef struct layout {
    int n;
    size_t off[2], len[2];
    size_t extent; /* sizeof the C type */
    int floating;  /* the first piece (or both, for complex types) is floating point */
} layout_t;

static layout_t one_piece(size_t len, size_t extent) {
    return (layout_t){1, {0, 0}, {len, 0}, extent, 0};
}

static layout_t two_pieces(size_t off0, size_t len0, size_t off1, size_t len1, size_t extent) {
    return (layout_t){2, {off0, off1}, {len0, len1}, extent, 0};
}

static layout_t floating(layout_t l) {
    l.floating = 1;
    return l;
}

static layout_t type_layout(shmcoll_dtype_t dt) {
    switch (dt) {
    case SHMCOLL_DT_INT8:
    case SHMCOLL_DT_UINT8:
    case SHMCOLL_DT_BYTE:
        return one_piece(1, 1);
    case SHMCOLL_DT_BOOL:
        return one_piece(sizeof(_Bool), sizeof(_Bool));
    case SHMCOLL_DT_INT16:
    case SHMCOLL_DT_UINT16:
        return one_piece(2, 2);
    case SHMCOLL_DT_INT32:
    case SHMCOLL_DT_UINT32:
        return one_piece(4, 4);
    case SHMCOLL_DT_FLOAT:
        return floating(one_piece(4, 4));
    case SHMCOLL_DT_INT64:
    case SHMCOLL_DT_UINT64:
        return one_piece(8, 8);
    case SHMCOLL_DT_DOUBLE:
        return floating(one_piece(8, 8));
    case SHMCOLL_DT_FLOAT_COMPLEX:
        return floating(two_pieces(0, 4, 4, 4, 8));
    case SHMCOLL_DT_DOUBLE_COMPLEX:
        return floating(two_pieces(0, 8, 8, 8, 16));
    case SHMCOLL_DT_LONG_DOUBLE:
        return floating(one_piece(LD_BYTES, sizeof(long double)));
    case SHMCOLL_DT_LONG_DOUBLE_COMPLEX:
        return floating(
            two_pieces(0, LD_BYTES, sizeof(long double), LD_BYTES, sizeof(long double _Complex)));
    case SHMCOLL_DT_FLOAT_INT:
        return floating(two_pieces(0, 4, offsetof(float_int_t, i), 4, sizeof(float_int_t)));
    case SHMCOLL_DT_DOUBLE_INT:
        return floating(two_pieces(0, 8, offsetof(double_int_t, i), 4, sizeof(double_int_t)));
    case SHMCOLL_DT_LONG_INT:
        return two_pieces(0, sizeof(long), offsetof(long_int_t, i), 4, sizeof(long_int_t));
    case SHMCOLL_DT_2INT:
        return two_pieces(0, 4, offsetof(two_int_t, i), 4, sizeof(two_int_t));
    case SHMCOLL_DT_SHORT_INT:
        return two_pieces(0, 2, offsetof(short_int_t, i), 4, sizeof(short_int_t));
    case SHMCOLL_DT_LONG_DOUBLE_INT:
        return floating(
            two_pieces(0, LD_BYTES, offsetof(long_double_int_t, i), 4, sizeof(long_double_int_t)));
    default:
        return one_piece(0, 0);
    }
}

static size_t layout_end(const layout_t *l) {
    size_t end = l->off[l->n - 1] + l->len[l->n - 1];
    return end;
}

uint64_t test_data_mix(uint64_t seed, uint64_t a, uint64_t b) {
    uint64_t z = seed + 0x9e3779b97f4a7c15ull * (a + 1) + 0xbf58476d1ce4e5b9ull * (b + 7);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void test_data_bytes(void *out, size_t off, size_t n, uint64_t seed, uint64_t key) {
    unsigned char *o = out;
    for (size_t i = 0; i < n;) {
        const size_t at = off + i;
        const uint64_t w = test_data_mix(seed, key, at / 8);
        for (size_t k = at % 8; k < 8 && i < n; k++, i++) o[i] = (unsigned char)(w >> (8 * k));
    }
}

uint64_t test_data_xorshift(uint64_t *state) {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 0x2545f4914f6cdd1dull;
}

void test_data_random_bytes(uint64_t *state, void *buf, size_t len) {
    unsigned char *b = buf;
    for (size_t i = 0; i < len; i += 8) {
        const uint64_t v = test_data_xorshift(state);
        memcpy(b + i, &v, len - i < 8 ? len - i : 8);
    }
}

int test_data_check_layouts(void) {
    int bad = 0;
    for (int dt = 0; dt < SHMCOLL_DT_COUNT; dt++) {
        layout_t l = type_layout((shmcoll_dtype_t)dt);
        size_t size = shmcoll_dtype_size((shmcoll_dtype_t)dt);
        size_t extent = shmcoll_dtype_extent((shmcoll_dtype_t)dt);
        size_t data = l.len[0] + (l.n > 1 ? l.len[1] : 0);
        /* size counts data bytes; x87 long doubles count 16 although 10 carry the value. */
        int ld = dt == SHMCOLL_DT_LONG_DOUBLE || dt == SHMCOLL_DT_LONG_DOUBLE_COMPLEX ||
                 dt == SHMCOLL_DT_LONG_DOUBLE_INT;
        /* Pair types end at their int; every other type at its size. */
        int pair = dt >= SHMCOLL_DT_FLOAT_INT && dt <= SHMCOLL_DT_LONG_DOUBLE_INT;
        size_t data_end = shmcoll_dtype_data_end((shmcoll_dtype_t)dt);
        size_t want_end = pair ? layout_end(&l) : size;
        if (extent != l.extent || size > extent || (!ld && size != data) || (ld && size < data) ||
            data_end != want_end) {
            fprintf(stderr,
                    "%s: kernels say size %zu extent %zu data end %zu; the C layout has %zu data "
                    "bytes ending at %zu, extent %zu\n",
                    shmcoll_dtype_name((shmcoll_dtype_t)dt), size, extent, data_end, data, want_end,
                    l.extent);
            bad = 1;
        }
    }
    return bad;
}

int test_data_op(shmcoll_dtype_t dtype, shmcoll_opcode_t op, shmcoll_reduce_op_t *out) {
    static char names[SHMCOLL_DT_COUNT][SHMCOLL_OP_COUNT][48];
    shmcoll_reduce_fn kernel = shmcoll_kernel_reduce(dtype, op);
    if (!kernel) return -1;
    snprintf(names[dtype][op], sizeof names[dtype][op], "%s/%s", shmcoll_opcode_name(op),
             shmcoll_dtype_name(dtype));
    *out = (shmcoll_reduce_op_t){.kernel = kernel,
                                 .size = shmcoll_dtype_size(dtype),
                                 .extent = shmcoll_dtype_extent(dtype),
                                 .data_end = shmcoll_dtype_data_end(dtype),
                                 .commutative = 1,
                                 .name = names[dtype][op]};
    return 0;
}

size_t test_data_span(shmcoll_dtype_t dtype, size_t n) {
    layout_t l = type_layout(dtype);
    size_t size = shmcoll_dtype_size(dtype);
    size_t end = layout_end(&l) > size ? layout_end(&l) : size;
    return n ? (n - 1) * l.extent + end : 0;
}

size_t test_data_align(shmcoll_dtype_t dtype) {
    size_t extent = type_layout(dtype).extent, a = 16;
    while (a > 1 && extent % a) a >>= 1;
    return a;
}

/* One generated value: integer part, real/imaginary parts, and a location for pair types. */
typedef struct value {
    long long iv;
    double re, im;
    int loc;
} value_t;

static int is_unsigned(shmcoll_dtype_t dt) {
    return dt == SHMCOLL_DT_UINT8 || dt == SHMCOLL_DT_UINT16 || dt == SHMCOLL_DT_UINT32 ||
           dt == SHMCOLL_DT_UINT64 || dt == SHMCOLL_DT_BYTE || dt == SHMCOLL_DT_BOOL;
}

static int bits_of(shmcoll_dtype_t dt) {
    return (int)(8 * type_layout(dt).len[0]);
}

/* A value in [lo, hi] from hash h. */
static long long in_range(uint64_t h, long long lo, long long hi) {
    return lo + (long long)(h % (uint64_t)(hi - lo + 1));
}

static value_t generate(shmcoll_dtype_t dt, shmcoll_opcode_t op, int rank, int p, uint64_t h,
                        size_t index) {
    value_t v = {0, 0, 0, 0};
    uint64_t h2 = h >> 20;
    int uns = is_unsigned(dt), bits = bits_of(dt);
    int is_bool = dt == SHMCOLL_DT_BOOL;
    switch (op) {
    case SHMCOLL_OP_SUM:
        if (bits == 8)
            v.iv = uns ? in_range(h, 0, 3) : in_range(h, -1, 1);
        else if (bits == 16)
            v.iv = uns ? in_range(h, 0, 300) : in_range(h, -300, 300);
        else
            v.iv = uns ? in_range(h, 0, 2000) : in_range(h, -1000, 1000);
        v.re = (double)in_range(h, -1000, 1000);
        v.im = (double)in_range(h2, -1000, 1000);
        break;
    case SHMCOLL_OP_PROD: {
        /* One rank per index contributes 2; the rest contribute +-1: |product| <= 2. */
        long long mag = (long long)(index % (size_t)(p + 1)) == rank ? 2 : 1;
        long long sign = uns || (h & 3) ? 1 : -1;
        v.iv = sign * mag;
        v.re = (double)v.iv;
        switch (h2 & 3) { /* complex: one of 1, -1, i, -i, times mag */
        case 0:
            v.re = (double)mag, v.im = 0;
            break;
        case 1:
            v.re = -(double)mag, v.im = 0;
            break;
        case 2:
            v.re = 0, v.im = (double)mag;
            break;
        default:
            v.re = 0, v.im = -(double)mag;
            break;
        }
        if (dt != SHMCOLL_DT_FLOAT_COMPLEX && dt != SHMCOLL_DT_DOUBLE_COMPLEX &&
            dt != SHMCOLL_DT_LONG_DOUBLE_COMPLEX)
            v.re = (double)v.iv, v.im = 0;
        break;
    }
    case SHMCOLL_OP_MIN:
    case SHMCOLL_OP_MAX:
        v.iv = uns ? in_range(h, 0, 200) : in_range(h, -100, 100);
        v.re = (double)in_range(h, -400, 400) / 4.0; /* quarters are exact */
        break;
    case SHMCOLL_OP_LAND: /* mostly true, with "true" values other than 1 */
        v.iv = h % (uint64_t)(2 * p) == 0 ? 0 : (is_bool ? 1 : in_range(h2, 1, 5));
        break;
    case SHMCOLL_OP_LOR:
        v.iv = h % (uint64_t)(2 * p) != 0 ? 0 : (is_bool ? 1 : in_range(h2, 1, 5));
        break;
    case SHMCOLL_OP_LXOR:
        v.iv = (h & 1) ? (is_bool ? 1 : in_range(h2, 1, 5)) : 0;
        break;
    case SHMCOLL_OP_BAND: /* mostly all ones, sometimes one bit cleared */
        v.iv = (long long)((h & 3) ? ~0ull : ~(1ull << (h2 % (uint64_t)bits)));
        break;
    case SHMCOLL_OP_BOR:
        v.iv = (long long)((h & 3) ? 0 : 1ull << (h2 % (uint64_t)bits));
        break;
    case SHMCOLL_OP_BXOR:
        v.iv = (long long)h2;
        break;
    case SHMCOLL_OP_MAXLOC:
    case SHMCOLL_OP_MINLOC:
        v.iv = in_range(h, 0, 3); /* frequent ties: the lower location must win */
        v.re = (double)v.iv;
        v.loc = (int)(h2 % 200000);
        break;
    default:
        break;
    }
    return v;
}

static void write_elem(shmcoll_dtype_t dt, void *dst, const value_t *v) {
    switch (dt) {
    case SHMCOLL_DT_INT8:
        *(int8_t *)dst = (int8_t)v->iv;
        break;
    case SHMCOLL_DT_UINT8:
    case SHMCOLL_DT_BYTE:
        *(uint8_t *)dst = (uint8_t)v->iv;
        break;
    case SHMCOLL_DT_INT16:
        *(int16_t *)dst = (int16_t)v->iv;
        break;
    case SHMCOLL_DT_UINT16:
        *(uint16_t *)dst = (uint16_t)v->iv;
        break;
    case SHMCOLL_DT_INT32:
        *(int32_t *)dst = (int32_t)v->iv;
        break;
    case SHMCOLL_DT_UINT32:
        *(uint32_t *)dst = (uint32_t)v->iv;
        break;
    case SHMCOLL_DT_INT64:
        *(int64_t *)dst = (int64_t)v->iv;
        break;
    case SHMCOLL_DT_UINT64:
        *(uint64_t *)dst = (uint64_t)v->iv;
        break;
    case SHMCOLL_DT_BOOL:
        *(_Bool *)dst = v->iv != 0;
        break;
    case SHMCOLL_DT_FLOAT:
        *(float *)dst = (float)v->re;
        break;
    case SHMCOLL_DT_DOUBLE:
        *(double *)dst = v->re;
        break;
    case SHMCOLL_DT_LONG_DOUBLE:
        *(long double *)dst = v->re;
        break;
    case SHMCOLL_DT_FLOAT_COMPLEX:
        *(float _Complex *)dst = CMPLXF((float)v->re, (float)v->im);
        break;
    case SHMCOLL_DT_DOUBLE_COMPLEX:
        *(double _Complex *)dst = CMPLX(v->re, v->im);
        break;
    case SHMCOLL_DT_LONG_DOUBLE_COMPLEX:
        *(long double _Complex *)dst = CMPLXL(v->re, v->im);
        break;
    case SHMCOLL_DT_FLOAT_INT:
        ((float_int_t *)dst)->v = (float)v->re, ((float_int_t *)dst)->i = v->loc;
        break;
    case SHMCOLL_DT_DOUBLE_INT:
        ((double_int_t *)dst)->v = v->re, ((double_int_t *)dst)->i = v->loc;
        break;
    case SHMCOLL_DT_LONG_INT:
        ((long_int_t *)dst)->v = (long)v->iv, ((long_int_t *)dst)->i = v->loc;
        break;
    case SHMCOLL_DT_2INT:
        ((two_int_t *)dst)->v = (int)v->iv, ((two_int_t *)dst)->i = v->loc;
        break;
    case SHMCOLL_DT_SHORT_INT:
        ((short_int_t *)dst)->v = (short)v->iv, ((short_int_t *)dst)->i = v->loc;
        break;
    case SHMCOLL_DT_LONG_DOUBLE_INT:
        ((long_double_int_t *)dst)->v = v->re, ((long_double_int_t *)dst)->i = v->loc;
        break;
    default:
        break;
    }
}

void test_data_fill(shmcoll_dtype_t dtype, shmcoll_opcode_t op, int rank, int p, uint64_t seed,
                    void *buf, size_t n) {
    size_t extent = type_layout(dtype).extent;
    for (size_t i = 0; i < n; i++) {
        value_t v = generate(dtype, op, rank, p, test_data_mix(seed, (uint64_t)rank, i), i);
        write_elem(dtype, (char *)buf + i * extent, &v);
    }
}

int test_data_reference(shmcoll_dtype_t dtype, shmcoll_opcode_t op, int p, uint64_t seed, void *out,
                        size_t n) {
    shmcoll_reduce_fn oracle = shmcoll_kernel_reduce_scalar(dtype, op);
    if (!oracle) return -1;
    if (n == 0) return 0;
    size_t bytes = n * type_layout(dtype).extent;
    void *tmp = malloc(bytes);
    if (!tmp) return -1;
    memset(out, 0, bytes);
    memset(tmp, 0, bytes);
    test_data_fill(dtype, op, 0, p, seed, out, n);
    for (int r = 1; r < p; r++) {
        test_data_fill(dtype, op, r, p, seed, tmp, n);
        oracle(out, tmp, out, n); /* out = (x0 op ... op x(r-1)) op x(r): rank order */
    }
    free(tmp);
    return 0;
}

/* Equality of one floating-point piece by value (read through memcpy: any bits may be there). */
static int same_number(const unsigned char *a, const unsigned char *b, size_t len) {
    if (len == sizeof(float)) {
        float x, y;
        memcpy(&x, a, len), memcpy(&y, b, len);
        return x == y;
    }
    if (len == sizeof(double)) {
        double x, y;
        memcpy(&x, a, len), memcpy(&y, b, len);
        return x == y;
    }
    long double x = 0, y = 0;
    memcpy(&x, a, len), memcpy(&y, b, len);
    return x == y;
}

long test_data_compare(shmcoll_dtype_t dtype, const void *got, const void *want, size_t n) {
    layout_t l = type_layout(dtype);
    const unsigned char *g = got, *w = want;
    int is_complex = dtype == SHMCOLL_DT_FLOAT_COMPLEX || dtype == SHMCOLL_DT_DOUBLE_COMPLEX ||
                     dtype == SHMCOLL_DT_LONG_DOUBLE_COMPLEX;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < l.n; k++) {
            const unsigned char *a = g + i * l.extent + l.off[k], *b = w + i * l.extent + l.off[k];
            int by_value = l.floating && (k == 0 || is_complex);
            if (by_value ? !same_number(a, b, l.len[k]) : memcmp(a, b, l.len[k]) != 0)
                return (long)i;
        }
    return -1;
}

uint64_t test_data_hash(shmcoll_dtype_t dtype, const void *buf, size_t n) {
    layout_t l = type_layout(dtype);
    const unsigned char *b = buf;
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < l.n; k++)
            for (size_t j = 0; j < l.len[k]; j++) {
                h ^= b[i * l.extent + l.off[k] + j];
                h *= 0x100000001b3ull;
            }
    return h;
}

void test_data_format(shmcoll_dtype_t dt, const void *e, char *text, size_t len) {
    /* Read through memcpy: a wrong result may hold any bit pattern (e.g. a _Bool of 0xA5). */
    union {
        unsigned char bytes[32];
        int8_t i8;
        uint8_t u8;
        int16_t i16;
        uint16_t u16;
        int32_t i32;
        uint32_t u32;
        int64_t i64;
        uint64_t u64;
        float f;
        double d;
        long double ld;
        float fc[2];
        double dc[2];
        long double ldc[2];
        float_int_t fi;
        double_int_t di;
        long_int_t li;
        two_int_t ii;
        short_int_t si;
        long_double_int_t ldi;
    } u;
    memset(&u, 0, sizeof u);
    memcpy(u.bytes, e, type_layout(dt).extent);
    switch (dt) {
    case SHMCOLL_DT_INT8:
        snprintf(text, len, "%d", u.i8);
        break;
    case SHMCOLL_DT_UINT8:
    case SHMCOLL_DT_BYTE:
    case SHMCOLL_DT_BOOL:
        snprintf(text, len, "0x%02x", u.u8);
        break;
    case SHMCOLL_DT_INT16:
        snprintf(text, len, "%d", u.i16);
        break;
    case SHMCOLL_DT_UINT16:
        snprintf(text, len, "%u", u.u16);
        break;
    case SHMCOLL_DT_INT32:
        snprintf(text, len, "%d", u.i32);
        break;
    case SHMCOLL_DT_UINT32:
        snprintf(text, len, "%u", u.u32);
        break;
    case SHMCOLL_DT_INT64:
        snprintf(text, len, "%lld", (long long)u.i64);
        break;
    case SHMCOLL_DT_UINT64:
        snprintf(text, len, "0x%llx", (unsigned long long)u.u64);
        break;
    case SHMCOLL_DT_FLOAT:
        snprintf(text, len, "%.9g", u.f);
        break;
    case SHMCOLL_DT_DOUBLE:
        snprintf(text, len, "%.17g", u.d);
        break;
    case SHMCOLL_DT_LONG_DOUBLE:
        snprintf(text, len, "%.21Lg", u.ld);
        break;
    case SHMCOLL_DT_FLOAT_COMPLEX:
        snprintf(text, len, "(%g,%g)", u.fc[0], u.fc[1]);
        break;
    case SHMCOLL_DT_DOUBLE_COMPLEX:
        snprintf(text, len, "(%.17g,%.17g)", u.dc[0], u.dc[1]);
        break;
    case SHMCOLL_DT_LONG_DOUBLE_COMPLEX:
        snprintf(text, len, "(%.21Lg,%.21Lg)", u.ldc[0], u.ldc[1]);
        break;
    case SHMCOLL_DT_FLOAT_INT:
        snprintf(text, len, "(%g,%d)", u.fi.v, u.fi.i);
        break;
    case SHMCOLL_DT_DOUBLE_INT:
        snprintf(text, len, "(%.17g,%d)", u.di.v, u.di.i);
        break;
    case SHMCOLL_DT_LONG_INT:
        snprintf(text, len, "(%ld,%d)", u.li.v, u.li.i);
        break;
    case SHMCOLL_DT_2INT:
        snprintf(text, len, "(%d,%d)", u.ii.v, u.ii.i);
        break;
    case SHMCOLL_DT_SHORT_INT:
        snprintf(text, len, "(%d,%d)", u.si.v, u.si.i);
        break;
    case SHMCOLL_DT_LONG_DOUBLE_INT:
        snprintf(text, len, "(%.21Lg,%d)", u.ldi.v, u.ldi.i);
        break;
    default:
        snprintf(text, len, "?");
        break;
    }
}

void test_data_poison(void *buf, size_t bytes) {
    memset(buf, 0xA5, bytes);
}

long test_data_poisoned(const void *buf, size_t bytes) {
    const unsigned char *b = buf;
    for (size_t i = 0; i < bytes; i++)
        if (b[i] != 0xA5) return (long)i;
    return -1;
}
