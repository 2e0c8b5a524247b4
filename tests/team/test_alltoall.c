/* Alltoall and alltoallv over teams of forked processes, then a long mixed sequence of every
 * collective.
 *
 * Every member can generate every block (a byte stream keyed by seed, source and destination), so
 * each member builds the exact image its whole receive buffer must have afterwards, guard zones
 * and the gaps between alltoallv blocks included (poison that must stay untouched), and compares
 * it byte for byte. Cases: p in {1,2,3,4,5,7,8,13,16} (plus a cheap p = 31) x block sizes
 * blocks_sizes gives (blocks.h) x in place or not x aligned or misaligned buffers; then with 4 KiB
 * chunks (SHMCOLL_CHUNK=4k) sizes that need up to ~80 rounds (alltoall cuts a chunk into p pieces).
 * alltoallv counts differ per pair, some empty, and both sides place their blocks in a
 * non-monotonic order with gaps, or the senders let their blocks overlap (legal for send
 * buffers); in place the counts are symmetric, as MPI requires.
 *
 * The mixed sequence runs hundreds of collectives of every kind back to back, with sizes from
 * empty to many chunks, changing roots and in-place use, each checked, to catch a member that
 * races into the next collective while slower ones still read the previous one's slots (barrier
 * included: members publish their arrival through the harness's shared memory and check, on the
 * way out, that everyone arrived). Team sizes may be given on the command line. */
#include "blocks.h"
#include "select/team_coll.h"
#include "coll_check.h"
#include "team_cases.h"
#include "team_harness.h"
#include "test_buffers.h"
#include "test_data.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- The environments of the two chunk settings ------------------------------------------ */

static const char *const env_default[] = {"SHMCOLL_TIMEOUT=30", NULL};
static const char *const env_rounds[] = {"SHMCOLL_TIMEOUT=30", "SHMCOLL_CHUNK=4k", NULL};

/* Harness shared memory for the mixed sequence's barrier check (one cache line per member). */
#define SHARED_BYTES (64 * TEAM_HARNESS_MAX_P)

/* ---- Alltoall and alltoallv --------------------------------------------------------------- */

static int check_alltoall(shmcoll_team_t *team, size_t bytes, int in_place, size_t misalign,
                          uint64_t seed) {
    const int p = team->size, me = team->rank;
    const size_t total = (size_t)p * bytes;
    char desc[160];
    snprintf(desc, sizeof desc, "alltoall %zu bytes%s misalign %zu seed %llu", bytes,
             in_place ? " in-place" : "", misalign, (unsigned long long)seed);
    team_cases_image_t recv = {0}, want = {0};
    unsigned char *send = NULL, *copy = NULL;
    int failed = team_cases_image_alloc(&recv, total, misalign) ||
                 team_cases_image_alloc(&want, total, misalign);
    if (!failed && !in_place) failed = !(send = team_cases_send_alloc(total, &copy));
    if (failed) goto out;
    for (int r = 0; r < p; r++) {
        blocks_fill(want.data + (size_t)r * bytes, bytes, seed, r, me);
        blocks_fill((in_place ? recv.data : send) + (size_t)r * bytes, bytes, seed, me, r);
    }
    if (send) memcpy(copy, send, total);
    failed |= team_cases_status_check(team, shmcoll_alltoall(team, send, recv.data, bytes), desc);
    failed |= team_cases_image_check(&recv, &want, p, NULL, NULL, bytes, desc);
    failed |= team_cases_send_check(send, copy, total, desc);
out:
    team_cases_image_free(&recv), team_cases_image_free(&want);
    test_buffer_free(send), free(copy);
    return failed;
}

/* Bytes from q to r: uneven around base; symmetric when the exchange is in place. */
static size_t pair_count(size_t base, uint64_t seed, int q, int r, int symmetric) {
    if (symmetric && q > r) return pair_count(base, seed, r, q, 0);
    return blocks_uneven(base, seed, (uint64_t)q * TEAM_HARNESS_MAX_P + (uint64_t)r);
}

/* Member q's send counts and displacements (a third of the layouts overlap); returns the bytes
 * its send buffer spans. Every member can work out every member's layout. */
