/* Multi-radix allreduce, recursive exchange and cyclic shift, over teams of forked processes with
 * 4 KiB chunks (SHMCOLL_CHUNK=4k), so counts of a few thousand elements run many rounds.
 * p in {1,2,3,4,5,7,8,13,16,31}.
 *
 * Each algorithm runs with its default factorisation and with a spread of others from the
 * patterns' enumerations (e.g. for p = 8: recursive exchange {2,2,2} {2,4} {4,2} {8}, cyclic shift
 * {2,2,2} {2,3,2} {3,3} {7,2} ...), over:
 *  - several (type, op) pairs of predefined kernels at counts 0/1/7/1000/~13 rounds, in place and
 *    not, misaligned buffers, compared with the scalar oracle's rank-order fold;
 *  - a commutative user op whose 12-byte elements have 4 bytes of padding (extent 16);
 *  - recursive exchange only: 2x2 matrix products through a user function (non-commutative,
 *    in = left operand), which must come out in canonical rank order; cyclic shift must refuse it
 *    with NOT_SUPPORTED, and both must refuse a factorisation that does not fit the team size;
 *  - sums of doubles with full mantissas, where the association order shows in the last bits:
 *    every member's result must be bitwise identical (hashes exchanged through the harness), and
 *    close to the reference;
 * the send buffer must be unchanged and nothing around the result written. Then a long mixed
 * sequence of both algorithms (factorisations drawn per call) interleaved with shmcoll_allreduce,
 * shmcoll_bcast and shmcoll_barrier, to catch races into the next collective, in part with user
 * ops that stall before reading their operands (slow readers expose a slot reused before its
 * readers were done); and the data-access
 * volume summed over all members against the formulas in the algorithms' header comments. Team
 * sizes may be given on the command line. */
#include "coll/radix_default.h"
#include "select/team_coll.h"
#include "coll/coll_internal.h"
#include "coll_check.h"
#include "patterns/cyclic.h"
#include "patterns/recexch.h"
#include "team_harness.h"
#include "test_data.h"
#include "user_ops.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define GUARD     64
#define MAX_F     64

typedef enum algo { RECEXCH, CYCLIC } algo_t;

/* ---- Operations under test ----------------------------------------------------------------- */

typedef enum kind { PAIR, MATRIX, INT3, NOISY } kind_t;

/* User ops given this context stall now and then before they read their operands: a slow
 * reader, so that a writer that reused a slot too early would be caught. */
static int stall_ctx;

static void maybe_stall(void *ctx) {
    static unsigned calls;
    if (ctx != &stall_ctx || (calls++ + (unsigned)team_harness_rank()) % 3) return;
    struct timespec nap = {0, 200000};
    nanosleep(&nap, NULL);
}

/* The shared user functions (user_ops.h), as slow readers when given stall_ctx. */
static void matrix_product(const void *in, void *inout, size_t n, void *ctx) {
    maybe_stall(ctx);
    user_ops_mat2_product(in, inout, n, ctx);
}

static void int3_sum(const void *in, void *inout, size_t n, void *ctx) {
    maybe_stall(ctx);
    user_ops_int3_sum(in, inout, n, ctx);
}

typedef struct opsrc {
    kind_t kind;
    shmcoll_reduce_op_t op;
    shmcoll_dtype_t dtype;
    shmcoll_opcode_t opcode;
} opsrc_t;

static opsrc_t opsrc_make(kind_t kind, shmcoll_dtype_t dtype, shmcoll_opcode_t opcode) {
    opsrc_t s = {.kind = kind, .dtype = dtype, .opcode = opcode};
    switch (kind) {
    case PAIR:
        test_data_op(dtype, opcode, &s.op);
        break;
    case NOISY:
        s.dtype = SHMCOLL_DT_DOUBLE, s.opcode = SHMCOLL_OP_SUM;
        test_data_op(s.dtype, s.opcode, &s.op);
        s.op.name = "noisy-double-sum";
        break;
    case MATRIX:
        s.op = (shmcoll_reduce_op_t){.user_fn = matrix_product,
                                     .size = 32,
                                     .extent = 32,
                                     .commutative = 0,
                                     .name = "matrix-product"};
        break;
    case INT3:
        s.op = (shmcoll_reduce_op_t){
            .user_fn = int3_sum, .size = 12, .extent = 16, .commutative = 1, .name = "int3-sum"};
        break;
    }
    return s;
}

