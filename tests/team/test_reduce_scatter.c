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
#include "blocks.h"
#include "select/team_coll.h"
#include "coll_check.h"
#include "rop.h"
#include "team_cases.h"
#include "team_harness.h"
#include "test_buffers.h"
#include "test_data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- The environments of the two chunk settings ------------------------------------------ */

/* The allreduce/reduce cases check the movement-avoiding algorithm's user-function path, so they
 * ask the selector for it; it cannot serve non-commutative ops, which then take the model's
 * choice (split, at these sizes). */
#define FORCE_MA "SHMCOLL_TUNE=allreduce:@ma|split;reduce:@ma|split"
static const char *const env_default[] = {"SHMCOLL_TIMEOUT=30", FORCE_MA, NULL};
static const char *const env_rounds[] = {"SHMCOLL_TIMEOUT=30", "SHMCOLL_CHUNK=4k", FORCE_MA, NULL};

/* ---- The checks --------------------------------------------------------------------------- */

static int check_reduce_scatter(shmcoll_team_t *team, const rop_t *r, size_t base, int block,
                                int in_place, size_t misalign, uint64_t seed) {
    const int p = team->size, me = team->rank;
    size_t counts[TEAM_HARNESS_MAX_P], first = 0, total = 0;
    for (int j = 0; j < p; j++) {
        counts[j] = block ? base : blocks_uneven(base, seed, (uint64_t)j);
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
        team_cases_fail("%s: no kernel", desc);
        return 1;
    }
    team_cases_image_t recv = {0};
    unsigned char *send = NULL, *copy = NULL, *want = malloc(mine ? mine * extent : 1);
    int failed =
        !want || team_cases_image_alloc(&recv, (in_place ? total : mine) * extent, misalign);
    if (!failed && !in_place) failed = !(send = team_cases_send_alloc(total * extent, &copy));
    if (!failed) failed = rop_fill(r, me, p, seed, 0, total, in_place ? recv.data : send);
    if (!failed) failed = rop_reference(r, p, seed, 0, p - 1, first, mine, want);
    if (failed) goto out;
    if (send) memcpy(copy, send, total * extent);

    const shmcoll_status_t status =
        block ? shmcoll_reduce_scatter_block(team, send, recv.data, base, &op)
              : shmcoll_reduce_scatter(team, send, recv.data, counts, &op);
    failed |= team_cases_status_check(team, status, desc);
    failed |= rop_check(r, recv.data, want, mine, desc);
    /* In place, the input beyond the result is the caller's scratch; the guards are not. */
    failed |= team_cases_image_guards(&recv, rop_span(r, in_place ? total : mine), desc);
    failed |= team_cases_send_check(send, copy, total * extent, desc);
out:
    team_cases_image_free(&recv);
    test_buffer_free(send), free(copy), free(want);
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
    team_cases_image_t recv = {0};
    unsigned char *send = NULL, *copy = NULL, *want = malloc(count * extent);
    int failed = !want || (pass_recv && team_cases_image_alloc(&recv, count * extent, 0));
    if (!failed && use_send) failed = !(send = team_cases_send_alloc(count * extent, &copy));
    if (!failed) failed = rop_fill(r, me, p, seed, 0, count, use_send ? send : recv.data);
    if (!failed && gets_result) failed = rop_reference(r, p, seed, 0, p - 1, 0, count, want);
    if (failed) goto out;
    if (send) memcpy(copy, send, count * extent);

    void *rbuf = pass_recv ? recv.data : NULL;
    const shmcoll_status_t status = root < 0 ? shmcoll_allreduce(team, send, rbuf, count, &op)
                                             : shmcoll_reduce(team, send, rbuf, count, &op, root);
    failed |= team_cases_status_check(team, status, desc);
    const char *algo = op.commutative && p > 1 ? "ma" : "split";
    if (status == SHMCOLL_OK && (!team->last_algo || strcmp(team->last_algo, algo))) {
        team_cases_fail("%s: took algorithm %s, expected %s", desc,
                        team->last_algo ? team->last_algo : "?", algo);
        failed = 1;
    }
    if (gets_result) {
        failed |= rop_check(r, recv.data, want, count, desc);
        failed |= team_cases_image_guards(&recv, count * extent, desc);
    } else if (pass_recv && test_data_poisoned(recv.mem, recv.total) >= 0) {
        team_cases_fail("%s: a non-root's receive buffer was written", desc);
        failed = 1;
    }
    failed |= team_cases_send_check(send, copy, count * extent, desc);
out:
    team_cases_image_free(&recv);
    test_buffer_free(send), free(copy), free(want);
    return failed;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const rop_t all_ops[] = {
    ROP_PAIR(INT32, SUM),        ROP_PAIR(DOUBLE, SUM),           ROP_PAIR(FLOAT, MAX),
    ROP_PAIR(UINT8, BXOR),       ROP_PAIR(INT64, PROD),           ROP_PAIR(DOUBLE_INT, MAXLOC),
    ROP_PAIR(SHORT_INT, MINLOC), ROP_PAIR(FLOAT_INT, MAXLOC),     ROP_PAIR(LONG_DOUBLE_INT, MINLOC),
    ROP_PAIR(BOOL, LOR),         ROP_PAIR(DOUBLE_COMPLEX, SUM),   ROP_PAIR(LONG_DOUBLE, SUM),
    ROP_PAIR(INT16, LXOR),       ROP_PAIR(UINT64, BAND),          ROP_PAIR(INT8, MIN),
    ROP_PAIR_NC(INT32, SUM),     ROP_PAIR_NC(DOUBLE_INT, MINLOC), ROP_USER(ROP_MAT2),
    ROP_USER(ROP_SUMMAX),
};

/* Many-round and large-team cases: one op per path. */
static const rop_t few_ops[] = {
    ROP_PAIR(DOUBLE, SUM), ROP_PAIR(SHORT_INT, MINLOC), ROP_PAIR_NC(INT32, SUM),
    ROP_USER(ROP_MAT2),    ROP_USER(ROP_SUMMAX),
};

static int body(shmcoll_team_t *team, void *arg) {
    const team_cases_mode_t *mode = arg;
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
                team_cases_set_group((int)k);
                check_reduce_scatter(team, &ops[k], sizes[s], variant & 1, variant >> 1,
                                     seed % 3 ? 0 : rop_align(&ops[k]), seed);
            }

    /* A chunk and a bit (several rounds with 4 KiB chunks): never the flat algorithm. */
    const rop_t user_ops[] = {ROP_USER(ROP_SUMMAX), ROP_USER(ROP_MAT2)};
    int roots[TEAM_HARNESS_MAX_P];
    const int nroots = coll_check_roots(team->size, roots);
    for (size_t k = 0; k < COUNT(user_ops); k++) {
        team_cases_set_group(32 + (int)k);
        const size_t count = (mode->rounds ? 20 : 1) * team->chunk / rop_extent(&user_ops[k]) + 77;
        for (int in_place = 0; in_place < 2; in_place++)
            check_user_reduce(team, &user_ops[k], count, -1, in_place,
                              test_data_mix((uint64_t)team->size, index++, 42));
        for (int i = 0; i < nroots; i++)
            check_user_reduce(team, &user_ops[k], count, roots[i], i & 1,
                              test_data_mix((uint64_t)team->size, index++, 43));
    }
    return team_cases_verdict();
}

int main(int argc, char **argv) {
    if (test_data_check_layouts()) return 1;
    return team_cases_run_sizes(argc, argv, body, env_default, env_rounds, 0);
}
