/* Reduce-scatter and reduce_scatter_block over teams of forked processes, and the
 * movement-avoiding reduction they share with allreduce and reduce.
 *
 * Every member can generate every member's input, so member r computes block r of the reduction
 * locally, folding the inputs in rank order (x0 op x1 op ... op x(p-1)), and compares its result
 * element by element; the bytes before and after it must stay untouched and the send buffer
 * unchanged. Ops: a spread of predefined (type, op) kernels, commutative (the movement-avoiding
 * path), the same kernel marked non-commutative and a non-commutative user op (2x2 matrix
 * product: the canonical-order path, where any other order gives a different matrix), and a
 * commutative user op (the user-function path of the movement-avoiding reduction). Cases: p in
 * {1,2,3,4,5,7,8,13,16} (plus a cheap p = 31) x block counts {0, 1, 7, 1000} x equal blocks or
 * uneven ones (some empty) x in place or not (from p = 8 on, two of these four variants per op
 * and count, alternating: the reference costs p * p * count per case); then with 4 KiB chunks
 * (SHMCOLL_CHUNK=4k) counts that need many rounds. Last, allreduce and reduce with both user ops
 * at sizes beyond one chunk, which must take the movement-avoiding algorithm (commutative) or the
 * split one. Large counts shrink under sanitizers (team_harness_scale_down). Team sizes may be
 * given on the command line. */
#include "coll/coll.h"
#include "coll_check.h"
#include "team_harness.h"
#include "test_data.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Local helpers (failures, guarded buffers, the size loop) ----------------------------- */

#define GUARD      64
#define MAX_LOGGED 3

/* Failures of this member. Every member always runs every case, whatever it saw, so the members
 * never disagree on which collective comes next; only the first few failures of each group of
 * cases (one op, one collective) are described, so one bug does not hide another. */
static int failures, group, logged[64];

static void set_group(int g) {
    group = g & 63;
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...) {
    failures++;
    if (++logged[group] > MAX_LOGGED) return;
    char text[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    team_harness_log("%s", text);
}

/* A buffer of `len` data bytes starting `misalign` bytes into a poisoned guard zone, with a
 * poisoned guard behind it. */
typedef struct image {
    unsigned char *mem;
    unsigned char *data;
    size_t total;
} image_t;

static int image_alloc(image_t *im, size_t len, size_t misalign) {
    im->total = GUARD + misalign + len + GUARD;
    im->mem = malloc(im->total);
    if (!im->mem) {
        fail("out of memory for %zu bytes", im->total);
        return 1;
    }
    test_data_poison(im->mem, im->total);
    im->data = im->mem + GUARD + misalign;
    return 0;
}

static void image_free(image_t *im) {
    free(im->mem);
    im->mem = NULL;
}

/* The poison before the data and after its first `len` bytes must be intact. */
static int image_guards(const image_t *im, size_t len, const char *desc) {
    const size_t before = (size_t)(im->data - im->mem);
    const long b = test_data_poisoned(im->mem, before);
    const long a = test_data_poisoned(im->data + len, im->total - before - len);
    if (b >= 0)
        fail("%s: byte %ld before the receive buffer was overwritten", desc, (long)before - b);
    if (a >= 0) fail("%s: byte %ld past the end of the result was overwritten", desc, a);
    return b >= 0 || a >= 0;
}

/* A send buffer of exactly n bytes (at least one, so it is never NULL = in place). */
static unsigned char *send_alloc(size_t n) {
    unsigned char *buf = malloc(n ? n : 1);
    if (!buf) fail("out of memory for %zu bytes", n);
    return buf;
}

static int status_check(shmcoll_team_t *team, shmcoll_status_t status, const char *desc) {
    if (status == SHMCOLL_OK) return 0;
    fail("%s: returned %s (%s)", desc, shmcoll_status_string(status), team->error);
    return 1;
}

/* Team sizes and the two chunk settings; the body learns which through its argument. */
typedef struct run_mode {
    int rounds; /* 1: 4 KiB chunks, counts that need many pipeline rounds */
} run_mode_t;

/* The allreduce/reduce cases check the movement-avoiding algorithm's user-function path, so they
 * ask the selector for it; it cannot serve non-commutative ops, which then take the model's
 * choice (split, at these sizes). */
#define FORCE_MA "SHMCOLL_TUNE=allreduce:@ma|split;reduce:@ma|split"
static const char *const env_default[] = {"SHMCOLL_TIMEOUT=30", FORCE_MA, NULL};
static const char *const env_rounds[] = {"SHMCOLL_TIMEOUT=30", "SHMCOLL_CHUNK=4k", FORCE_MA, NULL};

static int run_sizes(int argc, char **argv, team_harness_body_fn body) {
    static const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 13, 16, 31};
    const int n = argc > 1 ? argc - 1 : (int)(sizeof sizes / sizeof *sizes);
    const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    int failed = 0;
    for (int i = 0; i < n; i++) {
        const int p = argc > 1 ? atoi(argv[i + 1]) : sizes[i];
        for (int rounds = 0; rounds < (p > 16 ? 1 : 2); rounds++) {
            run_mode_t mode = {.rounds = rounds};
            team_harness_spec_t spec = {.p = p,
                                        .body = body,
                                        .arg = &mode,
                                        .timeout_s = 150,
                                        .env = rounds ? env_rounds : env_default};
            const double start = team_harness_now();
            const int f = team_harness_run_spec(&spec);
            printf("%s p=%d chunk=%s: %s (%.2f s)\n", name, p, rounds ? "4k" : "default",
                   f ? "FAILED" : "ok", team_harness_now() - start);
            fflush(stdout);
            failed |= f != 0;
        }
    }
    return failed;
}

