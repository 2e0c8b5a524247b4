/* k-nomial broadcast, reduction and barrier, and the dissemination barrier, over teams of forked
 * processes with 4 KiB chunks (SHMCOLL_CHUNK=4k), so a few tens of kilobytes already take many
 * pipeline chunks through several tree levels at once. p in {1,2,3,4,5,7,8,13,16,31}.
 *
 *  - the tree height helper against a brute-force count of base-k digits, p in 1..256, k 2..9;
 *  - bcast for radices {2,3,4,p}: 0, 1, 64, 65 bytes (inline and not), 1000, several chunks and
 *    25 chunks, every root for p <= 5 (else 0, p-1, p/2), misaligned buffers; the buffer must be
 *    the root's bytes exactly, nothing around it touched;
 *  - reduce for radices {2,3,8}: several (type, op) pairs, counts 0/1/7/1000/~13 chunks, roots as
 *    above, in place and not; the result at the root equals the scalar oracle's rank-order fold,
 *    the send buffer is unchanged, a non-root's receive buffer is never written. Non-commutative:
 *    2x2 matrix products through a user function (in = left operand) and a predefined kernel
 *    flagged non-commutative, both in canonical order whatever the root;
 *  - barriers: members arrive late at random; after leaving barrier k a member must see every
 *    member's arrival count at k or k+1;
 *  - a long mixed sequence of all of these interleaved with shmcoll_allreduce, shmcoll_bcast and
 *    shmcoll_barrier, with sizes and roots drawn per call, to catch races into the next
 *    collective;
 *  - DAV summed over all members: bcast 2s(p + I) (I: non-root members with children), reduce
 *    3s(p-1) + 2sL (L: leaves), + 2s when a non-commutative reduction detours through rank 0.
 * Team sizes may be given on the command line. */
#include "select/team_coll.h"
#include "coll/coll_internal.h"
#include "coll_check.h"
#include "patterns/knomial.h"
#include "team_harness.h"
#include "test_data.h"
#include "user_ops.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define GUARD     64

/* ---- Operations under test: predefined kernels and a non-commutative user op ------------- */

typedef struct opsrc {
    shmcoll_reduce_op_t op;
    shmcoll_dtype_t dtype;
    shmcoll_opcode_t opcode;
    int matrix;
} opsrc_t;

static int opsrc_pair(shmcoll_dtype_t dtype, shmcoll_opcode_t opcode, int commutative, opsrc_t *s) {
    memset(s, 0, sizeof *s);
    s->dtype = dtype;
    s->opcode = opcode;
    if (test_data_op(dtype, opcode, &s->op)) return 1;
    s->op.commutative = commutative;
    return 0;
}

static void opsrc_matrix(opsrc_t *s) {
    memset(s, 0, sizeof *s);
    s->matrix = 1;
    s->op = (shmcoll_reduce_op_t){.user_fn = user_ops_mat2_product,
                                  .size = sizeof(mat2_t),
                                  .extent = sizeof(mat2_t),
                                  .commutative = 0,
                                  .name = "matrix-product"};
}

