/* The hierarchical algorithms (coll/hier_bcast.c, hier_reduce.c: their registry rows "hier")
 * over teams of forked processes whose placement is injected (SHMCOLL_TOPO, SHMCOLL_MAP), so that
 * their hierarchies have two to four levels on any machine: a 2-socket, 4-NUMA, 8-L3 machine of
 * 32 PUs, ranks placed linearly (contiguous groups) or NUMA round-robin (non-contiguous groups,
 * other level lists), with the default chunk and with 4 KiB chunks (messages of many chunks); and
 * unbound members (a flat hierarchy).
 *
 * Each team runs, without any synchronisation of the harness between calls:
 *  - bcast for every root (p <= 5, else three), sizes 1, 64 (inline), 65, 1000, and several
 *    chunks, buffers misaligned; the bytes around the message must stay untouched;
 *  - reduce and allreduce for a spread of (type, op) pairs (sizes differing from extents
 *    included) and counts 1, 7, 1000 and several chunks, in place or not, every root as above:
 *    results against the scalar oracle's rank-order fold, allreduce results bitwise identical on
 *    every member, send buffers and a non-root's receive buffer untouched;
 *  - user ops: a non-commutative 2x2 matrix product, which must be served exactly when every
 *    level covers contiguous rank ranges (and NOT_SUPPORTED otherwise, after which the team must
 *    still work), and a commutative sum over a padded element;
 *  - a long mixed sequence of these algorithms and the library's own collectives, so a member
 *    racing into the next collective shows up as a wrong result;
 *  - the DAV of one 1 MiB bcast, reduce and allreduce of doubles, summed over the team, printed,
 *    and checked against 2s(p + g - 1), s(5p - 1) and s(7p - 3 + 2g') where g and g' are the
 *    level-0 groups of the bcast and reduce hierarchies (when every group has two members or
 *    more; on a flat team g' = 0 republishers). */
#include "select/team_coll.h"
#include "coll/coll_internal.h"
#include "coll_check.h"
#include "base/config.h"
#include "core/team_topo.h"
#include "team_harness.h"
#include "test_data.h"
#include "user_ops.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NELEMS(a)       (sizeof(a) / sizeof((a)[0]))
#define GUARD           64
#define SELF_CHECK_WORK ((size_t)1 << 14)
#define MACHINE         "pack:2 numa:2 l3:2 core:4 pu:1" /* 32 PUs: 4 per L3, 8 per NUMA node */

typedef struct config {
    const char *name;
    const char *env[6];
    int sizes[8]; /* 0-terminated */
} config_t;

/* Which implementation a checked call uses: the one under test, or the library's entry point. */
typedef enum impl { HIER, LIBRARY } impl_t;

/* ---- bcast -------------------------------------------------------------------------------- */

static int check_bcast(shmcoll_team_t *team, impl_t impl, size_t bytes, int root, uint64_t seed) {
    const size_t offset = 1 + seed % 7;
    unsigned char *mem = malloc(offset + bytes + GUARD), *want = malloc(bytes + 1);
    if (!mem || !want) {
        team_harness_log("bcast: out of memory");
        free(mem), free(want);
        return 1;
    }
    test_data_poison(mem, offset + bytes + GUARD);
    test_data_bytes(want, 0, bytes, seed, (uint64_t)root);
    unsigned char *buf = mem + offset;
    if (team->rank == root) memcpy(buf, want, bytes);
    shmcoll_status_t status;
    if (impl == HIER) {
        const shmcoll_coll_args_t args = {
            .kind = SHMCOLL_KIND_BCAST, .recvbuf = buf, .count = bytes, .root = root};
        status = shmcoll_coll_run_algo(team, &args, "hier", NULL);
    } else {
        status = shmcoll_bcast(team, buf, bytes, root);
    }
    int failed = 0;
    if (status != SHMCOLL_OK) {
        team_harness_log("bcast %zu bytes root %d: %s (%s)", bytes, root,
                         shmcoll_status_string(status), team->error);
        failed = 1;
    } else if (memcmp(buf, want, bytes)) {
        size_t first = 0;
        while (buf[first] == want[first]) first++;
        team_harness_log("bcast %zu bytes root %d: byte %zu wrong", bytes, root, first);
        failed = 1;
    }
    if (test_data_poisoned(mem, offset) >= 0 || test_data_poisoned(buf + bytes, GUARD) >= 0) {
        team_harness_log("bcast %zu bytes root %d: bytes around the message overwritten", bytes,
                         root);
        failed = 1;
    }
    free(mem), free(want);
    return failed;
}

