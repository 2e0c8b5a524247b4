/* Gather and gatherv over teams of forked processes.
 *
 * Every member can generate every member's block (a byte stream keyed by seed and source rank), so
 * the root builds the exact image its whole receive buffer must have afterwards, guard zones and
 * the gaps between gatherv blocks included (poison that must stay untouched), and compares it byte
 * for byte; a non-root passes either no receive buffer or a poisoned one that must stay untouched.
 * Cases: p in {1,2,3,4,5,7,8,13,16} (plus a cheap p = 31) x byte counts {0, 1, 7, 60, 64, 65, 120,
 * 121, 1000} x every root for p <= 5, else {0, p-1, p/2} x in place at the root or not x aligned or
 * misaligned buffers; then the same team sizes again with 4 KiB chunks (SHMCOLL_CHUNK=4k) and
 * counts that need many pipeline rounds. gatherv blocks are uneven, some empty (the root's own
 * too), placed in a non-monotonic order with gaps; non-roots pass NULL counts and displacements
 * (read at the root only). Send buffers are allocated at their exact size, so an over-read shows
 * under AddressSanitizer, and must come back unchanged. Finally the many-round cases once more with
 * single copy from 6 KiB blocks on but 4 KiB chunks, so gatherv cannot skip the agreement step:
 * the root must report single-copy exactly when the longest block reaches 6 KiB, and the blocks
 * between a chunk and 6 KiB, too long for a slot, must arrive intact too. Team sizes may be given
 * on the command line. */
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

/* The agreed single-copy run: cma_min above the chunk, so gatherv agrees on its longest block. */
#define AGREED_CMA_MIN 6144
static const char *const env_agreed[] = {"SHMCOLL_TIMEOUT=30", "SHMCOLL_CHUNK=4k",
                                         "SHMCOLL_CMA=all", "SHMCOLL_CMA_MIN=6k", NULL};
static int agreed_run; /* inherited by the forked members */

/* ---- The checks --------------------------------------------------------------------------- */

/* A non-root passes no receive buffer (even seeds) or a poisoned one that must stay so. */
static int passes_recv(int is_root, uint64_t seed) {
    return is_root || (seed >> 3) & 1;
}

static int check_gather(shmcoll_team_t *team, size_t bytes, int root, int in_place, size_t misalign,
                        uint64_t seed) {
    const int p = team->size, me = team->rank, is_root = me == root;
    const int pass_recv = passes_recv(is_root, seed), use_send = !(is_root && in_place);
    char desc[160];
    snprintf(desc, sizeof desc, "gather %zu bytes root %d%s misalign %zu seed %llu", bytes, root,
             in_place ? " in-place" : "", misalign, (unsigned long long)seed);
    team_cases_image_t recv = {0}, want = {0};
    unsigned char *send = NULL, *copy = NULL;
    int failed = pass_recv && (team_cases_image_alloc(&recv, (size_t)p * bytes, misalign) ||
                               team_cases_image_alloc(&want, (size_t)p * bytes, misalign));
    if (!failed && use_send) failed = !(send = team_cases_send_alloc(bytes, &copy));
    if (failed) goto out;
    if (is_root)
        for (int r = 0; r < p; r++) blocks_fill(want.data + (size_t)r * bytes, bytes, seed, r, 0);
    if (use_send) {
        blocks_fill(send, bytes, seed, me, 0);
        memcpy(copy, send, bytes);
    } else {
        memcpy(recv.data + (size_t)me * bytes, want.data + (size_t)me * bytes, bytes);
    }
    failed |= team_cases_status_check(
        team, shmcoll_gather(team, send, pass_recv ? recv.data : NULL, bytes, root), desc);
    if (pass_recv) failed |= team_cases_image_check(&recv, &want, p, NULL, NULL, bytes, desc);
    failed |= team_cases_send_check(send, copy, bytes, desc);
out:
    team_cases_image_free(&recv), team_cases_image_free(&want);
    test_buffer_free(send), free(copy);
    return failed;
}

static int check_gatherv(shmcoll_team_t *team, size_t base, int root, int in_place, size_t misalign,
                         uint64_t seed) {
    const int p = team->size, me = team->rank, is_root = me == root;
    const int pass_recv = passes_recv(is_root, seed), use_send = !(is_root && in_place);
    size_t counts[TEAM_HARNESS_MAX_P], displs[TEAM_HARNESS_MAX_P];
    for (int r = 0; r < p; r++) counts[r] = blocks_uneven(base, seed, (uint64_t)r);
    const size_t span = blocks_place(p, counts, seed, displs);
    char desc[200];
    snprintf(desc, sizeof desc,
             "gatherv blocks around %zu bytes (mine %zu) root %d%s misalign %zu "
             "seed %llu",
             base, counts[me], root, in_place ? " in-place" : "", misalign,
             (unsigned long long)seed);
    team_cases_image_t recv = {0}, want = {0};
    unsigned char *send = NULL, *copy = NULL;
    int failed = pass_recv && (team_cases_image_alloc(&recv, is_root ? span : 100, misalign) ||
                               team_cases_image_alloc(&want, is_root ? span : 100, misalign));
    if (!failed && use_send) failed = !(send = team_cases_send_alloc(counts[me], &copy));
    if (failed) goto out;
    if (is_root)
        for (int r = 0; r < p; r++) blocks_fill(want.data + displs[r], counts[r], seed, r, 0);
    if (use_send) {
        blocks_fill(send, counts[me], seed, me, 0);
        memcpy(copy, send, counts[me]);
    } else {
        memcpy(recv.data + displs[me], want.data + displs[me], counts[me]);
    }
    /* Counts and displacements are read at the root only: the others pass none. */
    const shmcoll_status_t status =
        shmcoll_gatherv(team, send, counts[me], pass_recv ? recv.data : NULL,
                        is_root ? counts : NULL, is_root ? displs : NULL, root);
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
    if (pass_recv)
        failed |= team_cases_image_check(&recv, &want, p, is_root ? counts : NULL, displs, 0, desc);
    failed |= team_cases_send_check(send, copy, counts[me], desc);
out:
    team_cases_image_free(&recv), team_cases_image_free(&want);
    test_buffer_free(send), free(copy);
    return failed;
}

static int body(shmcoll_team_t *team, void *arg) {
    /* 4 KiB chunks: 5000 bytes take 2 rounds, the big count ~25 (gather pieces are chunks). */
    return team_cases_rooted_body(team, arg, 21, check_gather, check_gatherv);
}

int main(int argc, char **argv) {
    team_cases_single_copy_runs();
    int failed = team_cases_run_sizes(argc, argv, body, env_default, env_rounds, 0);
    static const int sizes[] = {2, 3, 4, 5, 8, 13};
    team_cases_mode_t mode = {.rounds = 1};
    const team_harness_spec_t agreed = {
        .body = body, .arg = &mode, .timeout_s = 150, .env = env_agreed};
    printf("gatherv after agreeing (SHMCOLL_CHUNK=4k SHMCOLL_CMA=all SHMCOLL_CMA_MIN=6k):\n");
    fflush(stdout);
    agreed_run = 1;
    failed |= team_harness_for_sizes_spec(argc, argv, sizes, (int)(sizeof sizes / sizeof *sizes),
                                          &agreed) != 0;
    return failed;
}