static void opsrc_fill(const opsrc_t *s, int rank, int p, uint64_t seed, void *buf, size_t n) {
    if (!s->matrix) {
        test_data_fill(s->dtype, s->opcode, rank, p, seed, buf, n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        mat2_t m = user_ops_mat2_input(rank, i, seed);
        memcpy((char *)buf + i * sizeof m, &m, sizeof m);
    }
}

static int opsrc_reference(const opsrc_t *s, int p, uint64_t seed, void *out, size_t n) {
    if (!s->matrix) return test_data_reference(s->dtype, s->opcode, p, seed, out, n);
    for (size_t i = 0; i < n; i++) {
        mat2_t acc = user_ops_mat2_input(0, i, seed);
        for (int r = 1; r < p; r++) {
            mat2_t m = user_ops_mat2_input(r, i, seed);
            acc = user_ops_mat2_mul(&acc, &m);
        }
        memcpy((char *)out + i * sizeof acc, &acc, sizeof acc);
    }
    return 0;
}

/* Index of the first wrong element, or -1. Matrices compare by value (a zero's sign depends on
 * how the product is associated). */
static long opsrc_compare(const opsrc_t *s, const void *got, const void *want, size_t n) {
    if (!s->matrix) return test_data_compare(s->dtype, got, want, n);
    for (size_t i = 0; i < n; i++) {
        mat2_t g, w;
        memcpy(&g, (const char *)got + i * sizeof g, sizeof g);
        memcpy(&w, (const char *)want + i * sizeof w, sizeof w);
        if (g.a != w.a || g.b != w.b || g.c != w.c || g.d != w.d) return (long)i;
    }
    return -1;
}

/* ---- The algorithms through their registry rows, with the radix as a parameter ----------- */

static shmcoll_status_t knomial_bcast(shmcoll_team_t *team, void *buf, size_t bytes, int root,
                                      int k) {
    const shmcoll_coll_args_t args = {
        .kind = SHMCOLL_KIND_BCAST, .recvbuf = buf, .count = bytes, .root = root};
    return shmcoll_coll_run_algo(team, &args, "knomial", &(shmcoll_task_params_t){.radix = k});
}

static shmcoll_status_t knomial_reduce(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                       size_t count, const shmcoll_reduce_op_t *op, int root,
                                       int k) {
    const shmcoll_coll_args_t args = {.kind = SHMCOLL_KIND_REDUCE,
                                      .sendbuf = sendbuf,
                                      .recvbuf = recvbuf,
                                      .count = count,
                                      .op = op,
                                      .root = root};
    return shmcoll_coll_run_algo(team, &args, "knomial", &(shmcoll_task_params_t){.radix = k});
}

/* ---- Checked calls ------------------------------------------------------------------------- */

/* A zeroed-or-poisoned buffer with GUARD poisoned bytes after `bytes` at offset `offset`. */
static unsigned char *guarded(size_t bytes, size_t offset) {
    unsigned char *mem = malloc(offset + bytes + GUARD);
    if (mem) test_data_poison(mem, offset + bytes + GUARD);
    return mem;
}

/* One checked k-nomial broadcast; 0 when this member saw the right bytes. */
static int check_bcast(shmcoll_team_t *team, size_t bytes, int root, int k, uint64_t seed) {
    const size_t offset = seed % 8;
    unsigned char *mem = guarded(bytes, offset), *want = malloc(bytes + 1);
    int failed = !mem || !want;
    if (failed) goto out;
    unsigned char *buf = mem + offset;
    test_data_bytes(want, 0, bytes, seed, (uint64_t)root);
    if (team->rank == root) memcpy(buf, want, bytes);
    shmcoll_status_t status = knomial_bcast(team, buf, bytes, root, k);
    if (status != SHMCOLL_OK) {
        team_harness_log("bcast k=%d %zu bytes root %d: returned %s (%s)", k, bytes, root,
                         shmcoll_status_string(status), team->error);
        failed = 1;
    } else if (memcmp(buf, want, bytes)) {
        size_t first = 0;
        while (buf[first] == want[first]) first++;
        team_harness_log("bcast k=%d %zu bytes root %d: byte %zu is 0x%02x, expected 0x%02x", k,
                         bytes, root, first, buf[first], want[first]);
        failed = 1;
    }
    if (test_data_poisoned(mem, offset) >= 0 || test_data_poisoned(buf + bytes, GUARD) >= 0) {
        team_harness_log("bcast k=%d %zu bytes root %d: bytes around the buffer were written", k,
                         bytes, root);
        failed = 1;
    }
out:
    free(mem);
    free(want);
    return failed;
}

/* One checked k-nomial reduce (k = 0: the public shmcoll_reduce); 0 when correct here. */
static int check_reduce(shmcoll_team_t *team, const opsrc_t *s, size_t count, int root,
                        int in_place, int k, uint64_t seed) {
    const int p = team->size, me = team->rank, is_root = me == root;
    const shmcoll_reduce_op_t *op = &s->op;
    const size_t bytes = count * op->extent, span = shmcoll_reduce_op_span(op, count);
    const size_t offset = seed & 1 ? (s->matrix ? 8 : test_data_align(s->dtype)) : 0;
    char desc[160];
    snprintf(desc, sizeof desc, "reduce k=%d %s count %zu root %d%s", k, op->name, count, root,
             in_place ? " in-place" : "");
    const int use_send = !(is_root && in_place);
    unsigned char *send = use_send ? guarded(bytes, offset) : NULL;
    unsigned char *recv = guarded(bytes, offset), *copy = NULL, *ref = NULL;
    int failed = (use_send && !send) || !recv;
    if (failed) goto out;
    opsrc_fill(s, me, p, seed, (use_send ? send : recv) + offset, count);
    if (use_send && !(copy = malloc(offset + bytes + GUARD))) {
        failed = 1;
        goto out;
    }
    if (use_send) memcpy(copy, send, offset + bytes + GUARD);

    const void *sb = use_send ? send + offset : NULL;
    void *rb = recv + offset;
    shmcoll_status_t status = k ? knomial_reduce(team, sb, rb, count, op, root, k)
                                : shmcoll_reduce(team, sb, rb, count, op, root);
    if (status != SHMCOLL_OK) {
        team_harness_log("%s: returned %s (%s)", desc, shmcoll_status_string(status), team->error);
        failed = 1;
        goto out;
    }
    if (use_send && memcmp(copy, send, offset + bytes + GUARD)) {
        team_harness_log("%s: the send buffer was modified", desc);
        failed = 1;
    }
    if (!is_root) {
        if (test_data_poisoned(recv, offset + bytes + GUARD) >= 0) {
            team_harness_log("%s: a non-root's receive buffer was written", desc);
            failed = 1;
        }
        goto out;
    }
    if (test_data_poisoned(recv, offset) >= 0 ||
        test_data_poisoned(recv + offset + span, bytes + GUARD - span) >= 0) {
        team_harness_log("%s: bytes around the result were written", desc);
        failed = 1;
    }
    ref = malloc(bytes + 1);
    if (!ref || opsrc_reference(s, p, seed, ref, count)) {
        team_harness_log("%s: no reference", desc);
        failed = 1;
        goto out;
    }
    long bad = opsrc_compare(s, rb, ref, count);
    if (bad >= 0) {
        team_harness_log("%s: element %ld differs from the rank-order reference", desc, bad);
        failed = 1;
    }
out:
    free(send);
    free(recv);
    free(copy);
    free(ref);
    return failed;
}

/* Public allreduce of int32 sums inside the mixed sequence; 0 when correct. */
static int check_allreduce(shmcoll_team_t *team, size_t count, uint64_t seed) {
    opsrc_t s;
    opsrc_pair(SHMCOLL_DT_INT32, SHMCOLL_OP_SUM, 1, &s);
    int32_t *send = malloc(count * 4 + 4), *recv = malloc(count * 4 + 4), *ref = NULL;
    int failed = !send || !recv;
    if (!failed) {
        opsrc_fill(&s, team->rank, team->size, seed, send, count);
        shmcoll_status_t status = shmcoll_allreduce(team, send, recv, count, &s.op);
        ref = malloc(count * 4 + 4);
        failed = status != SHMCOLL_OK || !ref ||
                 opsrc_reference(&s, team->size, seed, ref, count) ||
                 opsrc_compare(&s, recv, ref, count) >= 0;
        if (failed)
            team_harness_log("allreduce count %zu in the mixed sequence: %s", count,
                             status == SHMCOLL_OK ? "wrong result" : team->error);
    }
    free(send), free(recv), free(ref);
    return failed;
}

/* ---- Barriers ------------------------------------------------------------------------------ */

typedef enum barrier_kind { BARRIER_KNOMIAL, BARRIER_DISSEM, BARRIER_FLAT } barrier_kind_t;

static shmcoll_status_t run_barrier(shmcoll_team_t *team, barrier_kind_t kind, int k) {
    if (kind == BARRIER_FLAT) return shmcoll_barrier(team);
    const shmcoll_coll_args_t args = {.kind = SHMCOLL_KIND_BARRIER};
    return kind == BARRIER_KNOMIAL
               ? shmcoll_coll_run_algo(team, &args, "knomial", &(shmcoll_task_params_t){.radix = k})
               : shmcoll_coll_run_algo(team, &args, "dissem", NULL);
}

/* Barrier number `round` of a sequence: arrive (maybe late), pass, check that everyone arrived.
 * arrived[] lives in the harness's shared memory. */
static int check_barrier(shmcoll_team_t *team, barrier_kind_t kind, int k, long round,
                         _Atomic long *arrived) {
    const int p = team->size, me = team->rank;
    uint64_t h = test_data_mix((uint64_t)round, (uint64_t)me, 9);
    if (h % 4 == 0) { /* a quarter of the members come late, by up to 0.3 ms */
        struct timespec nap = {0, (long)(h % 300000)};
        nanosleep(&nap, NULL);
    }
    atomic_store(&arrived[me], round);
    shmcoll_status_t status = run_barrier(team, kind, k);
    if (status != SHMCOLL_OK) {
        team_harness_log("barrier %ld (kind %d, k=%d) returned %s (%s)", round, (int)kind, k,
                         shmcoll_status_string(status), team->error);
        return 1;
    }
    for (int r = 0; r < p; r++) {
        long seen = atomic_load(&arrived[r]);
        if (seen < round || seen > round + 1) {
            team_harness_log("after barrier %ld (kind %d, k=%d) rank %d has recorded %ld", round,
                             (int)kind, k, r, seen);
            return 1;
        }
    }
    return 0;
}

/* ---- DAV ----------------------------------------------------------------------------------- */

/* Members other than the root with children (I) and leaves (L) of the tree. */
static void tree_counts(int p, int k, int root, int *inner, int *leaves) {
    int children[512];
    *inner = *leaves = 0;
    for (int r = 0; r < p; r++) {
        if (r == root) continue;
        if (shmcoll_pattern_knomial_children(p, k, root, r, children))
            ++*inner;
        else
            ++*leaves;
    }
}

/* Sums the members' DAV growth through the harness; member 0 compares it with `want`. */
static int check_dav(shmcoll_team_t *team, uint64_t grown, uint64_t want, const char *what) {
    uint64_t all[TEAM_HARNESS_MAX_P], total = 0;
    if (team_harness_allgather(&grown, all, sizeof grown)) return 1;
    if (team->rank != 0) return 0;
    for (int r = 0; r < team->size; r++) total += all[r];
    if (total == want) return 0;
    team_harness_log("%s: DAV %llu, expected %llu", what, (unsigned long long)total,
                     (unsigned long long)want);
    return 1;
}

static int dav_cases(shmcoll_team_t *team) {
    const int p = team->size;
    int failed = 0;
    if (p < 2) return 0;
    /* bcast of s bytes: 2s(p + I) */
    const size_t s = 20000;
    unsigned char *buf = calloc(s, 1);
    const int ks[] = {2, 3};
    for (size_t i = 0; i < NELEMS(ks) && buf; i++) {
        const int root = (int)i * (p - 1), k = ks[i];
        int inner, leaves;
        tree_counts(p, k, root, &inner, &leaves);
        const uint64_t before = shmcoll_team_dav(team);
        failed |= knomial_bcast(team, buf, s, root, k) != SHMCOLL_OK;
        char what[64];
        snprintf(what, sizeof what, "bcast k=%d root %d s=%zu", k, root, s);
        failed |=
            check_dav(team, shmcoll_team_dav(team) - before, 2 * s * (uint64_t)(p + inner), what);
    }
    free(buf);
    /* reduce of doubles: 3s(p-1) + 2sL, + 2s through rank 0 when not commutative */
    const size_t count = 3000;
    double *send = calloc(count, sizeof *send), *recv = calloc(count, sizeof *recv);
    for (int c = 0; c < 3 && send && recv; c++) {
        opsrc_t src;
        opsrc_pair(SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM, c < 2, &src);
        const int root = c == 0 ? 0 : p - 1, k = c == 1 ? 3 : 2;
        const int tree_root = c < 2 ? root : 0;
        int inner, leaves;
        tree_counts(p, k, tree_root, &inner, &leaves);
        const uint64_t sb = count * sizeof(double);
        const uint64_t want = 3 * sb * (uint64_t)(p - 1) + 2 * sb * (uint64_t)leaves +
                              (tree_root != root ? 2 * sb : 0);
        const uint64_t before = shmcoll_team_dav(team);
        failed |= knomial_reduce(team, send, recv, count, &src.op, root, k) != SHMCOLL_OK;
        char what[96];
        snprintf(what, sizeof what, "reduce k=%d root %d %scommutative s=%llu", k, root,
                 c < 2 ? "" : "non-", (unsigned long long)sb);
        failed |= check_dav(team, shmcoll_team_dav(team) - before, want, what);
    }
    free(send), free(recv);
    return failed;
}

/* ---- The test body ------------------------------------------------------------------------- */

static const coll_pair_t pairs[] = {
    {SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM},       {SHMCOLL_DT_INT32, SHMCOLL_OP_SUM},
    {SHMCOLL_DT_SHORT_INT, SHMCOLL_OP_MINLOC}, {SHMCOLL_DT_UINT8, SHMCOLL_OP_BXOR},
    {SHMCOLL_DT_FLOAT, SHMCOLL_OP_MAX},        {SHMCOLL_DT_LONG_DOUBLE_COMPLEX, SHMCOLL_OP_SUM},
};

static int bcast_cases(shmcoll_team_t *team, uint64_t *index) {
    const int p = team->size;
    const int ks[] = {2, 3, 4, p > 2 ? p : 2};
    const size_t sizes[] = {0, 1, 64, 65, 1000, 3 * 4096 + 5, 100001};
    int roots[8], nroots = coll_check_roots(p, roots), failed = 0;
    for (size_t ki = 0; ki < NELEMS(ks); ki++)
        for (size_t si = 0; si < NELEMS(sizes); si++)
            for (int ri = 0; ri < nroots; ri++) {
                /* The largest size at one root per radix: it is the slow one. */
                if (sizes[si] > 20000 && ri != (int)(ki % (size_t)nroots)) continue;
                failed |= check_bcast(team, sizes[si], roots[ri], ks[ki],
                                      test_data_mix((uint64_t)p, (*index)++, 21));
                team_harness_log_quiet(failed);
            }
    team_harness_log_quiet(0);
    return failed;
}

static int reduce_cases(shmcoll_team_t *team, uint64_t *index) {
    const int p = team->size;
    const int ks[] = {2, 3, 8};
    int roots[8], nroots = coll_check_roots(p, roots), failed = 0;
    for (size_t pi = 0; pi <= NELEMS(pairs) + 1; pi++) {
        opsrc_t s;
        if (pi < NELEMS(pairs))
            opsrc_pair(pairs[pi].dtype, pairs[pi].op, 1, &s);
        else if (pi == NELEMS(pairs))
            opsrc_matrix(&s);
        else /* a predefined kernel the caller declares non-commutative */
            opsrc_pair(SHMCOLL_DT_INT64, SHMCOLL_OP_SUM, 0, &s);
        const size_t counts[] = {0, 1, 7, 1000, 13 * 4096 / s.op.extent + 5};
        for (size_t ni = 0; ni < NELEMS(counts); ni++)
            for (int ri = 0; ri < nroots; ri++)
                for (int in_place = 0; in_place < 2; in_place++) {
                    const uint64_t i = (*index)++;
                    const int k = ks[i % NELEMS(ks)];
                    if (counts[ni] > 2000 && (ri + in_place) % 2) continue;
                    failed |= check_reduce(team, &s, counts[ni], roots[ri], in_place, k,
                                           test_data_mix((uint64_t)p, i, 22));
                    team_harness_log_quiet(failed);
                }
    }
    team_harness_log_quiet(0);
    return failed;
}

static int barrier_cases(shmcoll_team_t *team, _Atomic long *arrived, long *round) {
    const long n = 40 / team_harness_scale_down() + 1;
    const int ks[] = {2, 3, 4};
    int failed = 0;
    for (long i = 0; i < n; i++) {
        failed |= check_barrier(team, BARRIER_DISSEM, 0, ++*round, arrived);
        team_harness_log_quiet(failed);
    }
    for (size_t ki = 0; ki < NELEMS(ks); ki++)
        for (long i = 0; i < n; i++) {
            failed |= check_barrier(team, BARRIER_KNOMIAL, ks[ki], ++*round, arrived);
            team_harness_log_quiet(failed);
        }
    team_harness_log_quiet(0);
    return failed;
}

/* Every collective of this file and a few public ones back to back, arguments drawn per call
 * from a seed all members share. */
static int mixed_sequence(shmcoll_team_t *team, _Atomic long *arrived, long *round) {
    const int p = team->size;
    const int n = 120 / team_harness_scale_down();
    opsrc_t matrix;
    opsrc_matrix(&matrix);
    int failed = 0;
    /* After a failure the sequence goes on quietly: every member must call the same
     * collectives. */
    for (int i = 0; i < n; i++) {
        const uint64_t h = test_data_mix((uint64_t)p, (uint64_t)i, 23);
        const int root = (int)(h % (uint64_t)p), k = 2 + (int)(h / 7 % 4);
        const size_t size = h / 31 % 3 == 0 ? h / 101 % 20000 : h / 101 % 300;
        switch (h / 1009 % 7) {
        case 0:
            failed |= check_bcast(team, size, root, k, h);
            break;
        case 1:
            failed |= check_reduce(team, &matrix, size / 32, root, (int)(h & 1), k, h);
            break;
        case 2: {
            opsrc_t s;
            opsrc_pair(SHMCOLL_DT_INT32, SHMCOLL_OP_SUM, 1, &s);
            failed |= check_reduce(team, &s, size / 4, root, (int)(h & 1), k, h);
            break;
        }
        case 3:
            failed |=
                check_barrier(team, h & 1 ? BARRIER_DISSEM : BARRIER_KNOMIAL, k, ++*round, arrived);
            break;
        case 4:
            failed |= check_allreduce(team, size / 4, h);
            break;
        case 5: {
            opsrc_t s;
            opsrc_pair(SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM, 1, &s);
            failed |= check_reduce(team, &s, size / 8, root, 0, 0, h);
            break;
        }
        default:
            failed |= check_barrier(team, BARRIER_FLAT, 0, ++*round, arrived);
            break;
        }
        team_harness_log_quiet(failed);
    }
    team_harness_log_quiet(0);
    return failed;
}

static int body(shmcoll_team_t *team, void *arg) {
    if (team_harness_check_chunk(team, 4096)) return 1;
    _Atomic long *arrived = team_harness_shared();
    long round = 0;
    uint64_t index = 0;
    int failed = 0;
    failed |= bcast_cases(team, &index);
    failed |= reduce_cases(team, &index);
    failed |= barrier_cases(team, arrived, &round);
    failed |= mixed_sequence(team, arrived, &round);
    failed |= dav_cases(team);
    return failed;
}

/* The tree height against the most non-zero base-k digits of any relative rank. */
static int check_height(void) {
    int failed = 0;
    for (int k = 2; k <= 9; k++)
        for (int p = 1; p <= 256; p++) {
            int want = 0;
            for (int r = 0; r < p; r++) {
                int depth = shmcoll_pattern_knomial_depth(p, k, 0, r);
                want = depth > want ? depth : want;
            }
            if (shmcoll_pattern_knomial_height(p, k) != want) {
                fprintf(stderr, "knomial height p=%d k=%d: %d, expected %d\n", p, k,
                        shmcoll_pattern_knomial_height(p, k), want);
                failed = 1;
            }
        }
    return failed;
}

int main(int argc, char **argv) {
    static const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 13, 16, 31};
    static const char *const env[] = {"SHMCOLL_CHUNK=4k", NULL};
    if (test_data_check_layouts() || check_height()) return 1;
    /* Shared memory: the barriers' arrival counts, one per member. */
    const team_harness_spec_t spec = {.body = body,
                                      .timeout_s = 300.0,
                                      .env = env,
                                      .shared_bytes = TEAM_HARNESS_MAX_P * sizeof(_Atomic long)};
    return team_harness_for_sizes_spec(argc, argv, sizes, (int)NELEMS(sizes), &spec) != 0;
}