static int32_t int3_input(int rank, size_t i, int k, uint64_t seed) {
    return (int32_t)(test_data_mix(seed, (uint64_t)rank, 3 * i + (size_t)k) % 2001) - 1000;
}

/* Full-mantissa values in [-1, 1) times 2^(0..7): sums depend on their association. */
static double noisy_input(int rank, size_t i, uint64_t seed) {
    uint64_t h = test_data_mix(seed, (uint64_t)rank, i);
    return ldexp((double)(h >> 11) * 0x1p-52 - 1.0, (int)(h & 7));
}

static void opsrc_fill(const opsrc_t *s, int rank, int p, uint64_t seed, char *buf, size_t n) {
    for (size_t i = 0; i < n && s->kind != PAIR; i++) {
        if (s->kind == MATRIX) {
            mat2_t m = user_ops_mat2_input(rank, i, seed);
            memcpy(buf + 32 * i, &m, sizeof m);
        } else if (s->kind == INT3) {
            for (int k = 0; k < 3; k++) {
                int32_t v = int3_input(rank, i, k, seed);
                memcpy(buf + 16 * i + 4 * (size_t)k, &v, 4);
            }
        } else {
            double v = noisy_input(rank, i, seed);
            memcpy(buf + 8 * i, &v, 8);
        }
    }
    if (s->kind == PAIR) test_data_fill(s->dtype, s->opcode, rank, p, seed, buf, n);
}

/* Index of the first element that differs from the rank-order result, or -1 (or -2 when the
 * reference cannot be computed). */
static long opsrc_check(const opsrc_t *s, int p, uint64_t seed, const char *got, size_t n) {
    if (s->kind == PAIR) {
        char *ref = malloc(n * s->op.extent + 1);
        long bad = !ref || test_data_reference(s->dtype, s->opcode, p, seed, ref, n)
                       ? -2
                       : test_data_compare(s->dtype, got, ref, n);
        free(ref);
        return bad;
    }
    for (size_t i = 0; i < n; i++) {
        if (s->kind == MATRIX) {
            mat2_t acc = user_ops_mat2_input(0, i, seed), g;
            for (int r = 1; r < p; r++) {
                mat2_t m = user_ops_mat2_input(r, i, seed);
                acc = user_ops_mat2_mul(&acc, &m);
            }
            memcpy(&g, got + 32 * i, sizeof g);
            if (g.a != acc.a || g.b != acc.b || g.c != acc.c || g.d != acc.d) return (long)i;
        } else if (s->kind == INT3) {
            for (int k = 0; k < 3; k++) {
                int32_t want = 0, g;
                for (int r = 0; r < p; r++) want += int3_input(r, i, k, seed);
                memcpy(&g, got + 16 * i + 4 * (size_t)k, 4);
                if (g != want) return (long)i;
            }
        } else {
            double want = 0, scale = 0, g;
            for (int r = 0; r < p; r++) {
                want += noisy_input(r, i, seed);
                scale += fabs(noisy_input(r, i, seed));
            }
            memcpy(&g, got + 8 * i, 8);
            if (!(fabs(g - want) <= 1e-13 * scale)) return (long)i;
        }
    }
    return -1;
}

/* Hash of the data bytes of n elements (padding excluded). */
static uint64_t opsrc_hash(const opsrc_t *s, const char *buf, size_t n) {
    if (s->kind == PAIR || s->kind == NOISY) return test_data_hash(s->dtype, buf, n);
    uint64_t h = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t b = 0; b < s->op.size; b += 4) {
            uint32_t w;
            memcpy(&w, buf + i * s->op.extent + b, 4);
            h = test_data_mix(h, i * 8 + b, w);
        }
    return h;
}

/* ---- The algorithms through their registry rows, as tasks ---------------------------------- */

static shmcoll_status_t run_algo(shmcoll_team_t *team, algo_t algo,
                                 const shmcoll_pattern_radix_t *f, const void *sendbuf,
                                 void *recvbuf, size_t count, const shmcoll_reduce_op_t *op) {
    const shmcoll_coll_args_t args = {.kind = SHMCOLL_KIND_ALLREDUCE,
                                      .sendbuf = sendbuf,
                                      .recvbuf = recvbuf,
                                      .count = count,
                                      .op = op};
    return shmcoll_coll_run_algo(team, &args, algo == RECEXCH ? "recexch" : "cyclic",
                                 &(shmcoll_task_params_t){.factors = f});
}

/* ---- One checked allreduce ----------------------------------------------------------------- */