/* ---- user ops ------------------------------------------------------------------------------ */

static const shmcoll_reduce_op_t user_ops[2] = {
    {.user_fn = user_ops_mat2_product, .size = 32, .extent = 32, .name = "matrix-product"},
    {.user_fn = user_ops_int3_sum, .size = 12, .extent = 16, .commutative = 1, .name = "int3-sum"},
};

static void user_fill(int which, int rank, uint64_t seed, char *buf, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const uint64_t h = test_data_mix(seed, (uint64_t)rank, i);
        if (which == 0) {
            const mat2_t m = user_ops_mat2_input(rank, i, seed);
            memcpy(buf + 32 * i, &m, 32);
        } else {
            int32_t v[3] = {(int32_t)(h % 2001) - 1000, (int32_t)((h >> 16) % 2001) - 1000,
                            (int32_t)((h >> 32) % 2001) - 1000};
            memcpy(buf + 16 * i, v, 12);
        }
    }
}

/* ---- reductions ---------------------------------------------------------------------------- */

/* A reduction case: a predefined pair (user < 0) or user op `user`. */
typedef struct red_case {
    shmcoll_dtype_t dtype;
    shmcoll_opcode_t opcode;
    int user;
    size_t count;
    int root; /* -1: allreduce */
    int in_place;
    uint64_t seed;
} red_case_t;

static void red_format(const red_case_t *c, const shmcoll_reduce_op_t *op, char *text, size_t len) {
    snprintf(text, len, "%s %s count %zu root %d%s seed %llu", c->root < 0 ? "allreduce" : "reduce",
             op->name ? op->name : "?", c->count, c->root, c->in_place ? " in-place" : "",
             (unsigned long long)c->seed);
}

/* The expected result: the oracle for predefined pairs, the user function folded in rank order
 * (right to left, exact for these inputs) for user ops. NULL after logging. */
static void *reference(const red_case_t *c, const shmcoll_reduce_op_t *op, int p) {
    const size_t bytes = c->count * op->extent + 1;
    char *ref = malloc(bytes), *x = malloc(bytes);
    if (!ref || !x) goto fail;
    if (c->user < 0) {
        if (test_data_reference(c->dtype, c->opcode, p, c->seed, ref, c->count)) goto fail;
    } else {
        memset(ref, 0, bytes);
        user_fill(c->user, p - 1, c->seed, ref, c->count);
        for (int r = p - 2; r >= 0; r--) {
            memset(x, 0, bytes);
            user_fill(c->user, r, c->seed, x, c->count);
            op->user_fn(x, ref, c->count, NULL);
        }
    }
    free(x);
    return ref;
fail:
    team_harness_log("cannot compute a reference");
    free(ref), free(x);
    return NULL;
}

/* Index of the first element whose data differs, or -1. */
static long compare(const red_case_t *c, const shmcoll_reduce_op_t *op, const char *got,
                    const char *want) {
    if (c->user < 0) return test_data_compare(c->dtype, got, want, c->count);
    for (size_t i = 0; i < c->count; i++) {
        if (c->user == 0) { /* by value: a zero's sign depends on how a product is associated */
            mat2_t g, w;
            memcpy(&g, got + 32 * i, 32);
            memcpy(&w, want + 32 * i, 32);
            if (g.a != w.a || g.b != w.b || g.c != w.c || g.d != w.d) return (long)i;
        } else if (memcmp(got + i * op->extent, want + i * op->extent, op->size)) {
            return (long)i;
        }
    }
    return -1;
}

static uint64_t result_hash(const red_case_t *c, const shmcoll_reduce_op_t *op, const char *buf) {
    if (c->user < 0) return test_data_hash(c->dtype, buf, c->count);
    uint64_t h = 0;
    for (size_t i = 0; i < c->count; i++) {
        uint64_t w[4] = {0};
        memcpy(w, buf + i * op->extent, op->size < sizeof w ? op->size : sizeof w);
        for (int k = 0; k < 4; k++) h = test_data_mix(h, w[k], i);
    }
    return h;
}

/* One checked reduce/allreduce. expect_unsupported: NOT_SUPPORTED is the right answer (and the
 * buffers must be untouched). */