/* ---- Reduction ops: predefined kernels and two user ops ----------------------------------- */

/* A user op that is not commutative: the product of 2x2 integer-valued matrices (elements of 4
 * doubles). The factors are shears, signed permutations and reflections, whose products over up
 * to 64 ranks keep every entry below 2^53 (the shears' spectral norm is the golden ratio), so the
 * results are exact whatever the association, and only the order of the factors matters. */
typedef struct mat2 {
    double a, b, c, d; /* [[a b] [c d]] */
} mat2_t;

static const mat2_t mat2_factors[] = {
    {1, 1, 0, 1}, {1, 0, 1, 1},  {1, -1, 0, 1}, {1, 0, -1, 1},
    {0, 1, 1, 0}, {0, -1, 1, 0}, {1, 0, 0, -1},
};

/* inout = in x inout: `in` is the left operand, MPI's user-function shape. */
static void mat2_fn(const void *in, void *inout, size_t n, void *ctx) {
    const mat2_t *l = in;
    mat2_t *r = inout;
    for (size_t i = 0; i < n; i++) {
        const mat2_t x = l[i], y = r[i];
        r[i] = (mat2_t){x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c,
                        x.c * y.b + x.d * y.d};
    }
}

/* A commutative user op: (sum, max) of 64-bit integers, which goes through the user-function
 * path of the movement-avoiding reduction. */
typedef struct summax {
    int64_t sum, max;
} summax_t;

static void summax_fn(const void *in, void *inout, size_t n, void *ctx) {
    const summax_t *l = in;
    summax_t *r = inout;
    for (size_t i = 0; i < n; i++) {
        r[i].sum += l[i].sum;
        r[i].max = l[i].max > r[i].max ? l[i].max : r[i].max;
    }
}

typedef enum rop_kind { ROP_KERNEL, ROP_MAT2, ROP_SUMMAX } rop_kind_t;

typedef struct rop {
    rop_kind_t kind;
    shmcoll_dtype_t dtype; /* kernel ops */
    shmcoll_opcode_t opcode;
    int commutative; /* kernel ops: 0 forces the canonical-order path with a kernel */
} rop_t;