static size_t send_layout(size_t base, uint64_t seed, int q, int p, size_t *counts,
                          size_t *displs) {
    for (int r = 0; r < p; r++) counts[r] = pair_count(base, seed, q, r, 0);
    const uint64_t lseed = test_data_mix(seed, (uint64_t)q, 1);
    return (lseed >> 40) % 3 == 0 ? blocks_place_overlapping(p, counts, lseed, displs)
                                  : blocks_place(p, counts, lseed, displs);
}

static int check_alltoallv(shmcoll_team_t *team, size_t base, int in_place, size_t misalign,
                           uint64_t seed) {
    const int p = team->size, me = team->rank;
    size_t scounts[TEAM_HARNESS_MAX_P], sdispls[TEAM_HARNESS_MAX_P];
    size_t rcounts[TEAM_HARNESS_MAX_P], rdispls[TEAM_HARNESS_MAX_P];
    size_t qcounts[TEAM_HARNESS_MAX_P], qdispls[TEAM_HARNESS_MAX_P];
    for (int r = 0; r < p; r++) rcounts[r] = pair_count(base, seed, r, me, in_place);
    const size_t sspan = send_layout(base, seed, me, p, scounts, sdispls);
    const size_t rspan = blocks_place(p, rcounts, test_data_mix(seed, (uint64_t)me, 2), rdispls);
    char desc[200];
    snprintf(desc, sizeof desc, "alltoallv blocks around %zu bytes%s misalign %zu seed %llu", base,
             in_place ? " in-place" : "", misalign, (unsigned long long)seed);
    team_cases_image_t recv = {0}, want = {0};
    unsigned char *send = NULL, *copy = NULL;
    int failed = team_cases_image_alloc(&recv, rspan, misalign) ||
                 team_cases_image_alloc(&want, rspan, misalign);
    if (!failed && !in_place) failed = !(send = team_cases_send_alloc(sspan, &copy));
    if (failed) goto out;
    for (int r = 0; r < p; r++) {
        if (in_place) { /* the block for r sits where r's block will arrive */
            blocks_fill(want.data + rdispls[r], rcounts[r], seed, r, me);
            blocks_fill(recv.data + rdispls[r], rcounts[r], seed, me, r);
        } else { /* r's block for me lies at r's send displacement for me */
            send_layout(base, seed, r, p, qcounts, qdispls);
            blocks_fill_slice(want.data + rdispls[r], qdispls[me], rcounts[r], seed, r);
        }
    }
    if (send) {
        blocks_fill_slice(send, 0, sspan, seed, me);
        memcpy(copy, send, sspan);
    }
    /* In place the send counts and displacements are not read: pass none. */
    failed |= team_cases_status_check(team,
                                      shmcoll_alltoallv(team, send, send ? scounts : NULL,
                                                        send ? sdispls : NULL, recv.data, rcounts,
                                                        rdispls),
                                      desc);
    failed |= team_cases_image_check(&recv, &want, p, rcounts, rdispls, 0, desc);
    failed |= team_cases_send_check(send, copy, sspan, desc);
out:
    team_cases_image_free(&recv), team_cases_image_free(&want);
    test_buffer_free(send), free(copy);
    return failed;
}

/* ---- The mixed sequence: compact checks of the other collectives -------------------------- */

enum kind {
    K_ALLTOALL,
    K_ALLTOALLV,
    K_ALLGATHER,
    K_ALLGATHERV,
    K_GATHER,
    K_GATHERV,
    K_SCATTER,
    K_SCATTERV,
    K_REDUCE_SCATTER_BLOCK,
    K_SCAN,
    K_EXSCAN,
    K_ALLREDUCE,
    K_REDUCE,
    K_BCAST,
    K_BARRIER,
    K_COUNT
};