static int check_reduction(shmcoll_team_t *team, impl_t impl, const red_case_t *c,
                           int expect_unsupported) {
    const int p = team->size, me = team->rank;
    const int gets = c->root < 0 || c->root == me;
    shmcoll_reduce_op_t op;
    if (c->user >= 0)
        op = user_ops[c->user];
    else if (test_data_op(c->dtype, c->opcode, &op)) {
        team_harness_log("no kernel for this pair");
        return 1;
    }
    char desc[200];
    red_format(c, &op, desc, sizeof desc);
    const size_t bytes = c->count * op.extent;
    const size_t offset = c->user < 0 ? test_data_align(c->dtype) : 0;
    char *send = malloc(offset + bytes + GUARD), *recv = malloc(offset + bytes + GUARD),
         *copy = malloc(offset + bytes + GUARD);
    if (!send || !recv || !copy) {
        free(send), free(recv), free(copy);
        team_harness_log("%s: out of memory", desc);
        return 1;
    }
    test_data_poison(send, offset + bytes + GUARD);
    test_data_poison(recv, offset + bytes + GUARD);
    const int use_send = !(c->in_place && gets);
    char *input = (use_send ? send : recv) + offset;
    if (c->user < 0)
        test_data_fill(c->dtype, c->opcode, me, p, c->seed, input, c->count);
    else
        user_fill(c->user, me, c->seed, input, c->count);
    memcpy(copy, use_send ? send : recv, offset + bytes + GUARD);
    char *sbuf = use_send ? send + offset : NULL, *rbuf = recv + offset;

    shmcoll_status_t status;
    if (impl == HIER) {
        const shmcoll_coll_args_t args = {.kind = c->root < 0 ? SHMCOLL_KIND_ALLREDUCE
                                                              : SHMCOLL_KIND_REDUCE,
                                          .sendbuf = sbuf,
                                          .recvbuf = rbuf,
                                          .count = c->count,
                                          .op = &op,
                                          .root = c->root < 0 ? 0 : c->root};
        status = shmcoll_coll_run_algo(team, &args, "hier", NULL);
    } else {
        status = c->root < 0 ? shmcoll_allreduce(team, sbuf, rbuf, c->count, &op)
                             : shmcoll_reduce(team, sbuf, rbuf, c->count, &op, c->root);
    }
    int failed = 0;
    if (expect_unsupported) {
        if (status != SHMCOLL_ERR_NOT_SUPPORTED) {
            team_harness_log("%s: returned %s, expected NOT_SUPPORTED", desc,
                             shmcoll_status_string(status));
            failed = 1;
        }
        if (memcmp(copy, use_send ? send : recv, offset + bytes + GUARD) ||
            (use_send && test_data_poisoned(recv, offset + bytes + GUARD) >= 0)) {
            team_harness_log("%s: NOT_SUPPORTED but a buffer was written", desc);
            failed = 1;
        }
        goto out;
    }
    if (status != SHMCOLL_OK) {
        team_harness_log("%s: returned %s (%s)", desc, shmcoll_status_string(status), team->error);
        failed = 1;
        goto out;
    }
    if (use_send && memcmp(copy, send, offset + bytes + GUARD)) {
        team_harness_log("%s: the send buffer was modified", desc);
        failed = 1;
    }
    const size_t span = shmcoll_reduce_op_span(&op, c->count);
    if (!gets) {
        if (test_data_poisoned(recv, offset + bytes + GUARD) >= 0) {
            team_harness_log("%s: a non-root's receive buffer was written", desc);
            failed = 1;
        }
        goto out;
    }
    if (test_data_poisoned(recv, offset) >= 0 ||
        test_data_poisoned(rbuf + span, bytes + GUARD - span) >= 0) {
        team_harness_log("%s: bytes around the result were overwritten", desc);
        failed = 1;
    }
    /* The reference costs p * count: every member computes it for small cases; for large
     * allreduces one member, rotating, does and the others compare bits with it below. */
    if (c->root >= 0 || (size_t)p * c->count <= SELF_CHECK_WORK || me == (int)(c->seed % p)) {
        char *want = reference(c, &op, p);
        long bad = want ? compare(c, &op, rbuf, want) : 0;
        if (!want || bad >= 0) {
            if (want) team_harness_log("%s: element %ld wrong", desc, bad);
            failed = 1;
        }
        free(want);
    }
out:
    if (c->root < 0 && !expect_unsupported) { /* bitwise identical everywhere */
        uint64_t mine[2] = {failed ? 0 : result_hash(c, &op, rbuf), (uint64_t)failed};
        uint64_t all[2 * TEAM_HARNESS_MAX_P];
        if (team_harness_allgather(mine, all, sizeof mine)) {
            failed = 1;
        } else {
            for (int r = 0; r < p; r++)
                if (!failed && !all[2 * r + 1] && all[2 * r] != mine[0]) {
                    team_harness_log("%s: rank %d's result differs in its bits", desc, r);
                    failed = 1;
                }
        }
    }
    free(send), free(recv), free(copy);
    return failed;
}