static int rop_make(const rop_t *r, shmcoll_reduce_op_t *op) {
    switch (r->kind) {
    case ROP_KERNEL:
        if (test_data_op(r->dtype, r->opcode, op)) return -1;
        op->commutative = r->commutative;
        return 0;
    case ROP_MAT2:
        *op = (shmcoll_reduce_op_t){.user_fn = mat2_fn,
                                    .size = sizeof(mat2_t),
                                    .extent = sizeof(mat2_t),
                                    .commutative = 0,
                                    .name = "user 2x2 matrix product"};
        return 0;
    case ROP_SUMMAX:
        *op = (shmcoll_reduce_op_t){.user_fn = summax_fn,
                                    .size = sizeof(summax_t),
                                    .extent = sizeof(summax_t),
                                    .commutative = 1,
                                    .name = "user (sum, max)/int64"};
        return 0;
    }
    return -1;
}

static void rop_name(const rop_t *r, char *text, size_t len) {
    if (r->kind == ROP_KERNEL)
        snprintf(text, len, "%s/%s%s", shmcoll_opcode_name(r->opcode), shmcoll_dtype_name(r->dtype),
                 r->commutative ? "" : " (as non-commutative)");
    else
        snprintf(text, len, "%s",
                 r->kind == ROP_MAT2 ? "user 2x2 matrix product" : "user (sum, max)/int64");
}

static size_t rop_extent(const rop_t *r) {
    return r->kind == ROP_KERNEL ? shmcoll_dtype_extent(r->dtype)
           : r->kind == ROP_MAT2 ? sizeof(mat2_t)
                                 : sizeof(summax_t);
}

/* A misalignment that keeps the element's own alignment. */
static size_t rop_align(const rop_t *r) {
    return r->kind == ROP_KERNEL ? test_data_align(r->dtype) : sizeof(double);
}

/* Bytes from the first element to the last data byte of n elements. */
static size_t rop_span(const rop_t *r, size_t n) {
    return r->kind == ROP_KERNEL ? test_data_span(r->dtype, n) : n * rop_extent(r);
}

/* Elements [first, first + n) of `rank`'s input. */
static int rop_fill(const rop_t *r, int rank, int p, uint64_t seed, size_t first, size_t n,
                    void *out) {
    const size_t extent = rop_extent(r);
    if (r->kind == ROP_KERNEL) { /* the generator starts at element 0 */
        unsigned char *all = calloc(first + n ? first + n : 1, extent);
        if (!all) {
            fail("out of memory for %zu elements", first + n);
            return -1;
        }
        test_data_fill(r->dtype, r->opcode, rank, p, seed, all, first + n);
        memcpy(out, all + first * extent, rop_span(r, n)); /* not the padding past the data */
        free(all);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        const uint64_t h = test_data_mix(seed, (uint64_t)rank, first + i);
        if (r->kind == ROP_MAT2)
            ((mat2_t *)out)[i] = mat2_factors[h % (sizeof mat2_factors / sizeof *mat2_factors)];
        else
            ((summax_t *)out)[i] =
                (summax_t){(int64_t)(h % 2001) - 1000, (int64_t)((h >> 16) % 2000001) - 1000000};
    }
    return 0;
}

/* acc = x op acc over n elements (x is the left operand, the lower ranks). */
static void rop_apply(const rop_t *r, const void *x, void *acc, size_t n) {
    if (r->kind == ROP_KERNEL)
        shmcoll_kernel_reduce_scalar(r->dtype, r->opcode)(x, acc, acc, n);
    else if (r->kind == ROP_MAT2)
        mat2_fn(x, acc, n, NULL);
    else
        summax_fn(x, acc, n, NULL);
}

/* out = x(lo) op ... op x(hi) over elements [first, first + n), in rank order; hi >= lo. */
static int rop_reference(const rop_t *r, int p, uint64_t seed, int lo, int hi, size_t first,
                         size_t n, void *out) {
    void *tmp = malloc(n ? n * rop_extent(r) : 1);
    int failed = !tmp || rop_fill(r, hi, p, seed, first, n, out);
    for (int q = hi - 1; q >= lo && !failed; q--) {
        failed = rop_fill(r, q, p, seed, first, n, tmp);
        if (!failed) rop_apply(r, tmp, out, n);
    }
    free(tmp);
    return failed;
}

/* Index of the first element whose data differ, or -1 (matrix entries compare as numbers, so
 * that a zero's sign, which depends on the association, does not count). */
