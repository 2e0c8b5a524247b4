/* Data-access volume (DAV) of the reduction algorithms, summed over all members.
 *
 * shmcoll_team_dav(team) counts the bytes this member's kernels load and store: a copy of n bytes
 * costs 2n, out = a op b over n elements 3 * n * size. Each member measures its growth across one
 * call; the harness's own allgather (not the code under test) collects them and member 0 compares
 * the sum with the volume the algorithm must have, for a message of s bytes over p members:
 *
 *   movement-avoiding (commutative ops; every element is copied into shared memory once and
 *   reduced p-1 times, and each member that needs the result copies it out once):
 *     allreduce                   s(5p-1)   2s + 3(p-1)s + p * 2s
 *     reduce                      s(3p+1)   2s + 3(p-1)s + 2s
 *     reduce_scatter(_block)      s(3p-1)   2s + 3(p-1)s (the last stage writes the receive
 *                                           buffer directly)
 *   split (allreduce and reduce with non-commutative ops; every member copies its whole input
 *   in, each part is folded by one member, results are copied out):
 *     allreduce                   s(7p-3)   p * 2s + 3(p-1)s + p * 2s
 *     reduce                      s(5p-1)   p * 2s + 3(p-1)s + 2s
 *   canonical reduce_scatter_block (non-commutative; every member copies its whole input in,
 *   member j folds block j straight into its receive buffer):
 *                                 s(5p-3)   p * 2s + 3(p-1)s
 *
 * For doubles (size = extent) these hold exactly whatever the split into blocks, slices and
 * chunks, even and uneven: every element is copied and reduced the same number of times. For a
 * pair type whose extent exceeds its size (DOUBLE_INT: size 12, extent 16) a copy of n elements
 * moves their span, 16n - 4 bytes, while a reduction counts 12 bytes per element, so the total
 * depends on how many slices the blocks are cut into; that case is checked against the exact sum
 * over slices (blocks of ceil(count/p) elements rounded up to a cache line of 4 elements, slices
 * of chunk/16 elements). Also checked: the algorithm each call took (team->last_algo), and that
 * the movement-avoiding allreduce moves less than the split one for p >= 4. The measurements are
 * printed as a table. Team sizes may be given on the command line. */
#include "select/team_coll.h"
#include "team_harness.h"
#include "test_data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum coll_kind { ALLREDUCE, REDUCE, REDUCE_SCATTER_BLOCK, REDUCE_SCATTER } coll_kind_t;

typedef struct dav_case {
    const char *name;
    coll_kind_t coll;
    int commutative;
    shmcoll_dtype_t dtype;
    shmcoll_opcode_t op;
    int root_last;    /* reduce: root p-1 instead of 0 */
    const char *algo; /* the algorithm the call must take */
    const char *formula;
    int a, b; /* expected DAV = s * (a * p + b); a = 0: computed from the slices */
} dav_case_t;

static const dav_case_t cases[] = {
    {"allreduce", ALLREDUCE, 1, SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM, 0, "ma", "s(5p-1)", 5, -1},
    {"reduce root 0", REDUCE, 1, SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM, 0, "ma", "s(3p+1)", 3, 1},
    {"reduce root p-1", REDUCE, 1, SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM, 1, "ma", "s(3p+1)", 3, 1},
    {"reduce_scatter_block", REDUCE_SCATTER_BLOCK, 1, SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM, 0, "ma",
     "s(3p-1)", 3, -1},
    {"reduce_scatter uneven", REDUCE_SCATTER, 1, SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM, 0, "ma",
     "s(3p-1)", 3, -1},
    {"allreduce", ALLREDUCE, 0, SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM, 0, "split", "s(7p-3)", 7, -3},
    {"reduce root p-1", REDUCE, 0, SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM, 1, "split", "s(5p-1)", 5, -1},
    {"reduce_scatter_block", REDUCE_SCATTER_BLOCK, 0, SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM, 0,
     "canonical", "s(5p-3)", 5, -3},
    {"allreduce", ALLREDUCE, 1, SHMCOLL_DT_DOUBLE_INT, SHMCOLL_OP_MAXLOC, 0, "ma", "slices", 0, 0},
};
#define NCASES (sizeof cases / sizeof cases[0])