/* allgather(v) and gather(v): member r's block lands at displs[r] of every receiver. */
static int mixed_gather(shmcoll_team_t *team, enum kind kind, size_t base, int root, int in_place,
                        uint64_t seed) {
    const int p = team->size, me = team->rank;
    const int v = kind == K_ALLGATHERV || kind == K_GATHERV;
    const int receives = kind == K_ALLGATHER || kind == K_ALLGATHERV || me == root;
    const int mine_in_place = in_place && receives;
    size_t counts[TEAM_HARNESS_MAX_P], displs[TEAM_HARNESS_MAX_P], span = (size_t)p * base;
    for (int r = 0; r < p; r++) {
        counts[r] = v ? blocks_uneven(base, seed, (uint64_t)r) : base;
        displs[r] = (size_t)r * base;
    }
    if (v) span = blocks_place(p, counts, seed, displs);
    static const char *const names[] = {[K_ALLGATHER] = "allgather",
                                        [K_ALLGATHERV] = "allgatherv",
                                        [K_GATHER] = "gather",
                                        [K_GATHERV] = "gatherv"};
    char desc[160];
    snprintf(desc, sizeof desc, "mixed: %s around %zu bytes root %d%s seed %llu", names[kind], base,
             root, in_place ? " in-place" : "", (unsigned long long)seed);
    team_cases_image_t recv = {0}, want = {0};
    unsigned char *send = NULL, *copy = NULL;
    int failed = receives &&
                 (team_cases_image_alloc(&recv, span, 0) || team_cases_image_alloc(&want, span, 0));
    if (!failed && !mine_in_place) failed = !(send = team_cases_send_alloc(counts[me], &copy));
    if (failed) goto out;
    if (receives)
        for (int r = 0; r < p; r++) blocks_fill(want.data + displs[r], counts[r], seed, r, 0);
    if (send) {
        blocks_fill(send, counts[me], seed, me, 0);
        memcpy(copy, send, counts[me]);
    } else {
        memcpy(recv.data + displs[me], want.data + displs[me], counts[me]);
    }
    unsigned char *rbuf = receives ? recv.data : NULL;
    shmcoll_status_t status;
    switch (kind) {
    case K_ALLGATHER:
        status = shmcoll_allgather(team, send, rbuf, base);
        break;
    case K_ALLGATHERV:
        status = shmcoll_allgatherv(team, send, rbuf, counts, displs);
        break;
    case K_GATHER:
        status = shmcoll_gather(team, send, rbuf, base, root);
        break;
    default:
        status = shmcoll_gatherv(team, send, counts[me], rbuf, receives ? counts : NULL,
                                 receives ? displs : NULL, root);
        break;
    }
    failed |= team_cases_status_check(team, status, desc);
    if (receives) failed |= team_cases_image_check(&recv, &want, p, counts, displs, 0, desc);
    failed |= team_cases_send_check(send, copy, counts[me], desc);
out:
    team_cases_image_free(&recv), team_cases_image_free(&want);
    test_buffer_free(send), free(copy);
    return failed;
}

/* scatter(v): the root's block for r (at displs[r] of its send buffer) lands at member r. */
static int mixed_scatter(shmcoll_team_t *team, enum kind kind, size_t base, int root, int in_place,
                         uint64_t seed) {
    const int p = team->size, me = team->rank, is_root = me == root;
    const int v = kind == K_SCATTERV, receives = !(is_root && in_place);
    size_t counts[TEAM_HARNESS_MAX_P], displs[TEAM_HARNESS_MAX_P], span = (size_t)p * base;
    for (int r = 0; r < p; r++) {
        counts[r] = v ? blocks_uneven(base, seed, (uint64_t)r) : base;
        displs[r] = (size_t)r * base;
    }
    if (v) span = blocks_place(p, counts, seed, displs);
    char desc[160];
    snprintf(desc, sizeof desc, "mixed: %s around %zu bytes root %d%s seed %llu",
             v ? "scatterv" : "scatter", base, root, in_place ? " in-place" : "",
             (unsigned long long)seed);
    team_cases_image_t recv = {0}, want = {0};
    unsigned char *send = NULL, *copy = NULL;
    int failed = receives && (team_cases_image_alloc(&recv, counts[me], 0) ||
                              team_cases_image_alloc(&want, counts[me], 0));
    if (!failed && is_root) failed = !(send = team_cases_send_alloc(span, &copy));
    if (failed) goto out;
    if (send) {
        test_data_poison(send, span);
        for (int r = 0; r < p; r++) blocks_fill(send + displs[r], counts[r], seed, root, r);
        memcpy(copy, send, span);
    }
    if (receives) blocks_fill(want.data, counts[me], seed, root, me);
    unsigned char *rbuf = receives ? recv.data : NULL;
    const shmcoll_status_t status =
        v ? shmcoll_scatterv(team, send, is_root ? counts : NULL, is_root ? displs : NULL, rbuf,
                             counts[me], root)
          : shmcoll_scatter(team, send, rbuf, base, root);
    failed |= team_cases_status_check(team, status, desc);
    if (receives) failed |= team_cases_image_check(&recv, &want, 1, NULL, NULL, counts[me], desc);
    failed |= team_cases_send_check(send, copy, span, desc);
out:
    team_cases_image_free(&recv), team_cases_image_free(&want);
    test_buffer_free(send), free(copy);
    return failed;
}

