/* User-defined reduction ops over teams of forked processes, p in {1,2,3,4,5,7,8,13,16}.
 *
 * Non-commutative: each element is a 2x2 matrix of doubles (size = extent = 32) and the user
 * function has MPI's shape, inout = in * inout, with `in` the LEFT operand (the lower ranks'
 * contribution). The result must be M0 * M1 * ... * M(p-1) in rank order, for allreduce and for
 * reduce at every root (all roots for p <= 5, else {0, p-1, p/2}). Matrices come from a small set
 * of integer matrices with determinant +-1 that do not commute (e.g. [[1,1],[0,1]] and
 * [[1,0],[1,1]]); their entries grow at most like Fibonacci numbers, so products of up to 64 of
 * them are exact in double precision.
 *
 * Commutative: three int32 per element with 4 bytes of padding (size 12, extent 16); the user
 * function adds the three and never touches the padding. Both ops check that their context
 * pointer arrives. Counts {1, 7, 1000, and 20000 elements = 640 KB, several pipeline chunks},
 * in-place and not. Team sizes may be given on the command line. */
#include "coll_check.h"
#include "select/team_coll.h"
#include "team_harness.h"
#include "test_data.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define GUARD     64

typedef struct mat2 {
    double a, b, c, d; /* [[a, b], [c, d]] */
} mat2_t;

typedef struct int3 {
    int32_t x, y, z;
    /* 4 bytes of padding: extent 16 */
} int3_t;

static const mat2_t generators[] = {
    {1, 1, 0, 1}, {1, 0, 1, 1}, {0, 1, 1, 0}, {1, -1, 0, 1}, {-1, 0, 0, 1}, {1, 0, -1, 1},
};

static int ctx_magic_matrix, ctx_magic_sum;
static int bad_ctx; /* set by an op that received a wrong context pointer */

static mat2_t mat_mul(const mat2_t *l, const mat2_t *r) {
    return (mat2_t){l->a * r->a + l->b * r->c, l->a * r->b + l->b * r->d, l->c * r->a + l->d * r->c,
                    l->c * r->b + l->d * r->d};
}

/* inout[i] = in[i] * inout[i]: `in` is the left operand, as MPI defines for user functions. */
static void matrix_product(const void *in, void *inout, size_t n, void *ctx) {
    if (ctx != &ctx_magic_matrix) bad_ctx = 1;
    const mat2_t *l = in;
    mat2_t *r = inout;
    for (size_t i = 0; i < n; i++) r[i] = mat_mul(&l[i], &r[i]);
}

static void int3_sum(const void *in, void *inout, size_t n, void *ctx) {
    if (ctx != &ctx_magic_sum) bad_ctx = 1;
    const char *src = in;
    char *dst = inout;
    for (size_t i = 0; i < n; i++) {
        const int3_t *a = (const int3_t *)(src + 16 * i);
        int3_t *b = (int3_t *)(dst + 16 * i);
        b->x += a->x, b->y += a->y, b->z += a->z;
    }
}

static mat2_t matrix_input(int rank, size_t i, uint64_t seed) {
    return generators[test_data_mix(seed, (uint64_t)rank, i) % NELEMS(generators)];
}

static int3_t int3_input(int rank, size_t i, uint64_t seed) {
    uint64_t h = test_data_mix(seed, (uint64_t)rank, i);
    return (int3_t){(int32_t)(h % 2001) - 1000, (int32_t)((h >> 16) % 2001) - 1000,
                    (int32_t)((h >> 32) % 2001) - 1000};
}

typedef struct op_kind {
    const char *name;
    shmcoll_reduce_op_t op;
} op_kind_t;

static void fill_input(int matrix, int rank, uint64_t seed, char *buf, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (matrix) {
            mat2_t m = matrix_input(rank, i, seed);
            memcpy(buf + 32 * i, &m, sizeof m);
        } else {
            int3_t v = int3_input(rank, i, seed);
            memcpy(buf + 16 * i, &v, 12); /* padding keeps the poison */
        }
    }
}

/* Element i of the rank-order result, compared with `got`; 0 when equal. */
static int check_element(int matrix, int p, uint64_t seed, size_t i, const char *got, char *msg,
                         size_t len) {
    if (matrix) {
        mat2_t acc = matrix_input(0, i, seed), g;
        for (int r = 1; r < p; r++) {
            mat2_t m = matrix_input(r, i, seed);
            acc = mat_mul(&acc, &m);
        }
        memcpy(&g, got + 32 * i, sizeof g);
        /* By value: a zero's sign depends on how the product is associated. */
        if (g.a == acc.a && g.b == acc.b && g.c == acc.c && g.d == acc.d) return 0;
        snprintf(msg, len, "element %zu is [[%g,%g],[%g,%g]], expected [[%g,%g],[%g,%g]]", i, g.a,
                 g.b, g.c, g.d, acc.a, acc.b, acc.c, acc.d);
        return 1;
    }
    int3_t acc = {0, 0, 0}, g;
    for (int r = 0; r < p; r++) {
        int3_t v = int3_input(r, i, seed);
        acc.x += v.x, acc.y += v.y, acc.z += v.z;
    }
    memcpy(&g, got + 16 * i, 12);
    if (g.x == acc.x && g.y == acc.y && g.z == acc.z) return 0;
    snprintf(msg, len, "element %zu is (%d,%d,%d), expected (%d,%d,%d)", i, g.x, g.y, g.z, acc.x,
             acc.y, acc.z);
    return 1;
}