/* Message sizes in bytes (s): 1 MiB, and 3 MiB plus 333 doubles, which no p divides. */
static const size_t message_bytes[] = {(size_t)1 << 20, ((size_t)3 << 20) + 333 * 8};
#define NSIZES (sizeof message_bytes / sizeof message_bytes[0])

/* Exact DAV of a movement-avoiding reduction of `count` pair elements (size 12, extent 16) whose
 * result `readers` members copy out: per slice of n elements one copy in (2 * span), p-1
 * reductions (3 * 12 * n each) and `readers` copies out. */
static uint64_t ma_slices_dav(const shmcoll_reduce_op_t *op, size_t count, int p, size_t chunk,
                              int readers) {
    const size_t line = 64 % op->extent == 0 ? 64 / op->extent : 1;
    const size_t per = ((count + (size_t)p - 1) / (size_t)p + line - 1) / line * line;
    const size_t slice = chunk / op->extent;
    uint64_t dav = 0;
    for (int j = 0; j < p; j++) {
        const size_t lo = (size_t)j * per < count ? (size_t)j * per : count;
        const size_t hi = lo + per < count ? lo + per : count;
        for (size_t first = lo; first < hi; first += slice) {
            const size_t n = hi - first < slice ? hi - first : slice;
            dav += 2 * shmcoll_reduce_op_span(op, n) * (uint64_t)(1 + readers) +
                   3 * n * op->size * (uint64_t)(p - 1);
        }
    }
    return dav;
}

/* Runs one case on this member; returns its DAV growth, or UINT64_MAX after a failure. */
static uint64_t run_case(shmcoll_team_t *team, const dav_case_t *c, size_t bytes, size_t *s,
                         size_t *count_out) {
    const int p = team->size;
    shmcoll_reduce_op_t op;
    if (test_data_op(c->dtype, c->op, &op)) {
        team_harness_log("%s: no kernel", c->name);
        return UINT64_MAX;
    }
    op.commutative = c->commutative;
    size_t count = bytes / op.extent, counts[TEAM_HARNESS_MAX_P], total = count;
    if (c->coll == REDUCE_SCATTER_BLOCK) count /= (size_t)p, total = count * (size_t)p;
    if (c->coll == REDUCE_SCATTER) { /* uneven blocks: block j gets j+1 shares */
        const size_t share = count / ((size_t)p * (size_t)(p + 1) / 2);
        total = 0;
        for (int j = 0; j < p; j++) total += counts[j] = share * (size_t)(j + 1);
    }
    *s = total * op.size;
    *count_out = count;
    double *send = calloc(total, op.extent), *recv = calloc(total, op.extent);
    if (!send || !recv) {
        team_harness_log("%s: out of memory", c->name);
        free(send), free(recv);
        return UINT64_MAX;
    }
    const int root = c->root_last ? p - 1 : 0;
    const uint64_t before = shmcoll_team_dav(team);
    shmcoll_status_t status;
    switch (c->coll) {
    case ALLREDUCE:
        status = shmcoll_allreduce(team, send, recv, count, &op);
        break;
    case REDUCE:
        status = shmcoll_reduce(team, send, recv, count, &op, root);
        break;
    case REDUCE_SCATTER_BLOCK:
        status = shmcoll_reduce_scatter_block(team, send, recv, count, &op);
        break;
    default:
        status = shmcoll_reduce_scatter(team, send, recv, counts, &op);
        break;
    }
    const uint64_t grown = shmcoll_team_dav(team) - before;
    free(send), free(recv);
    if (status != SHMCOLL_OK) {
        team_harness_log("%s: returned %s (%s)", c->name, shmcoll_status_string(status),
                         team->error);
        return UINT64_MAX;
    }
    if (!team->last_algo || strcmp(team->last_algo, c->algo)) {
        team_harness_log("%s (%s): took algorithm %s, expected %s", c->name, op.name,
                         team->last_algo ? team->last_algo : "?", c->algo);
        return UINT64_MAX;
    }
    return grown;
}