typedef struct ar_case {
    algo_t algo;
    const shmcoll_pattern_radix_t *f; /* NULL: the default factorisation */
    size_t count;
    int in_place;
    int misalign;
    int public_call; /* shmcoll_allreduce instead of algo */
    uint64_t seed;
} ar_case_t;

static void case_format(const ar_case_t *c, const opsrc_t *s, char *text, size_t len) {
    char radices[96] = "default";
    if (c->f) shmcoll_pattern_radix_format(c->f, radices, sizeof radices);
    snprintf(text, len, "%s {%s} %s count %zu%s%s",
             c->public_call       ? "shmcoll_allreduce"
             : c->algo == RECEXCH ? "recexch"
                                  : "cyclic",
             radices, s->op.name, c->count, c->in_place ? " in-place" : "",
             c->misalign ? " misaligned" : "");
}

/* 0 when this member's result is right and bitwise equal to every other member's. */
static int check_allreduce(shmcoll_team_t *team, const opsrc_t *s, const ar_case_t *c) {
    const int p = team->size, me = team->rank;
    const size_t n = c->count, bytes = n * s->op.extent, span = shmcoll_reduce_op_span(&s->op, n);
    const size_t offset = c->misalign ? (s->kind == PAIR ? test_data_align(s->dtype) : 8) : 0;
    char desc[192];
    case_format(c, s, desc, sizeof desc);
    char *send = malloc(offset + bytes + GUARD), *recv = malloc(offset + bytes + GUARD);
    char *copy = malloc(offset + bytes + GUARD);
    int failed = !send || !recv || !copy;
    if (failed) {
        team_harness_log("%s: out of memory", desc);
        goto exchange;
    }
    test_data_poison(send, offset + bytes + GUARD);
    test_data_poison(recv, offset + bytes + GUARD);
    opsrc_fill(s, me, p, c->seed, (c->in_place ? recv : send) + offset, n);
    memcpy(copy, send, offset + bytes + GUARD);
    const void *sb = c->in_place ? NULL : send + offset;
    shmcoll_status_t status = c->public_call
                                  ? shmcoll_allreduce(team, sb, recv + offset, n, &s->op)
                                  : run_algo(team, c->algo, c->f, sb, recv + offset, n, &s->op);
    if (status != SHMCOLL_OK) {
        team_harness_log("%s: returned %s (%s)", desc, shmcoll_status_string(status), team->error);
        failed = 1;
        goto exchange;
    }
    if (memcmp(copy, send, offset + bytes + GUARD)) {
        team_harness_log("%s: the send buffer was modified", desc);
        failed = 1;
    }
    if (test_data_poisoned(recv, offset) >= 0 ||
        test_data_poisoned(recv + offset + span, bytes + GUARD - span) >= 0) {
        team_harness_log("%s: bytes around the result were written", desc);
        failed = 1;
    }
exchange:;
    /* Hashes of every member's bits; the reference is checked by every member for small cases
     * and by one (rotating) member for large ones. */
    uint64_t mine[2] = {failed ? 0 : opsrc_hash(s, recv + offset, n), (uint64_t)failed};
    uint64_t all[2 * TEAM_HARNESS_MAX_P];
    if (team_harness_allgather(mine, all, sizeof mine)) {
        team_harness_log("%s: hash exchange failed", desc);
        failed = 1;
    } else if (!failed) {
        for (int r = 0; r < p; r++)
            if (!all[2 * r + 1] && all[2 * r] != mine[0]) {
                team_harness_log("%s: rank %d's result differs from rank %d's in its bits", desc, r,
                                 me);
                failed = 1;
                break;
            }
        if ((size_t)p * n <= 20000 || me == (int)(c->seed % (uint64_t)p)) {
            long bad = opsrc_check(s, p, c->seed, recv + offset, n);
            if (bad != -1) {
                team_harness_log("%s: element %ld differs from the rank-order reference", desc,
                                 bad);
                failed = 1;
            }
        }
    }
    free(send), free(recv), free(copy);
    return failed;
}

/* ---- Factorisations ------------------------------------------------------------------------ */

typedef struct radix_list {
    int n;
    shmcoll_pattern_radix_t f[MAX_F]; /* the first MAX_F */
    shmcoll_pattern_radix_t last;
} radix_list_t;

static void collect(const shmcoll_pattern_radix_t *f, void *ctx) {
    radix_list_t *list = ctx;
    if (list->n < MAX_F) list->f[list->n] = *f;
    list->last = *f;
    list->n++;
}

