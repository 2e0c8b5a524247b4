/* Elements larger than a pipeline chunk: a user op whose one element is 1 MiB (default 256 KiB
 * chunk), and one whose element is 5000 bytes with SHMCOLL_CHUNK=4k. The library may not split
 * an element across chunks for a user function, so it may answer NOT_SUPPORTED — but then on
 * every member, having touched no buffer and left the team usable; or it may answer OK with the
 * right result on every member. A wrong result, a disagreement between members, a modified buffer
 * after NOT_SUPPORTED or a team that no longer works afterwards fails. p in {1,2,3,4}. */
#include "select/team_coll.h"
#include "team_harness.h"
#include "test_data.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define COUNT     2

/* Elementwise int32 sum over elements of any size (the size is in the context). */
static void big_sum(const void *in, void *inout, size_t n, void *ctx) {
    size_t words = n * *(const size_t *)ctx / 4;
    const int32_t *a = in;
    int32_t *b = inout;
    for (size_t i = 0; i < words; i++) b[i] += a[i];
}

static int32_t word_input(int rank, size_t i) {
    return (int32_t)(rank * 7 + (int)(i % 1013));
}

/* One allreduce (root < 0) or reduce with COUNT elements of `elem` bytes. */
static int run_case(shmcoll_team_t *team, size_t elem, int root) {
    static size_t ctx_size;
    ctx_size = elem;
    const shmcoll_reduce_op_t op = {.user_fn = big_sum,
                                    .user_ctx = &ctx_size,
                                    .size = elem,
                                    .extent = elem,
                                    .commutative = 1,
                                    .name = "big-sum"};
    const int p = team->size, me = team->rank;
    const size_t bytes = COUNT * elem, words = bytes / 4;
    const int gets_result = root < 0 || root == me;
    char desc[96];
    snprintf(desc, sizeof desc, "%s of %d elements of %zu bytes%s",
             root < 0 ? "allreduce" : "reduce", COUNT, elem, root < 0 ? "" : " to a root");
    int32_t *send = malloc(bytes), *recv = malloc(bytes);
    if (!send || !recv) return 1;
    for (size_t i = 0; i < words; i++) send[i] = word_input(me, i);
    test_data_poison(recv, bytes);

    shmcoll_status_t status = root < 0 ? shmcoll_allreduce(team, send, recv, COUNT, &op)
                                       : shmcoll_reduce(team, send, recv, COUNT, &op, root);
    int failed = 0;
    int all[TEAM_HARNESS_MAX_P];
    int mine = (int)status;
    if (team_harness_allgather(&mine, all, sizeof mine)) {
        team_harness_log("%s: status exchange failed", desc);
        failed = 1;
    }
    for (int r = 0; r < p && !failed; r++)
        if (all[r] != mine) {
            team_harness_log("%s: this rank got %s, rank %d got %s", desc,
                             shmcoll_status_string(status), r,
                             shmcoll_status_string((shmcoll_status_t)all[r]));
            failed = 1;
        }
    for (size_t i = 0; i < words && !failed; i++)
        if (send[i] != word_input(me, i)) {
            team_harness_log("%s: the send buffer was modified", desc);
            failed = 1;
        }
    if (!failed && me == 0) printf("  %s: %s on every rank\n", desc, shmcoll_status_string(status));
    if (!failed && status == SHMCOLL_ERR_NOT_SUPPORTED) {
        if (test_data_poisoned(recv, bytes) >= 0) {
            team_harness_log("%s: NOT_SUPPORTED, but the receive buffer was written", desc);
            failed = 1;
        }
    } else if (!failed && status != SHMCOLL_OK) {
        team_harness_log("%s: returned %s (%s)", desc, shmcoll_status_string(status), team->error);
        failed = 1;
    } else if (!failed && gets_result) {
        for (size_t i = 0; i < words; i++) {
            int32_t want = 0;
            for (int r = 0; r < p; r++) want += word_input(r, i);
            if (recv[i] != want) {
                team_harness_log("%s: word %zu is %d, expected %d", desc, i, recv[i], want);
                failed = 1;
                break;
            }
        }
    }
    free(send), free(recv);
    return failed;
}

/* The team must still work after a NOT_SUPPORTED: a small allreduce of ranks. */
static int still_usable(shmcoll_team_t *team) {
    const shmcoll_reduce_op_t op = {.kernel =
                                        shmcoll_kernel_reduce(SHMCOLL_DT_INT32, SHMCOLL_OP_SUM),
                                    .size = 4,
                                    .extent = 4,
                                    .commutative = 1,
                                    .name = "MPI_SUM/int32"};
    int32_t in = team->rank + 1, out = 0;
    shmcoll_status_t status = shmcoll_allreduce(team, &in, &out, 1, &op);
    if (status == SHMCOLL_OK && out == team->size * (team->size + 1) / 2) return 0;
    team_harness_log("allreduce after the large-element cases: %s (%s), sum %d",
                     shmcoll_status_string(status), team->error, out);
    return 1;
}

static int body(shmcoll_team_t *team, void *arg) {
    const size_t elem = *(const size_t *)arg;
    int failed = run_case(team, elem, -1);
    failed |= run_case(team, elem, 0);
    failed |= run_case(team, elem, team->size - 1);
    return failed | still_usable(team);
}

int main(int argc, char **argv) {
    static const int sizes[] = {1, 2, 3, 4};
    static const char *const small_chunk[] = {"SHMCOLL_CHUNK=4k", NULL};
    static size_t elems[] = {(size_t)1 << 20, 5000};
    int failures = 0;
    for (size_t e = 0; e < NELEMS(elems); e++)
        for (size_t i = 0; i < NELEMS(sizes); i++) {
            team_harness_spec_t spec = {.p = sizes[i],
                                        .body = body,
                                        .arg = &elems[e],
                                        .timeout_s = 60.0,
                                        .env = e == 1 ? small_chunk : NULL};
            double start = team_harness_now();
            int failed = team_harness_run_spec(&spec);
            printf("test_large_element element %zu bytes%s p=%d: %s (%.2f s)\n", elems[e],
                   e == 1 ? " (4 KiB chunks)" : "", spec.p, failed ? "FAILED" : "ok",
                   team_harness_now() - start);
            failures += failed != 0;
        }
    return failures != 0;
}