/* reduce_scatter_block, scan and exscan of int64 sums. */
static int mixed_reduction(shmcoll_team_t *team, enum kind kind, size_t count, int in_place,
                           uint64_t seed) {
    const int p = team->size, me = team->rank;
    const int rsb = kind == K_REDUCE_SCATTER_BLOCK, untouched = kind == K_EXSCAN && me == 0;
    const size_t n_in = rsb ? (size_t)p * count : count, first = rsb ? (size_t)me * count : 0;
    const int hi = rsb ? p - 1 : kind == K_SCAN ? me : me - 1;
    const size_t n_out = in_place ? n_in : count;
    char desc[160];
    snprintf(desc, sizeof desc, "mixed: %s sum/int64 count %zu%s seed %llu",
             rsb              ? "reduce_scatter_block"
             : kind == K_SCAN ? "scan"
                              : "exscan",
             count, in_place ? " in-place" : "", (unsigned long long)seed);
    shmcoll_reduce_op_t op;
    test_data_op(SHMCOLL_DT_INT64, SHMCOLL_OP_SUM, &op);
    team_cases_image_t recv = {0};
    int64_t *send = NULL, *want = calloc(count + 1, sizeof *want), *tmp = NULL;
    unsigned char *before = NULL;
    int failed = !want || team_cases_image_alloc(&recv, n_out * 8, 0) ||
                 !(before = malloc(recv.total)) || !(tmp = malloc((n_in + 1) * 8));
    if (!failed && !in_place) failed = !(send = malloc(n_in * 8 + 1));
    if (failed) goto out;
    test_data_fill(SHMCOLL_DT_INT64, SHMCOLL_OP_SUM, me, p, seed,
                   in_place ? (void *)recv.data : send, n_in);
    for (int q = 0; q <= hi; q++) {
        test_data_fill(SHMCOLL_DT_INT64, SHMCOLL_OP_SUM, q, p, seed, tmp, n_in);
        for (size_t i = 0; i < count; i++) want[i] += tmp[first + i];
    }
    if (send) memcpy(tmp, send, n_in * 8);
    memcpy(before, recv.mem, recv.total);
    shmcoll_status_t status = rsb ? shmcoll_reduce_scatter_block(team, send, recv.data, count, &op)
                              : kind == K_SCAN ? shmcoll_scan(team, send, recv.data, count, &op)
                                               : shmcoll_exscan(team, send, recv.data, count, &op);
    failed |= team_cases_status_check(team, status, desc);
    if (untouched) {
        if (memcmp(before, recv.mem, recv.total)) {
            team_cases_fail("%s: member 0's receive buffer was written", desc);
            failed = 1;
        }
    } else {
        if (memcmp(recv.data, want, count * 8)) {
            team_cases_fail("%s: wrong result", desc);
            failed = 1;
        }
        /* In place, the input beyond the result is the caller's scratch; the guards are not. */
        const size_t before_len = (size_t)(recv.data - recv.mem);
        if (test_data_poisoned(recv.mem, before_len) >= 0 ||
            test_data_poisoned(recv.data + n_out * 8, recv.total - before_len - n_out * 8) >= 0) {
            team_cases_fail("%s: a guard byte was overwritten", desc);
            failed = 1;
        }
    }
    if (send && memcmp(tmp, send, n_in * 8)) {
        team_cases_fail("%s: the send buffer was modified", desc);
        failed = 1;
    }
out:
    team_cases_image_free(&recv);
    free(send), free(want), free(tmp), free(before);
    return failed;
}

/* A barrier nobody may leave before everyone arrived: each member publishes its arrival count in
 * the harness's shared memory (not through the code under test) and checks the others' on the
 * way out. One member, chosen by the seed, arrives late. */