/* A spread of the valid factorisations with radices up to 8: the first and the last of the
 * enumeration and two between (among its first MAX_F). */
static int spread(algo_t algo, int p, shmcoll_pattern_radix_t *out) {
    static radix_list_t list;
    list.n = 0;
    if (algo == RECEXCH)
        shmcoll_pattern_recexch_enumerate(p, 8, collect, &list);
    else
        shmcoll_pattern_cyclic_enumerate(p, 8, collect, &list);
    if (list.n == 0) return 0;
    const int stored = list.n < MAX_F ? list.n : MAX_F;
    const int at[] = {0, stored / 3, 2 * stored / 3};
    int picks = 0;
    for (size_t i = 0; i < NELEMS(at); i++)
        if (i == 0 || at[i] != at[i - 1]) out[picks++] = list.f[at[i]];
    if (list.n > 1 && (list.n > MAX_F || at[2] != list.n - 1)) out[picks++] = list.last;
    return picks;
}

/* ---- Test sections ------------------------------------------------------------------------- */

static const coll_pair_t pairs[] = {
    {SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM},        {SHMCOLL_DT_INT32, SHMCOLL_OP_SUM},
    {SHMCOLL_DT_SHORT_INT, SHMCOLL_OP_MINLOC},  {SHMCOLL_DT_UINT8, SHMCOLL_OP_BXOR},
    {SHMCOLL_DT_FLOAT, SHMCOLL_OP_MAX},         {SHMCOLL_DT_LONG_DOUBLE_COMPLEX, SHMCOLL_OP_SUM},
    {SHMCOLL_DT_DOUBLE_INT, SHMCOLL_OP_MAXLOC}, {SHMCOLL_DT_INT64, SHMCOLL_OP_PROD},
};

/* The matrix of cases for one algorithm and factorisation (f NULL: default). `full` runs every
 * pair; otherwise a few. */
static int matrix_cases(shmcoll_team_t *team, algo_t algo, const shmcoll_pattern_radix_t *f,
                        int full, uint64_t *index) {
    int failed = 0;
    const int nops = (int)NELEMS(pairs) + 3;
    for (int k = 0; k < nops; k++) {
        opsrc_t s;
        if (k < (int)NELEMS(pairs)) {
            if (!full && k % 3) continue;
            s = opsrc_make(PAIR, pairs[k].dtype, pairs[k].op);
        } else {
            s = opsrc_make((kind_t)(k - (int)NELEMS(pairs) + 1), 0, 0);
        }
        if (algo == CYCLIC && !s.op.commutative) continue;
        const size_t counts[] = {0, 1, 7, 1000,
                                 13 * 4096 / s.op.extent / (size_t)team_harness_scale_down() + 5};
        for (size_t ni = 0; ni < NELEMS(counts); ni++)
            for (int in_place = 0; in_place < 2; in_place++) {
                const uint64_t i = (*index)++;
                if (!full && ni == NELEMS(counts) - 1 && in_place) continue;
                ar_case_t c = {.algo = algo,
                               .f = f,
                               .count = counts[ni],
                               .in_place = in_place,
                               .misalign = (int)(i & 1),
                               .seed = test_data_mix((uint64_t)team->size, i, 31)};
                failed |= check_allreduce(team, &s, &c);
                team_harness_log_quiet(failed);
            }
    }
    team_harness_log_quiet(0);
    return failed;
}

/* Arguments every member refuses before communicating. */
static int refusal_cases(shmcoll_team_t *team) {
    const int p = team->size;
    int failed = 0;
    opsrc_t matrix = opsrc_make(MATRIX, 0, 0);
    mat2_t in[3] = {{1, 1, 0, 1}, {1, 0, 1, 1}, {0, 1, 1, 0}}, out[3];
    shmcoll_status_t status = run_algo(team, CYCLIC, NULL, in, out, 3, &matrix.op);
    if (status != SHMCOLL_ERR_NOT_SUPPORTED) {
        team_harness_log("cyclic shift with a non-commutative op returned %s",
                         shmcoll_status_string(status));
        failed = 1;
    }
    opsrc_t sum = opsrc_make(PAIR, SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM);
    double x[4] = {1, 2, 3, 4}, y[4];
    shmcoll_pattern_radix_t wrong = {.nsteps = 2, .radix = {p + 1, 2}};
    for (int a = 0; a < 2; a++) {
        /* INVALID is a caller's error, refused by init before any step: it must not fail the
         * team. */
        status = run_algo(team, (algo_t)a, &wrong, x, y, 4, &sum.op);
        if (status != SHMCOLL_ERR_INVALID) {
            team_harness_log("%s with radices {%d,2} for p = %d returned %s",
                             a == RECEXCH ? "recexch" : "cyclic", p + 1, p,
                             shmcoll_status_string(status));
            failed = 1;
        }
    }
    /* The refusals consumed no step: the team still works. */
    ar_case_t c = {.algo = RECEXCH, .count = 3, .seed = 5};
    failed |= check_allreduce(team, &sum, &c);
    return failed;
}