static int body(shmcoll_team_t *team, void *arg) {
    const int p = team->size, me = team->rank;
    int failed = 0;
    for (size_t k = 0; k < NSIZES; k++) {
        const size_t bytes = message_bytes[k] / (size_t)team_harness_scale_down();
        uint64_t ma_allreduce = 0, split_allreduce = 0;
        for (size_t i = 0; i < NCASES; i++) {
            const dav_case_t *c = &cases[i];
            size_t s = 0, count = 0;
            uint64_t mine = run_case(team, c, bytes, &s, &count), all[TEAM_HARNESS_MAX_P];
            if (team_harness_allgather(&mine, all, sizeof mine)) return 1;
            if (me != 0) continue;
            uint64_t total = 0;
            int broken = 0;
            for (int r = 0; r < p; r++) {
                broken |= all[r] == UINT64_MAX;
                total += all[r];
            }
            if (broken) {
                failed = 1;
                continue;
            }
            uint64_t want;
            if (c->a) {
                want = (uint64_t)s * (uint64_t)((long)c->a * p + c->b);
            } else {
                shmcoll_reduce_op_t op;
                test_data_op(c->dtype, c->op, &op);
                want = ma_slices_dav(&op, count, p, team->chunk, p);
            }
            const int ok = total == want;
            printf("%3d  %-22s %-14s %-9s %9zu %12llu %12llu  %-8s %7.3f  %s\n", p, c->name,
                   shmcoll_dtype_name(c->dtype), c->algo, s, (unsigned long long)total,
                   (unsigned long long)want, c->formula, (double)total / (double)s,
                   ok ? "ok" : "MISMATCH");
            if (!ok) {
                team_harness_log("%s %s s=%zu: DAV %llu, expected %llu = %s (off by %lld)", c->name,
                                 c->algo, s, (unsigned long long)total, (unsigned long long)want,
                                 c->formula, (long long)(total - want));
                failed = 1;
            }
            if (c->coll == ALLREDUCE && c->dtype == SHMCOLL_DT_DOUBLE)
                *(c->commutative ? &ma_allreduce : &split_allreduce) = total;
        }
        if (me == 0 && p >= 4 && ma_allreduce >= split_allreduce) {
            team_harness_log("movement-avoiding allreduce moved %llu bytes, split %llu: no less",
                             (unsigned long long)ma_allreduce, (unsigned long long)split_allreduce);
            failed = 1;
        }
        fflush(stdout);
    }
    return failed;
}

int main(int argc, char **argv) {
    static const int sizes[] = {2, 3, 4, 5, 8, 16};
    const int n = argc > 1 ? argc - 1 : (int)(sizeof sizes / sizeof *sizes);
    printf("  p  %-22s %-14s %-9s %9s %12s %12s  %-8s %7s\n", "collective", "type", "algorithm",
           "s (bytes)", "DAV", "expected", "formula", "DAV/s");
    fflush(stdout);
    int failed = 0;
    for (int i = 0; i < n; i++) {
        const int p = argc > 1 ? atoi(argv[i + 1]) : sizes[i];
        /* The formulas are those of particular algorithms: ask the selector for them (the split
         * algorithm is the choice for non-commutative ops, which MA cannot serve). */
        static const char *const env[] = {"SHMCOLL_TUNE=allreduce:@ma|split;reduce:@ma|split",
                                          NULL};
        team_harness_spec_t spec = {
            .p = p, .body = body, .timeout_s = 120.0, .env = (const char *const *)env};
        failed |= team_harness_run_spec(&spec) != 0;
    }
    printf("%s\n", failed ? "FAILED" : "ok");
    return failed;
}