static long rop_compare(const rop_t *r, const void *got, const void *want, size_t n) {
    if (r->kind == ROP_KERNEL) return test_data_compare(r->dtype, got, want, n);
    for (size_t i = 0; i < n; i++) {
        if (r->kind == ROP_MAT2) {
            const mat2_t *g = (const mat2_t *)got + i, *w = (const mat2_t *)want + i;
            if (g->a != w->a || g->b != w->b || g->c != w->c || g->d != w->d) return (long)i;
        } else if (memcmp((const summax_t *)got + i, (const summax_t *)want + i,
                          sizeof(summax_t))) {
            return (long)i;
        }
    }
    return -1;
}

static void rop_format(const rop_t *r, const void *elem, char *text, size_t len) {
    if (r->kind == ROP_KERNEL) {
        test_data_format(r->dtype, elem, text, len);
    } else if (r->kind == ROP_MAT2) {
        mat2_t m;
        memcpy(&m, elem, sizeof m);
        snprintf(text, len, "[[%g %g] [%g %g]]", m.a, m.b, m.c, m.d);
    } else {
        summax_t s;
        memcpy(&s, elem, sizeof s);
        snprintf(text, len, "(%lld, %lld)", (long long)s.sum, (long long)s.max);
    }
}

/* Compares n result elements with the reference; describes the first wrong one. */
static int rop_check(const rop_t *r, const void *got, const void *want, size_t n,
                     const char *desc) {
    const long first = rop_compare(r, got, want, n);
    if (first < 0) return 0;
    size_t bad = 0;
    const size_t extent = rop_extent(r);
    for (size_t i = (size_t)first; i < n; i++)
        bad +=
            rop_compare(r, (const char *)got + i * extent, (const char *)want + i * extent, 1) >= 0;
    char g[128], w[128];
    rop_format(r, (const char *)got + (size_t)first * extent, g, sizeof g);
    rop_format(r, (const char *)want + (size_t)first * extent, w, sizeof w);
    fail("%s: %zu of %zu elements wrong; element %ld is %s, expected %s", desc, bad, n, first, g,
         w);
    return 1;
}

/* ---- The checks --------------------------------------------------------------------------- */

/* Uneven block sizes around `base`, about a quarter of them empty. */
static size_t uneven(size_t base, uint64_t seed, uint64_t key) {
    uint64_t h = test_data_mix(seed, key, 99);
    if (base == 0 || h % 4 == 1) return 0;
    return base / 2 + (size_t)((h >> 8) % (base + 1));
}

static int check_reduce_scatter(shmcoll_team_t *team, const rop_t *r, size_t base, int block,
                                int in_place, size_t misalign, uint64_t seed) {
    const int p = team->size, me = team->rank;
    size_t counts[TEAM_HARNESS_MAX_P], first = 0, total = 0;
    for (int j = 0; j < p; j++) {
        counts[j] = block ? base : uneven(base, seed, (uint64_t)j);
        first += j < me ? counts[j] : 0;
        total += counts[j];
    }
    const size_t extent = rop_extent(r), mine = counts[me];
    char name[80], desc[240];
    rop_name(r, name, sizeof name);
    snprintf(desc, sizeof desc, "%s %s, %zu elements of %zu here%s misalign %zu seed %llu",
             block ? "reduce_scatter_block" : "reduce_scatter", name, mine, total,
             in_place ? " in-place" : "", misalign, (unsigned long long)seed);
    shmcoll_reduce_op_t op;
    if (rop_make(r, &op)) {
        fail("%s: no kernel", desc);
        return 1;
    }
    image_t recv = {0};
    unsigned char *send = NULL, *copy = NULL, *want = malloc(mine ? mine * extent : 1);
    int failed = !want || image_alloc(&recv, (in_place ? total : mine) * extent, misalign);
    if (!failed && !in_place)
        failed = !(send = send_alloc(total * extent)) || !(copy = send_alloc(total * extent));
    if (!failed) failed = rop_fill(r, me, p, seed, 0, total, in_place ? recv.data : send);
    if (!failed) failed = rop_reference(r, p, seed, 0, p - 1, first, mine, want);
    if (failed) goto out;
    if (send) memcpy(copy, send, total * extent);

    const shmcoll_status_t status =
        block ? shmcoll_reduce_scatter_block(team, send, recv.data, base, &op)
              : shmcoll_reduce_scatter(team, send, recv.data, counts, &op);
    failed |= status_check(team, status, desc);
    failed |= rop_check(r, recv.data, want, mine, desc);
    /* In place, the input beyond the result is the caller's scratch; the guards are not. */
    failed |= image_guards(&recv, rop_span(r, in_place ? total : mine), desc);
    if (send && memcmp(send, copy, total * extent)) {
        fail("%s: the send buffer was modified", desc);
        failed = 1;
    }
out:
    image_free(&recv);
    free(send), free(copy), free(want);
    return failed;
}