static int mixed_sequence(shmcoll_team_t *team, const shmcoll_pattern_radix_t *fr, int nr,
                          const shmcoll_pattern_radix_t *fc, int nc) {
    const int p = team->size, n = 100 / team_harness_scale_down();
    int failed = 0;
    opsrc_t ops[] = {opsrc_make(PAIR, SHMCOLL_DT_INT32, SHMCOLL_OP_SUM),
                     opsrc_make(NOISY, 0, 0),
                     opsrc_make(MATRIX, 0, 0),
                     opsrc_make(INT3, 0, 0),
                     opsrc_make(MATRIX, 0, 0),
                     opsrc_make(INT3, 0, 0)};
    ops[4].op.user_ctx = ops[5].op.user_ctx = &stall_ctx; /* slow readers */
    for (int i = 0; i < n; i++) {
        const uint64_t h = test_data_mix((uint64_t)p, (uint64_t)i, 32);
        const opsrc_t *s = &ops[h % NELEMS(ops)];
        const size_t count = h / 5 % 3 == 0 ? h / 17 % 5000 : h / 17 % 40;
        ar_case_t c = {.count = count, .in_place = (int)(h >> 40 & 1), .seed = h};
        switch (h / 1009 % 5) {
        case 0:
        case 1:
            c.algo = RECEXCH;
            c.f = nr ? &fr[h / 7 % (uint64_t)nr] : NULL;
            failed |= check_allreduce(team, s, &c);
            break;
        case 2:
            c.algo = CYCLIC;
            c.f = nc ? &fc[h / 7 % (uint64_t)nc] : NULL;
            if (!s->op.commutative) s = &ops[5]; /* the slow commutative one */
            failed |= check_allreduce(team, s, &c);
            break;
        case 3:
            c.public_call = 1;
            failed |= check_allreduce(team, s, &c);
            break;
        default: {
            unsigned char buf[300];
            const int root = (int)(h / 3 % (uint64_t)p);
            for (size_t b = 0; b < sizeof buf; b++)
                buf[b] = (unsigned char)(team->rank == root ? b * 7 + h : 0);
            shmcoll_status_t status = shmcoll_bcast(team, buf, h % 2 ? 40 : sizeof buf, root);
            size_t len = h % 2 ? 40 : sizeof buf;
            for (size_t b = 0; b < len && status == SHMCOLL_OK; b++)
                if (buf[b] != (unsigned char)(b * 7 + h)) status = SHMCOLL_ERR_INVALID;
            if (status == SHMCOLL_OK) status = shmcoll_barrier(team);
            if (status != SHMCOLL_OK) {
                team_harness_log("bcast/barrier in the mixed sequence: %s",
                                 shmcoll_status_string(status));
                failed = 1;
            }
            break;
        }
        }
        team_harness_log_quiet(failed);
    }
    team_harness_log_quiet(0);
    return failed;
}

/* ---- DAV ----------------------------------------------------------------------------------- */

/* Expected DAV of one allreduce of s bytes of doubles (header comments of recexch.c, cyclic.c). */
static uint64_t expected_dav(algo_t algo, int p, const shmcoll_pattern_radix_t *f, uint64_t s) {
    const int n = f->nsteps;
    if (p == 1) return 2 * s;
    uint64_t units = 3 * (uint64_t)(p - 1);
    if (algo == RECEXCH) {
        units += 2 * (uint64_t)(p - p / f->radix[0]);
        for (int j = 0; j < n; j++) units += 2 * (uint64_t)(p / shmcoll_pattern_radix_prefix(f, j));
        return s * units;
    }
    units += 2 * (uint64_t)(p - shmcoll_pattern_cyclic_stride(f, n - 1));
    for (int j = 1; j < n; j++) units += 2 * (uint64_t)shmcoll_pattern_cyclic_window(p, f, j);
    units += 2 * (uint64_t)p;
    for (int j = 0; j < n; j++)
        if (f->radix[j] == 2)
            units += 2 * (uint64_t)(shmcoll_pattern_cyclic_stride(f, j) -
                                    shmcoll_pattern_cyclic_count(p, f, j, 1));
    return s * units;
}

