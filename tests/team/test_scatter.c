/* Scatter and scatterv over teams of forked processes.
 *
 * The root sends member r the byte stream keyed by (seed, root, r), which every member can
 * generate, so each member checks its whole receive buffer, guard zones included, byte for byte,
 * and the root checks that its send buffer came back unchanged. Cases: p in {1,2,3,4,5,7,8,13,16}
 * (plus a cheap p = 31) x byte counts {0, 1, 7, 60, 64, 65, 120, 121, 1000} x every root for p <=
 * 5, else {0, p-1, p/2} x in place at the root (no receive buffer) or not x aligned or misaligned
 * buffers; then the same team sizes again with 4 KiB chunks (SHMCOLL_CHUNK=4k) and counts that need
 * hundreds of pipeline rounds (scatter cuts a chunk into p pieces). scatterv blocks are uneven,
 * some empty, taken from the root's buffer in a non-monotonic order with gaps, or overlapping
 * one another (legal for a send buffer); non-roots pass
 * NULL counts and displacements (read at the root only) and no send buffer. Send buffers are
 * allocated at their exact size, so an over-read shows under AddressSanitizer. Finally the
 * many-round cases once more with single copy from 6 KiB blocks on but 4 KiB chunks, so scatterv
 * cannot skip the agreement step (cma_min above the root's piece of a chunk): the root must
 * report single-copy exactly when the longest block reaches 6 KiB, and the blocks between a piece
 * and 6 KiB, too long for their piece, must arrive intact too. Team sizes may be given on the
 * command line. */
#include "blocks.h"
#include "select/team_coll.h"
#include "coll_check.h"
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

/* The agreed single-copy run: cma_min above a piece, so scatterv agrees on its longest block. */
#define AGREED_CMA_MIN 6144
static const char *const env_agreed[] = {"SHMCOLL_TIMEOUT=30", "SHMCOLL_CHUNK=4k",
                                         "SHMCOLL_CMA=all", "SHMCOLL_CMA_MIN=6k", NULL};
static int agreed_run; /* inherited by the forked members */

/* ---- The checks --------------------------------------------------------------------------- */

static int check_scatter(shmcoll_team_t *team, size_t bytes, int root, int in_place,
                         size_t misalign, uint64_t seed) {
    const int p = team->size, me = team->rank, is_root = me == root;
    const int use_recv = !(is_root && in_place);
    char desc[160];
    snprintf(desc, sizeof desc, "scatter %zu bytes root %d%s misalign %zu seed %llu", bytes, root,
             in_place ? " in-place" : "", misalign, (unsigned long long)seed);
    team_cases_image_t recv = {0}, want = {0};
    unsigned char *send = NULL, *copy = NULL;
    int failed = use_recv && (team_cases_image_alloc(&recv, bytes, misalign) ||
                              team_cases_image_alloc(&want, bytes, misalign));
    if (!failed && is_root) failed = !(send = team_cases_send_alloc((size_t)p * bytes, &copy));
    if (failed) goto out;
    if (is_root) {
        for (int r = 0; r < p; r++) blocks_fill(send + (size_t)r * bytes, bytes, seed, root, r);
        memcpy(copy, send, (size_t)p * bytes);
    }
    if (use_recv) blocks_fill(want.data, bytes, seed, root, me);
    failed |= team_cases_status_check(
        team, shmcoll_scatter(team, send, use_recv ? recv.data : NULL, bytes, root), desc);
    if (use_recv) failed |= team_cases_image_check(&recv, &want, 1, NULL, NULL, bytes, desc);
    failed |= team_cases_send_check(send, copy, (size_t)p * bytes, desc);
out:
    team_cases_image_free(&recv), team_cases_image_free(&want);
    test_buffer_free(send), free(copy);
    return failed;
}