/* ---- the matrix of cases ------------------------------------------------------------------- */

static const coll_pair_t pairs[] = {
    {SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM},         {SHMCOLL_DT_INT32, SHMCOLL_OP_SUM},
    {SHMCOLL_DT_DOUBLE_INT, SHMCOLL_OP_MAXLOC},  {SHMCOLL_DT_SHORT_INT, SHMCOLL_OP_MINLOC},
    {SHMCOLL_DT_INT64, SHMCOLL_OP_PROD},         {SHMCOLL_DT_UINT8, SHMCOLL_OP_BXOR},
    {SHMCOLL_DT_FLOAT_COMPLEX, SHMCOLL_OP_PROD}, {SHMCOLL_DT_LONG_DOUBLE, SHMCOLL_OP_SUM},
};

/* Every level of the reduction hierarchy covers contiguous rank ranges. */
static int reduce_contiguous(shmcoll_team_t *team) {
    const shmcoll_topo_hier_t *h = NULL;
    if (shmcoll_team_hierarchy(&team->hiers, shmcoll_config()->hier_reduce, -1, &h) != SHMCOLL_OK)
        return -1;
    int contiguous = 1;
    for (int i = 0; i < h->nlevels; i++) contiguous &= h->levels[i].contiguous;
    return contiguous;
}

static int run_matrix(shmcoll_team_t *team, uint64_t *index) {
    const int p = team->size;
    const size_t chunk = team->chunk;
    int roots[8], nroots = coll_check_roots(p, roots), failed = 0;
    const size_t bcast_sizes[] = {1, 64, 65, 1000, 5 * chunk / 2 + 3};
    for (size_t s = 0; s < NELEMS(bcast_sizes); s++)
        for (int ri = 0; ri < nroots; ri++) {
            failed |=
                check_bcast(team, HIER, bcast_sizes[s], roots[ri], test_data_mix(p, (*index)++, 1));
            team_harness_log_quiet(failed);
        }
    /* Large teams run a part of the pairs (oversubscribed, every call costs many switches). */
    const size_t npairs = p > 8 || team_harness_scale_down() > 1 ? 4 : NELEMS(pairs);
    for (size_t k = 0; k < npairs; k++) {
        const size_t extent = shmcoll_dtype_extent(pairs[k].dtype);
        const size_t counts[] = {1, 7, 1000, chunk / extent + 5};
        for (size_t n = 0; n < NELEMS(counts); n++)
            for (int ri = -1; ri < nroots; ri++)
                for (int in_place = 0; in_place < 2; in_place++) {
                    if (n == NELEMS(counts) - 1 && (ri > 0 || k % 3)) continue; /* big: few */
                    red_case_t c = {.dtype = pairs[k].dtype,
                                    .opcode = pairs[k].op,
                                    .user = -1,
                                    .count = counts[n],
                                    .root = ri < 0 ? -1 : roots[(ri + (int)k) % nroots],
                                    .in_place = in_place,
                                    .seed = test_data_mix(p, (*index)++, 2)};
                    failed |= check_reduction(team, HIER, &c, 0);
                    team_harness_log_quiet(failed);
                }
    }
    const int contiguous = reduce_contiguous(team);
    for (int u = 0; u < 2; u++) {
        const size_t counts[] = {1, 7, 1000, chunk / user_ops[u].extent + 3};
        for (size_t n = 0; n < NELEMS(counts); n++)
            for (int ri = -1; ri < nroots; ri++) {
                red_case_t c = {.user = u,
                                .count = counts[n],
                                .root = ri < 0 ? -1 : roots[ri],
                                .in_place = (int)(n & 1),
                                .seed = test_data_mix(p, (*index)++, 3)};
                failed |= check_reduction(team, HIER, &c, u == 0 && !contiguous);
                team_harness_log_quiet(failed);
                /* After a refusal the team must still work: a library collective follows. */
                red_case_t next = {SHMCOLL_DT_INT32,
                                   SHMCOLL_OP_SUM,
                                   -1,
                                   5,
                                   -1,
                                   0,
                                   test_data_mix(p, (*index)++, 4)};
                if (u == 0 && !contiguous) failed |= check_reduction(team, LIBRARY, &next, 0);
                team_harness_log_quiet(failed);
            }
    }
    team_harness_log_quiet(0);
    return failed;
}