/* One allreduce (root < 0) or reduce; returns 0 when this member saw a correct outcome. */
static int run_case(shmcoll_team_t *team, const shmcoll_reduce_op_t *op, int matrix, size_t n,
                    int root, int in_place, uint64_t seed) {
    const int p = team->size, me = team->rank;
    const int gets_result = root < 0 || root == me;
    const size_t span = n ? (n - 1) * op->extent + op->size : 0, bytes = n * op->extent;
    char desc[160];
    snprintf(desc, sizeof desc, "%s %s count %zu root %d%s", root < 0 ? "allreduce" : "reduce",
             op->name, n, root, in_place ? " in-place" : "");
    char *send = malloc(bytes + GUARD), *recv = malloc(bytes + GUARD),
         *copy = malloc(bytes + GUARD);
    if (!send || !recv || !copy) {
        team_harness_log("%s: out of memory", desc);
        free(send), free(recv), free(copy);
        return 1;
    }
    test_data_poison(send, bytes + GUARD);
    test_data_poison(recv, bytes + GUARD);
    const int use_send = !(in_place && gets_result);
    fill_input(matrix, me, seed, use_send ? send : recv, n);
    memcpy(copy, send, bytes + GUARD);

    shmcoll_status_t status =
        root < 0
            ? shmcoll_allreduce(team, use_send ? send : NULL, recv, n, op)
            : shmcoll_reduce(team, use_send ? send : NULL, gets_result ? recv : NULL, n, op, root);
    int failed = 0;
    if (status != SHMCOLL_OK) {
        team_harness_log("%s: returned %s (%s)", desc, shmcoll_status_string(status), team->error);
        failed = 1;
    }
    if (bad_ctx) {
        team_harness_log("%s: the user function got a wrong context pointer", desc);
        failed = 1;
    }
    if (memcmp(copy, send, bytes + GUARD)) {
        team_harness_log("%s: the send buffer was modified", desc);
        failed = 1;
    }
    if (gets_result && !failed) {
        if (test_data_poisoned(recv + span, bytes + GUARD - span) >= 0) {
            team_harness_log("%s: bytes past the result were overwritten", desc);
            failed = 1;
        }
        char msg[200];
        size_t bad = 0;
        for (size_t i = 0; i < n; i++)
            if (check_element(matrix, p, seed, i, recv, msg, sizeof msg) && !bad++)
                team_harness_log("%s: %s", desc, msg);
        if (bad) {
            team_harness_log("%s: %zu of %zu elements wrong", desc, bad, n);
            failed = 1;
        }
    }
    free(send), free(recv), free(copy);
    return failed;
}

static int body(shmcoll_team_t *team, void *arg) {
    const shmcoll_reduce_op_t ops[2] = {
        {.user_fn = matrix_product,
         .user_ctx = &ctx_magic_matrix,
         .size = 32,
         .extent = 32,
         .commutative = 0,
         .name = "matrix-product"},
        {.user_fn = int3_sum,
         .user_ctx = &ctx_magic_sum,
         .size = 12,
         .extent = 16,
         .commutative = 1,
         .name = "int3-sum"},
    };
    const size_t counts[] = {1, 7, 1000, 20000 / (size_t)team_harness_scale_down()};
    int roots[8], nroots = coll_check_roots(team->size, roots);
    int failed = 0;
    uint64_t index = 0;
    for (int k = 0; k < 2; k++)
        for (size_t n = 0; n < NELEMS(counts); n++)
            for (int in_place = 0; in_place < 2; in_place++)
                for (int ri = -1; ri < nroots; ri++) {
                    int root = ri < 0 ? -1 : roots[ri];
                    failed |= run_case(team, &ops[k], k == 0, counts[n], root, in_place,
                                       test_data_mix(team->size, index++, 6));
                    team_harness_log_quiet(failed);
                }
    team_harness_log_quiet(0);
    return failed;
}

int main(int argc, char **argv) {
    static const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 13, 16};
    return team_harness_for_sizes(argc, argv, sizes, NELEMS(sizes), body, NULL, 120.0) != 0;
}