static int mixed_barrier(shmcoll_team_t *team, uint64_t number, uint64_t seed) {
    _Atomic uint64_t *arrived = team_harness_shared();
    const int p = team->size, me = team->rank, stride = 64 / sizeof *arrived;
    if ((int)(seed % (uint64_t)p) == me) usleep(200);
    atomic_store_explicit(&arrived[me * stride], number, memory_order_release);
    const shmcoll_status_t status = shmcoll_barrier(team);
    int failed = team_cases_status_check(team, status, "mixed: barrier");
    for (int r = 0; r < p && status == SHMCOLL_OK; r++)
        if (atomic_load_explicit(&arrived[r * stride], memory_order_acquire) < number) {
            team_cases_fail("mixed: barrier %llu: left before rank %d arrived",
                            (unsigned long long)number, r);
            failed = 1;
            break;
        }
    return failed;
}

static void mixed_sequence(shmcoll_team_t *team, int calls) {
    static const size_t sizes[] = {0, 1, 8, 63, 64, 65, 300, 1000, 4100, 20000};
    const int p = team->size;
    uint64_t barriers = 0;
    for (int i = 0; i < calls; i++) {
        const uint64_t h = test_data_mix((uint64_t)p, (uint64_t)i, 61);
        const enum kind kind = (enum kind)(h % K_COUNT);
        const size_t bytes = sizes[(h >> 8) % (sizeof sizes / sizeof *sizes)];
        const int root = (int)((h >> 16) % (uint64_t)p), in_place = (h >> 24) & 1;
        const uint64_t seed = h >> 28;
        coll_case_t c = {.dtype = SHMCOLL_DT_INT64,
                         .op = SHMCOLL_OP_SUM,
                         .count = bytes / 8,
                         .root = root,
                         .in_place = in_place,
                         .seed = seed};
        team_cases_set_group(2 + kind);
        switch (kind) {
        case K_ALLTOALL:
            check_alltoall(team, bytes / 8, in_place, 0, seed);
            break;
        case K_ALLTOALLV:
            check_alltoallv(team, bytes / 8, in_place, 0, seed);
            break;
        case K_ALLGATHER:
        case K_ALLGATHERV:
        case K_GATHER:
        case K_GATHERV:
            mixed_gather(team, kind, bytes / 4, root, in_place, seed);
            break;
        case K_SCATTER:
        case K_SCATTERV:
            mixed_scatter(team, kind, bytes / 4, root, in_place, seed);
            break;
        case K_REDUCE_SCATTER_BLOCK:
            mixed_reduction(team, kind, bytes / 8 / (size_t)p, in_place, seed);
            break;
        case K_SCAN:
        case K_EXSCAN:
            mixed_reduction(team, kind, bytes / 8, in_place, seed);
            break;
        case K_ALLREDUCE:
            if (coll_check_allreduce(team, &c))
                team_cases_fail("mixed: allreduce failed (see above)");
            break;
        case K_REDUCE:
            if (coll_check_reduce(team, &c)) team_cases_fail("mixed: reduce failed (see above)");
            break;
        case K_BCAST:
            c.count = bytes;
            if (coll_check_bcast(team, &c)) team_cases_fail("mixed: bcast failed (see above)");
            break;
        default:
            mixed_barrier(team, ++barriers, seed);
            break;
        }
    }
}

static int body(shmcoll_team_t *team, void *arg) {
    const team_cases_mode_t *mode = arg;
    /* 4 KiB chunks cut into p pieces: the big size takes about 5 * p rounds. */
    size_t sizes[BLOCKS_SIZES_MAX];
    const size_t nsizes = blocks_sizes(mode->rounds, team->size,
                                       20000 / (size_t)team_harness_scale_down() + 3, sizes);
    uint64_t index = 0;
    for (size_t k = 0; k < nsizes; k++)
        for (int variant = 0; variant < 4; variant++) {
            const uint64_t seed = test_data_mix((uint64_t)team->size, index++, 71);
            const int in_place = variant & 1;
            team_cases_set_group(variant >> 1);
            if (variant >> 1)
                check_alltoallv(team, sizes[k], in_place, seed % 3 ? 0 : 1 + seed % 7, seed);
            else
                check_alltoall(team, sizes[k], in_place, seed % 2 ? 1 + seed % 7 : 0, seed);
        }
    const int calls = team->size > 16 ? 60 : 400 / team_harness_scale_down();
    mixed_sequence(team, calls);
    return team_cases_verdict();
}

int main(int argc, char **argv) {
    team_cases_single_copy_runs();
    return team_cases_run_sizes(argc, argv, body, env_default, env_rounds, SHARED_BYTES);
}
