/* Inclusive and exclusive scan over teams of forked processes.
 *
 * Every member can generate every member's input, so member r folds the inputs of members 0..r
 * (scan) or 0..r-1 (exscan) in rank order itself and compares its result element by element; the
 * bytes around the result must stay untouched, the send buffer unchanged, and member 0's receive
 * buffer of an exscan untouched altogether (still its input, in place). Ops: a spread of
 * predefined (type, op) kernels, and two user ops: a non-commutative one (2x2 matrix product,
 * where any order but the canonical one gives a different matrix) and a commutative one. Cases:
 * p in {1,2,3,4,5,7,8,13,16} (plus a cheap p = 31) x counts {0, 1, 7, 16, 1000} (on both sides
 * of the 64-byte inline path) x in place or not x aligned or misaligned buffers; then with 4 KiB
 * chunks (SHMCOLL_CHUNK=4k) counts that need tens to hundreds of rounds. Large counts shrink
 * under sanitizers (team_harness_scale_down). Team sizes may be given on the command line. */
#include "select/team_coll.h"
#include "rop.h"
#include "team_cases.h"
#include "team_harness.h"
#include "test_buffers.h"
#include "test_data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- The environments of the two chunk settings ------------------------------------------ */

static const char *const env_default[] = {"SHMCOLL_TIMEOUT=30", NULL};
static const char *const env_rounds[] = {"SHMCOLL_TIMEOUT=30", "SHMCOLL_CHUNK=4k", NULL};

/* ---- The checks --------------------------------------------------------------------------- */

static int check_scan(shmcoll_team_t *team, const rop_t *r, size_t count, int inclusive,
                      int in_place, size_t misalign, uint64_t seed) {
    const int p = team->size, me = team->rank;
    const int untouched = !inclusive && me == 0; /* exscan's member 0 gets nothing */
    const size_t extent = rop_extent(r), bytes = count * extent;
    char name[80], desc[200];
    rop_name(r, name, sizeof name);
    snprintf(desc, sizeof desc, "%s %s count %zu%s misalign %zu seed %llu",
             inclusive ? "scan" : "exscan", name, count, in_place ? " in-place" : "", misalign,
             (unsigned long long)seed);
    shmcoll_reduce_op_t op;
    if (rop_make(r, &op)) {
        team_cases_fail("%s: no kernel", desc);
        return 1;
    }
    team_cases_image_t recv = {0};
    unsigned char *send = NULL, *copy = NULL, *want = NULL, *before = NULL;
    int failed = team_cases_image_alloc(&recv, bytes, misalign) ||
                 !(want = team_cases_alloc(bytes)) || !(before = malloc(recv.total));
    if (!failed && !in_place) failed = !(send = team_cases_send_alloc(bytes, &copy));
    if (!failed) failed = rop_fill(r, me, p, seed, 0, count, in_place ? recv.data : send);
    if (!failed && !untouched)
        failed = rop_reference(r, p, seed, 0, inclusive ? me : me - 1, 0, count, want);
    if (failed) goto out;
    if (send) memcpy(copy, send, bytes);
    memcpy(before, recv.mem, recv.total);

    const shmcoll_status_t status = inclusive ? shmcoll_scan(team, send, recv.data, count, &op)
                                              : shmcoll_exscan(team, send, recv.data, count, &op);
    failed |= team_cases_status_check(team, status, desc);
    if (untouched) {
        if (memcmp(before, recv.mem, recv.total)) {
            team_cases_fail("%s: member 0's receive buffer was written", desc);
            failed = 1;
        }
    } else {
        failed |= rop_check(r, recv.data, want, count, desc);
        failed |= team_cases_image_guards(&recv, rop_span(r, count), desc);
    }
    failed |= team_cases_send_check(send, copy, bytes, desc);
out:
    team_cases_image_free(&recv);
    test_buffer_free(send), free(copy), test_buffer_free(want), free(before);
    return failed;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const rop_t all_ops[] = {
    ROP_PAIR(INT32, SUM),        ROP_PAIR(DOUBLE, SUM),         ROP_PAIR(FLOAT, MIN),
    ROP_PAIR(UINT8, BXOR),       ROP_PAIR(INT64, PROD),         ROP_PAIR(DOUBLE_INT, MAXLOC),
    ROP_PAIR(SHORT_INT, MINLOC), ROP_PAIR(FLOAT_INT, MINLOC),   ROP_PAIR(LONG_DOUBLE_INT, MAXLOC),
    ROP_PAIR(BOOL, LAND),        ROP_PAIR(DOUBLE_COMPLEX, SUM), ROP_PAIR(LONG_DOUBLE, SUM),
    ROP_PAIR(INT16, LXOR),       ROP_PAIR(UINT32, BOR),         ROP_PAIR(UINT16, MAX),
    ROP_USER(ROP_MAT2),          ROP_USER(ROP_SUMMAX),
};

/* Many-round and large-team cases. */
static const rop_t few_ops[] = {
    ROP_PAIR(DOUBLE, SUM),
    ROP_PAIR(SHORT_INT, MINLOC),
    ROP_USER(ROP_MAT2),
    ROP_USER(ROP_SUMMAX),
};

static int body(shmcoll_team_t *team, void *arg) {
    const team_cases_mode_t *mode = arg;
    const int big_team = team->size > 16;
    const size_t small[] = {0, 1, 7, 16, 1000 / (size_t)team_harness_scale_down()};
    static const size_t cheap[] = {7, 1000};
    /* 4 KiB chunks: 20000 doubles take 40 rounds, 20000 matrices 157. */
    const size_t rounds[] = {1000, 20000 / (size_t)team_harness_scale_down() + 3};
    const size_t *sizes = mode->rounds ? rounds : big_team ? cheap : small;
    const size_t nsizes = mode->rounds || big_team ? 2 : 5;
    const rop_t *ops = mode->rounds || big_team ? few_ops : all_ops;
    const size_t nops = mode->rounds || big_team ? COUNT(few_ops) : COUNT(all_ops);
    uint64_t index = 0;
    for (size_t k = 0; k < nops; k++)
        for (size_t s = 0; s < nsizes; s++)
            for (int variant = 0; variant < 4; variant++) {
                const uint64_t seed = test_data_mix((uint64_t)team->size, index++, 51);
                const int inclusive = !(variant & 1);
                team_cases_set_group(2 * (int)k + !inclusive);
                check_scan(team, &ops[k], sizes[s], inclusive, variant >> 1,
                           seed % 3 ? 0 : rop_align(&ops[k]), seed);
            }
    return team_cases_verdict();
}

int main(int argc, char **argv) {
    if (test_data_check_layouts()) return 1;
    return team_cases_run_sizes(argc, argv, body, env_default, env_rounds, 0);
}