/* allreduce (root < 0) or reduce with a user op, at a size beyond one chunk: the commutative op
 * must take the movement-avoiding algorithm, the other the split one. */
static int check_user_reduce(shmcoll_team_t *team, const rop_t *r, size_t count, int root,
                             int in_place, uint64_t seed) {
    const int p = team->size, me = team->rank, gets_result = root < 0 || root == me;
    /* A non-root passes no receive buffer, or one that must stay untouched. */
    const int pass_recv = gets_result || (seed >> 5) & 1, use_send = !(gets_result && in_place);
    const size_t extent = rop_extent(r);
    char name[80], desc[200];
    rop_name(r, name, sizeof name);
    snprintf(desc, sizeof desc, "%s %s count %zu root %d%s seed %llu",
             root < 0 ? "allreduce" : "reduce", name, count, root, in_place ? " in-place" : "",
             (unsigned long long)seed);
    shmcoll_reduce_op_t op;
    rop_make(r, &op);
    image_t recv = {0};
    unsigned char *send = NULL, *copy = NULL, *want = malloc(count * extent);
    int failed = !want || (pass_recv && image_alloc(&recv, count * extent, 0));
    if (!failed && use_send)
        failed = !(send = send_alloc(count * extent)) || !(copy = send_alloc(count * extent));
    if (!failed) failed = rop_fill(r, me, p, seed, 0, count, use_send ? send : recv.data);
    if (!failed && gets_result) failed = rop_reference(r, p, seed, 0, p - 1, 0, count, want);
    if (failed) goto out;
    if (send) memcpy(copy, send, count * extent);

    void *rbuf = pass_recv ? recv.data : NULL;
    const shmcoll_status_t status = root < 0 ? shmcoll_allreduce(team, send, rbuf, count, &op)
                                             : shmcoll_reduce(team, send, rbuf, count, &op, root);
    failed |= status_check(team, status, desc);
    const char *algo = op.commutative && p > 1 ? "ma" : "split";
    if (status == SHMCOLL_OK && (!team->last_algo || strcmp(team->last_algo, algo))) {
        fail("%s: took algorithm %s, expected %s", desc, team->last_algo ? team->last_algo : "?",
             algo);
        failed = 1;
    }
    if (gets_result) {
        failed |= rop_check(r, recv.data, want, count, desc);
        failed |= image_guards(&recv, count * extent, desc);
    } else if (pass_recv && test_data_poisoned(recv.mem, recv.total) >= 0) {
        fail("%s: a non-root's receive buffer was written", desc);
        failed = 1;
    }
    if (send && memcmp(send, copy, count * extent)) {
        fail("%s: the send buffer was modified", desc);
        failed = 1;
    }
out:
    image_free(&recv);
    free(send), free(copy), free(want);
    return failed;
}

