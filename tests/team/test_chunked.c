/* The pipelines with small chunks: SHMCOLL_CHUNK=4k is set in every member before the team is
 * created, so a few tens of kilobytes already take many chunks and every chunk boundary case
 * (chunk not a multiple of the element extent, parts smaller than a cache line, the last partial
 * chunk) is exercised cheaply. SHMCOLL_NT=always makes every copy-out stream, as the policy would
 * only beyond the cache, so the streaming kernels meet the same boundaries; an injected machine
 * whose cores have 1 KiB of their own cache sends every other copy of a working set above 4 KiB
 * through the memory loop. p in {1,2,3,4,7,16}.
 *
 * Allreduce and reduce (rotating roots) of several (type, op) pairs at counts of 1 to ~13 chunks,
 * in-place and not; a user op with 12-byte elements (4096 is no multiple of 12, so elements
 * straddle a byte-wise chunk boundary unless the algorithm cuts by elements); broadcasts of odd
 * sizes. The test first checks that the chunk size really is 4 KiB. Team sizes may be given on
 * the command line. */
#include "select/team_coll.h"
#include "coll_check.h"
#include "team_harness.h"
#include "test_data.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

static const coll_pair_t pairs[] = {
    {SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM},
    {SHMCOLL_DT_INT32, SHMCOLL_OP_SUM},
    {SHMCOLL_DT_UINT8, SHMCOLL_OP_BXOR},
    {SHMCOLL_DT_DOUBLE_INT, SHMCOLL_OP_MINLOC},
    {SHMCOLL_DT_SHORT_INT, SHMCOLL_OP_MAXLOC},
    {SHMCOLL_DT_LONG_DOUBLE_COMPLEX, SHMCOLL_OP_SUM},
    {SHMCOLL_DT_LONG_DOUBLE_INT, SHMCOLL_OP_MAXLOC},
};

typedef struct int3 {
    int32_t v[3];
} int3_t;

static void int3_sum(const void *in, void *inout, size_t n, void *ctx) {
    const int3_t *a = in;
    int3_t *b = inout;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) b[i].v[k] += a[i].v[k];
}

static int32_t int3_input(int rank, size_t i, int k) {
    return (int32_t)(test_data_mix(77, (uint64_t)rank, 3 * i + (size_t)k) % 1000);
}

/* Allreduce of n 12-byte user elements; 0 when correct. */
static int user_case(shmcoll_team_t *team, size_t n, int in_place) {
    const shmcoll_reduce_op_t op = {
        .user_fn = int3_sum, .size = 12, .extent = 12, .commutative = 1, .name = "int3-sum"};
    int3_t *send = malloc(n * sizeof *send), *recv = malloc(n * sizeof *recv);
    int failed = !send || !recv;
    for (size_t i = 0; i < n && !failed; i++)
        for (int k = 0; k < 3; k++) (in_place ? recv : send)[i].v[k] = int3_input(team->rank, i, k);
    shmcoll_status_t status = failed
                                  ? SHMCOLL_ERR_NO_MEMORY
                                  : shmcoll_allreduce(team, in_place ? NULL : send, recv, n, &op);
    if (status != SHMCOLL_OK) {
        team_harness_log("allreduce int3-sum count %zu: returned %s (%s)", n,
                         shmcoll_status_string(status), team->error);
        failed = 1;
    }
    for (size_t i = 0; i < n && !failed; i++)
        for (int k = 0; k < 3 && !failed; k++) {
            int32_t want = 0;
            for (int r = 0; r < team->size; r++) want += int3_input(r, i, k);
            if (recv[i].v[k] != want) {
                team_harness_log("allreduce int3-sum count %zu%s: element %zu[%d] is %d, expected "
                                 "%d",
                                 n, in_place ? " in-place" : "", i, k, recv[i].v[k], want);
                failed = 1;
            }
        }
    free(send), free(recv);
    return failed;
}

static int body(shmcoll_team_t *team, void *arg) {
    if (team_harness_check_chunk(team, 4096)) return 1;
    int failed = 0;
    uint64_t index = 0;
    const int p = team->size;
    for (size_t k = 0; k < NELEMS(pairs); k++) {
        const size_t extent = shmcoll_dtype_extent(pairs[k].dtype);
        /* Just under, at and over one chunk, and ~13 chunks with a partial last one. */
        const size_t counts[] = {4096 / extent - 1, 4096 / extent, 4096 / extent + 1,
                                 13 * 4096 / extent + 5};
        for (size_t n = 0; n < NELEMS(counts); n++)
            for (int in_place = 0; in_place < 2; in_place++) {
                coll_case_t c = {.dtype = pairs[k].dtype,
                                 .op = pairs[k].op,
                                 .count = counts[n],
                                 .root = (int)(index % (uint64_t)p),
                                 .in_place = in_place,
                                 .misalign = (int)(index & 1),
                                 .seed = test_data_mix((uint64_t)p, index, 7)};
                index++;
                failed |= coll_check_allreduce(team, &c);
                failed |= coll_check_reduce(team, &c);
                team_harness_log_quiet(failed);
            }
    }
    const size_t user_counts[] = {341, 342, 343, 5000};
    for (size_t n = 0; n < NELEMS(user_counts); n++)
        for (int in_place = 0; in_place < 2; in_place++) {
            failed |= user_case(team, user_counts[n], in_place);
            team_harness_log_quiet(failed);
        }
    const size_t bytes[] = {4095, 4096, 4097, 8193, 100001};
    for (size_t n = 0; n < NELEMS(bytes); n++) {
        coll_case_t c = {.count = bytes[n],
                         .root = (int)(n % (size_t)p),
                         .misalign = (int)(n & 1),
                         .seed = test_data_mix((uint64_t)p, index++, 8)};
        failed |= coll_check_bcast(team, &c);
        team_harness_log_quiet(failed);
    }
    team_harness_log_quiet(0);
    coll_check_print_algorithms(team, "allreduce+reduce+bcast");
    return failed;
}

int main(int argc, char **argv) {
    static const int sizes[] = {1, 2, 3, 4, 7, 16};
    static const char *const env[] = {
        "SHMCOLL_CHUNK=4k", "SHMCOLL_NT=always",
        "SHMCOLL_TOPO=pack:1 l3:1(size=64KiB) l2:2(size=1KiB) core:1 pu:1", NULL};
    const team_harness_spec_t spec = {.body = body, .timeout_s = 120.0, .env = env};
    return team_harness_for_sizes_spec(argc, argv, sizes, (int)NELEMS(sizes), &spec) != 0;
}