/* A long sequence alternating this file's algorithms with the library's collectives. */
static int run_mixed(shmcoll_team_t *team, uint64_t *index) {
    const int p = team->size;
    const size_t chunk = team->chunk;
    int failed = 0;
    const int iterations = 24 / team_harness_scale_down();
    for (int it = 0; it < iterations; it++) {
        const int root = (it * 5 + 1) % p;
        const size_t big = (size_t)(it % 3 + 1) * chunk / 8 + (size_t)it;
        red_case_t r = {SHMCOLL_DT_DOUBLE,
                        SHMCOLL_OP_SUM,
                        -1,
                        big,
                        root,
                        it & 1,
                        test_data_mix(p, (*index)++, 5)};
        red_case_t a = {SHMCOLL_DT_INT32,
                        SHMCOLL_OP_MAX,
                        -1,
                        (size_t)(it % 4) * 97 + 1,
                        -1,
                        (it >> 1) & 1,
                        test_data_mix(p, (*index)++, 6)};
        failed |= check_bcast(team, HIER, (size_t)(it % 5) * chunk / 3 + 13, root,
                              test_data_mix(p, (*index)++, 7));
        failed |= check_reduction(team, LIBRARY, &a, 0);
        failed |= check_reduction(team, HIER, &r, 0);
        failed |= check_bcast(team, LIBRARY, 100 + (size_t)it, (root + 1) % p,
                              test_data_mix(p, (*index)++, 8));
        a.root = -1, a.seed = test_data_mix(p, (*index)++, 9), a.count = big / 2 + 1;
        failed |= check_reduction(team, HIER, &a, 0);
        r.root = root, r.seed = test_data_mix(p, (*index)++, 10);
        failed |= check_reduction(team, LIBRARY, &r, 0);
        if (shmcoll_barrier(team) != SHMCOLL_OK) failed = 1;
        team_harness_log_quiet(failed);
    }
    team_harness_log_quiet(0);
    return failed;
}

/* ---- DAV ----------------------------------------------------------------------------------- */

/* Level-0 groups of a hierarchy, and whether each has two members or more (-1 when not). */
static int level0_groups(shmcoll_team_t *team, const char *levels) {
    const shmcoll_topo_hier_t *h = NULL;
    if (shmcoll_team_hierarchy(&team->hiers, levels, -1, &h) != SHMCOLL_OK) return -1;
    for (int i = 0; i < h->nlevels; i++)
        for (int g = 0; g < h->levels[i].ngroups; g++)
            if (h->levels[i].groups[g].nmembers < 2) return -1;
    return h->nlevels == 1 ? 0 : h->levels[0].ngroups;
}

/* Sum of every member's DAV growth over one call of `what` (0 bcast, 1 reduce, 2 allreduce). */
static int measure(shmcoll_team_t *team, int what, uint64_t seed, uint64_t *total) {
    const size_t s = (size_t)1 << 20, count = s / sizeof(double);
    const int root = team->size - 1;
    uint64_t before = shmcoll_team_dav(team);
    int failed = 0;
    if (what == 0) {
        failed = check_bcast(team, HIER, s, root, seed);
    } else {
        red_case_t c = {
            SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM, -1, count, what == 1 ? root : -1, 0, seed};
        /* Only the call itself: check_reduction's own work does not touch shmcoll_team_dav(team).
         */
        failed = check_reduction(team, HIER, &c, 0);
    }
    uint64_t mine = shmcoll_team_dav(team) - before, all[TEAM_HARNESS_MAX_P];
    if (team_harness_allgather(&mine, all, sizeof mine)) return 1;
    *total = 0;
    for (int r = 0; r < team->size; r++) *total += all[r];
    return failed;
}