static int dav_cases(shmcoll_team_t *team, const shmcoll_pattern_radix_t *fr, int nr,
                     const shmcoll_pattern_radix_t *fc, int nc) {
    const int p = team->size;
    const size_t count = 3000 + 3; /* 6 rounds of 512 doubles, the last one short */
    double *send = calloc(count, 8), *recv = calloc(count, 8);
    opsrc_t sum = opsrc_make(PAIR, SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM);
    int failed = !send || !recv;
    for (int a = 0; a < 2 && !failed; a++) {
        const shmcoll_pattern_radix_t *list = a == RECEXCH ? fr : fc;
        const int nlist = a == RECEXCH ? nr : nc;
        for (int i = -1; i < nlist; i++) {
            shmcoll_pattern_radix_t f;
            if (i < 0)
                shmcoll_coll_radix_default(
                    a == RECEXCH ? SHMCOLL_COLL_RADIX_RECEXCH : SHMCOLL_COLL_RADIX_CYCLIC, p, &f);
            else
                f = list[i];
            const uint64_t before = shmcoll_team_dav(team);
            shmcoll_status_t status = run_algo(team, (algo_t)a, &f, send, recv, count, &sum.op);
            uint64_t grown = status == SHMCOLL_OK ? shmcoll_team_dav(team) - before : UINT64_MAX;
            uint64_t all[TEAM_HARNESS_MAX_P], total = 0;
            if (team_harness_allgather(&grown, all, sizeof grown)) return 1;
            int broken = 0;
            for (int r = 0; r < p; r++) broken |= all[r] == UINT64_MAX, total += all[r];
            const uint64_t want = expected_dav((algo_t)a, p, &f, count * 8);
            char radices[96];
            shmcoll_pattern_radix_format(&f, radices, sizeof radices);
            if (team->rank == 0 && (broken || total != want)) {
                team_harness_log("DAV of %s {%s} over %zu bytes: %llu, expected %llu",
                                 a == RECEXCH ? "recexch" : "cyclic", radices, count * 8,
                                 (unsigned long long)total, (unsigned long long)want);
                failed = 1;
            }
            if (team->rank == 0 && i < 0 && p > 1)
                printf("  p=%d %s {%s}: DAV %.3f s\n", p, a == RECEXCH ? "recexch" : "cyclic",
                       radices, (double)total / (double)(count * 8));
        }
    }
    fflush(stdout);
    free(send), free(recv);
    return failed;
}

/* ---- The test body ------------------------------------------------------------------------- */

static int body(shmcoll_team_t *team, void *arg) {
    if (team_harness_check_chunk(team, 4096)) return 1;
    const int p = team->size;
    shmcoll_pattern_radix_t fr[8], fc[8];
    int nr = spread(RECEXCH, p, fr), nc = spread(CYCLIC, p, fc);
    if (team_harness_scale_down() > 1) { /* sanitizers: the first and the last only */
        if (nr > 2) fr[1] = fr[nr - 1], nr = 2;
        if (nc > 2) fc[1] = fc[nc - 1], nc = 2;
    }
    uint64_t index = 0;
    int failed = refusal_cases(team);
    for (int a = 0; a < 2; a++) {
        failed |= matrix_cases(team, (algo_t)a, NULL, 1, &index);
        const shmcoll_pattern_radix_t *list = a == RECEXCH ? fr : fc;
        for (int i = 0; i < (a == RECEXCH ? nr : nc); i++)
            failed |= matrix_cases(team, (algo_t)a, &list[i], 0, &index);
    }
    failed |= mixed_sequence(team, fr, nr, fc, nc);
    failed |= dav_cases(team, fr, nr, fc, nc);
    return failed;
}

int main(int argc, char **argv) {
    static const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 13, 16, 31};
    static const char *const env[] = {"SHMCOLL_CHUNK=4k", NULL};
    if (test_data_check_layouts()) return 1;
    const team_harness_spec_t spec = {.body = body, .timeout_s = 300.0, .env = env};
    return team_harness_for_sizes_spec(argc, argv, sizes, (int)NELEMS(sizes), &spec) != 0;
}