static int check_scatterv(shmcoll_team_t *team, size_t base, int root, int in_place,
                          size_t misalign, uint64_t seed) {
    const int p = team->size, me = team->rank, is_root = me == root;
    const int use_recv = !(is_root && in_place);
    size_t counts[TEAM_HARNESS_MAX_P], displs[TEAM_HARNESS_MAX_P];
    for (int r = 0; r < p; r++) counts[r] = blocks_uneven(base, seed, (uint64_t)r);
    const int overlap = (seed >> 40) % 3 == 0;
    const size_t span = overlap ? blocks_place_overlapping(p, counts, seed, displs)
                                : blocks_place(p, counts, seed, displs);
    char desc[200];
    snprintf(desc, sizeof desc,
             "scatterv %sblocks around %zu bytes (mine %zu) root %d%s misalign %zu seed %llu",
             overlap ? "overlapping " : "", base, counts[me], root, in_place ? " in-place" : "",
             misalign, (unsigned long long)seed);
    team_cases_image_t recv = {0}, want = {0};
    unsigned char *send = NULL, *copy = NULL;
    int failed = use_recv && (team_cases_image_alloc(&recv, counts[me], misalign) ||
                              team_cases_image_alloc(&want, counts[me], misalign));
    if (!failed && is_root) failed = !(send = team_cases_send_alloc(span, &copy));
    if (failed) goto out;
    if (is_root) {
        blocks_fill_slice(send, 0, span, seed, root);
        memcpy(copy, send, span);
    }
    if (use_recv) blocks_fill_slice(want.data, displs[me], counts[me], seed, root);
    /* Counts and displacements are read at the root only: the others pass none. */
    const shmcoll_status_t status =
        shmcoll_scatterv(team, send, is_root ? counts : NULL, is_root ? displs : NULL,
                         use_recv ? recv.data : NULL, counts[me], root);
    failed |= team_cases_status_check(team, status, desc);
    if (agreed_run && is_root && status == SHMCOLL_OK && team->cma != SHMCOLL_CMA_OFF) {
        size_t longest = 0;
        for (int r = 0; r < p; r++)
            if (r != root && counts[r] > longest) longest = counts[r];
        /* a root buffer in its shared heap moves blocks of any length single-copy (coll/heap.h) */
        const int heap = team->heap && test_buffer_in_heap() && longest >= team->heap_min;
        const char *want_algo = longest >= AGREED_CMA_MIN || heap ? "single-copy" : "pipeline";
        if (strcmp(team->last_algo, want_algo)) {
            team_cases_fail("%s: took %s after agreeing on %zu bytes, not %s", desc,
                            team->last_algo, longest, want_algo);
            failed = 1;
        }
    }
    if (use_recv) failed |= team_cases_image_check(&recv, &want, 1, NULL, NULL, counts[me], desc);
    failed |= team_cases_send_check(send, copy, span, desc);
out:
    team_cases_image_free(&recv), team_cases_image_free(&want);
    test_buffer_free(send), free(copy);
    return failed;
}

static int body(shmcoll_team_t *team, void *arg) {
    /* 4 KiB chunks cut into p pieces: the big count takes about 25 * p rounds. */
    return team_cases_rooted_body(team, arg, 31, check_scatter, check_scatterv);
}

int main(int argc, char **argv) {
    team_cases_single_copy_runs();
    int failed = team_cases_run_sizes(argc, argv, body, env_default, env_rounds, 0);
    static const int sizes[] = {2, 3, 4, 5, 8, 13};
    team_cases_mode_t mode = {.rounds = 1};
    const team_harness_spec_t agreed = {
        .body = body, .arg = &mode, .timeout_s = 150, .env = env_agreed};
    printf("scatterv after agreeing (SHMCOLL_CHUNK=4k SHMCOLL_CMA=all SHMCOLL_CMA_MIN=6k):\n");
    fflush(stdout);
    agreed_run = 1;
    failed |= team_harness_for_sizes_spec(argc, argv, sizes, (int)(sizeof sizes / sizeof *sizes),
                                          &agreed) != 0;
    return failed;
}