static int run_dav(shmcoll_team_t *team, const config_t *cfg, uint64_t *index) {
    const int p = team->size;
    const uint64_t s = (uint64_t)1 << 20;
    const int g_bcast = level0_groups(team, shmcoll_config()->hier_bcast);
    const int g_reduce = level0_groups(team, shmcoll_config()->hier_reduce);
    uint64_t dav[3];
    int failed = 0;
    for (int w = 0; w < 3; w++)
        failed |= measure(team, w, test_data_mix(p, (*index)++, 11), &dav[w]);
    if (team->rank != 0 || p == 1) return failed;
    printf("  %s p=%d DAV/s: bcast %.2f reduce %.2f allreduce %.2f (level-0 groups: bcast %d, "
           "reduce %d)\n",
           cfg->name, p, (double)dav[0] / (double)s, (double)dav[1] / (double)s,
           (double)dav[2] / (double)s, g_bcast, g_reduce);
    const uint64_t want[3] = {
        2 * s * (uint64_t)(p + (g_bcast > 0 ? g_bcast - 1 : 0)),
        s * (uint64_t)(5 * p - 1),
        s * (uint64_t)(7 * p - 3 + 2 * (g_reduce > 0 ? g_reduce : 0)),
    };
    static const char *names[3] = {"bcast", "reduce", "allreduce"};
    for (int w = 0; w < 3; w++) {
        const int known = w == 1 ? g_reduce >= 0 : w == 0 ? g_bcast >= 0 : g_reduce >= 0;
        if (known && dav[w] != want[w]) {
            team_harness_log("%s: DAV %llu, expected %llu", names[w], (unsigned long long)dav[w],
                             (unsigned long long)want[w]);
            failed = 1;
        }
    }
    fflush(stdout);
    return failed;
}

/* ---- driver -------------------------------------------------------------------------------- */

static int body(shmcoll_team_t *team, void *arg) {
    const config_t *cfg = arg;
    uint64_t index = 0;
    if (team->rank == 0) {
        const shmcoll_topo_hier_t *h = NULL;
        if (shmcoll_team_hierarchy(&team->hiers, shmcoll_config()->hier_reduce, -1, &h) ==
            SHMCOLL_OK) {
            printf("  %s p=%d reduce hierarchy:", cfg->name, team->size);
            for (int i = 0; i < h->nlevels; i++) {
                char line[160];
                shmcoll_topo_hier_format_level(h, i, line, sizeof line);
                printf(" [%s%s]", line, h->levels[i].contiguous ? "" : " non-contiguous");
            }
            printf("\n");
            fflush(stdout);
        }
    }
    int failed = run_matrix(team, &index);
    failed |= run_mixed(team, &index);
    failed |= run_dav(team, cfg, &index);
    return failed;
}

int main(int argc, char **argv) {
    static const config_t configs[] = {
        {"linear", {"SHMCOLL_TOPO=" MACHINE, "SHMCOLL_MAP=linear", NULL}, {1, 3, 5, 13, 16}},
        {"numa-rr", {"SHMCOLL_TOPO=" MACHINE, "SHMCOLL_MAP=numa-rr", NULL}, {2, 4, 7, 11}},
        {"linear 4k",
         {"SHMCOLL_TOPO=" MACHINE, "SHMCOLL_MAP=linear", "SHMCOLL_CHUNK=4k", NULL},
         {4, 16, 32}},
        {"numa-rr 4k other levels",
         {"SHMCOLL_TOPO=" MACHINE, "SHMCOLL_MAP=numa-rr", "SHMCOLL_CHUNK=4k",
          "SHMCOLL_HIER_BCAST=l3,numa,socket", "SHMCOLL_HIER_REDUCE=numa", NULL},
         {5, 16}},
        {"flat 4k", {"SHMCOLL_TOPO=", "SHMCOLL_MAP=", "SHMCOLL_CHUNK=4k", NULL}, {1, 4, 7}},
    };
    const int only = argc > 1 ? atoi(argv[1]) : -1; /* optional: one configuration */
    int failures = 0;
    if (test_data_check_layouts()) return 1;
    for (size_t i = 0; i < NELEMS(configs); i++) {
        if (only >= 0 && (size_t)only != i) continue;
        for (int k = 0; configs[i].sizes[k]; k++) {
            const double start = team_harness_now();
            team_harness_spec_t spec = {.p = configs[i].sizes[k],
                                        .body = body,
                                        .arg = (void *)&configs[i],
                                        .timeout_s = 300,
                                        .env = configs[i].env};
            const int failed = team_harness_run_spec(&spec);
            printf("test_hier %s p=%d: %s (%.2f s)\n", configs[i].name, configs[i].sizes[k],
                   failed ? "FAILED" : "ok", team_harness_now() - start);
            fflush(stdout);
            failures += failed != 0;
        }
    }
    return failures != 0;
}