#define KERNEL(dt, op)                                                                             \
    { ROP_KERNEL, SHMCOLL_DT_##dt, SHMCOLL_OP_##op, 1 }
#define KERNEL_NC(dt, op)                                                                          \
    { ROP_KERNEL, SHMCOLL_DT_##dt, SHMCOLL_OP_##op, 0 }
#define USER(kind)                                                                                 \
    { kind, SHMCOLL_DT_BYTE, SHMCOLL_OP_SUM, 0 }
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const rop_t all_ops[] = {
    KERNEL(INT32, SUM),        KERNEL(DOUBLE, SUM),           KERNEL(FLOAT, MAX),
    KERNEL(UINT8, BXOR),       KERNEL(INT64, PROD),           KERNEL(DOUBLE_INT, MAXLOC),
    KERNEL(SHORT_INT, MINLOC), KERNEL(FLOAT_INT, MAXLOC),     KERNEL(LONG_DOUBLE_INT, MINLOC),
    KERNEL(BOOL, LOR),         KERNEL(DOUBLE_COMPLEX, SUM),   KERNEL(LONG_DOUBLE, SUM),
    KERNEL(INT16, LXOR),       KERNEL(UINT64, BAND),          KERNEL(INT8, MIN),
    KERNEL_NC(INT32, SUM),     KERNEL_NC(DOUBLE_INT, MINLOC), USER(ROP_MAT2),
    USER(ROP_SUMMAX),
};

/* Many-round and large-team cases: one op per path. */
static const rop_t few_ops[] = {
    KERNEL(DOUBLE, SUM), KERNEL(SHORT_INT, MINLOC), KERNEL_NC(INT32, SUM),
    USER(ROP_MAT2),      USER(ROP_SUMMAX),
};

static int body(shmcoll_team_t *team, void *arg) {
    const run_mode_t *mode = arg;
    const int p = team->size, big_team = p > 16;
    const size_t small[] = {0, 1, 7, 1000 / (size_t)team_harness_scale_down()}, cheap[] = {7, 100};
    /* 4 KiB chunks: a 5000-element block of doubles takes 10 movement-avoiding rounds, and up to
     * 5000 / (4096 / p / 8) canonical ones. */
    const size_t rounds[] = {1000, 5000 / (size_t)team_harness_scale_down() + 3};
    const size_t *sizes = mode->rounds ? rounds : big_team ? cheap : small;
    const size_t nsizes = mode->rounds || big_team ? 2 : 4;
    const rop_t *ops = mode->rounds || big_team ? few_ops : all_ops;
    const size_t nops = mode->rounds || big_team ? COUNT(few_ops) : COUNT(all_ops);
    uint64_t index = 0;
    for (size_t k = 0; k < nops; k++)
        for (size_t s = 0; s < nsizes; s++)
            for (int variant = 0; variant < 4; variant++) {
                const uint64_t seed = test_data_mix((uint64_t)team->size, index++, 41);
                /* From 8 members on, two of the four variants per op and count, alternating
                 * between {equal, uneven in place} and {uneven, equal in place}, bound the
                 * reference work (p * p * count per case). */
                if (p >= 8 && ((variant ^ variant >> 1) & 1) != (int)((k + s) & 1)) continue;
                set_group((int)k);
                check_reduce_scatter(team, &ops[k], sizes[s], variant & 1, variant >> 1,
                                     seed % 3 ? 0 : rop_align(&ops[k]), seed);
            }

    /* A chunk and a bit (several rounds with 4 KiB chunks): never the flat algorithm. */
    const rop_t user_ops[] = {USER(ROP_SUMMAX), USER(ROP_MAT2)};
    int roots[TEAM_HARNESS_MAX_P];
    const int nroots = coll_check_roots(team->size, roots);
    for (size_t k = 0; k < COUNT(user_ops); k++) {
        set_group(32 + (int)k);
        const size_t count =
            (mode->rounds ? 20 : 1) * team->channel.chunk / rop_extent(&user_ops[k]) + 77;
        for (int in_place = 0; in_place < 2; in_place++)
            check_user_reduce(team, &user_ops[k], count, -1, in_place,
                              test_data_mix((uint64_t)team->size, index++, 42));
        for (int i = 0; i < nroots; i++)
            check_user_reduce(team, &user_ops[k], count, roots[i], i & 1,
                              test_data_mix((uint64_t)team->size, index++, 43));
    }
    if (failures) team_harness_log("%d failures in all", failures);
    return failures != 0;
}

int main(int argc, char **argv) {
    if (test_data_check_layouts()) return 1;
    return run_sizes(argc, argv, body) != 0;
}
