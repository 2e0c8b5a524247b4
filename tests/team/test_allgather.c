/* Allgather and allgatherv over teams of forked processes.
 *
 * Every member can generate every member's block (a byte stream keyed by seed and source rank), so
 * each member builds the exact image its whole receive buffer must have afterwards, guard zones
 * and the gaps between allgatherv blocks included (poison that must stay untouched), and compares
 * it byte for byte. Cases: p in {1,2,3,4,5,7,8,13,16} (plus a cheap p = 31) x byte counts
 * blocks_sizes gives (blocks.h: both sides of the inline area and of the post block) x in place or
 * not x aligned or misaligned buffers; then the same team sizes again with 4 KiB chunks
 * (SHMCOLL_CHUNK=4k) and counts that need tens of pipeline rounds. allgatherv blocks are uneven,
 * some empty, placed in a non-monotonic order with gaps between them. Send buffers are allocated at
 * their exact size, so an over-read shows under AddressSanitizer, and must come back unchanged.
 * Team sizes may be given on the command line. */
#include "blocks.h"
#include "select/team_coll.h"
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

static int check_allgather(shmcoll_team_t *team, size_t bytes, int in_place, size_t misalign,
                           uint64_t seed) {
    const int p = team->size, me = team->rank;
    char desc[160];
    snprintf(desc, sizeof desc, "allgather %zu bytes%s misalign %zu seed %llu", bytes,
             in_place ? " in-place" : "", misalign, (unsigned long long)seed);
    team_cases_image_t recv = {0}, want = {0};
    unsigned char *send = NULL, *copy = NULL;
    int failed = team_cases_image_alloc(&recv, (size_t)p * bytes, misalign) ||
                 team_cases_image_alloc(&want, (size_t)p * bytes, misalign);
    if (!failed && !in_place) failed = !(send = team_cases_send_alloc(bytes, &copy));
    if (failed) goto out;
    for (int r = 0; r < p; r++) blocks_fill(want.data + (size_t)r * bytes, bytes, seed, r, 0);
    if (in_place) {
        memcpy(recv.data + (size_t)me * bytes, want.data + (size_t)me * bytes, bytes);
    } else {
        blocks_fill(send, bytes, seed, me, 0);
        memcpy(copy, send, bytes);
    }
    failed |= team_cases_status_check(team, shmcoll_allgather(team, send, recv.data, bytes), desc);
    failed |= team_cases_image_check(&recv, &want, p, NULL, NULL, bytes, desc);
    failed |= team_cases_send_check(send, copy, bytes, desc);
out:
    team_cases_image_free(&recv), team_cases_image_free(&want);
    test_buffer_free(send), free(copy);
    return failed;
}

static int check_allgatherv(shmcoll_team_t *team, size_t base, int in_place, size_t misalign,
                            uint64_t seed) {
    const int p = team->size, me = team->rank;
    size_t counts[TEAM_HARNESS_MAX_P], displs[TEAM_HARNESS_MAX_P];
    for (int r = 0; r < p; r++) counts[r] = blocks_uneven(base, seed, (uint64_t)r);
    const size_t span = blocks_place(p, counts, seed, displs);
    char desc[200];
    snprintf(desc, sizeof desc,
             "allgatherv blocks around %zu bytes (mine %zu)%s misalign %zu "
             "seed %llu",
             base, counts[me], in_place ? " in-place" : "", misalign, (unsigned long long)seed);
    team_cases_image_t recv = {0}, want = {0};
    unsigned char *send = NULL, *copy = NULL;
    int failed = team_cases_image_alloc(&recv, span, misalign) ||
                 team_cases_image_alloc(&want, span, misalign);
    if (!failed && !in_place) failed = !(send = team_cases_send_alloc(counts[me], &copy));
    if (failed) goto out;
    for (int r = 0; r < p; r++) blocks_fill(want.data + displs[r], counts[r], seed, r, 0);
    if (in_place) {
        memcpy(recv.data + displs[me], want.data + displs[me], counts[me]);
    } else {
        blocks_fill(send, counts[me], seed, me, 0);
        memcpy(copy, send, counts[me]);
    }
    failed |= team_cases_status_check(
        team, shmcoll_allgatherv(team, send, recv.data, counts, displs), desc);
    failed |= team_cases_image_check(&recv, &want, p, counts, displs, 0, desc);
    failed |= team_cases_send_check(send, copy, counts[me], desc);
out:
    team_cases_image_free(&recv), team_cases_image_free(&want);
    test_buffer_free(send), free(copy);
    return failed;
}

static int body(shmcoll_team_t *team, void *arg) {
    const team_cases_mode_t *mode = arg;
    /* 4 KiB chunks: 5000 bytes take 2 rounds, the big count ~25 (allgather pieces are chunks). */
    size_t sizes[BLOCKS_SIZES_MAX];
    const size_t nsizes = blocks_sizes(mode->rounds, team->size,
                                       100000 / (size_t)team_harness_scale_down() + 3, sizes);
    uint64_t index = 0;
    for (size_t k = 0; k < nsizes; k++)
        for (int in_place = 0; in_place < 2; in_place++) {
            const uint64_t seed = test_data_mix((uint64_t)team->size, index++, 11);
            check_allgather(team, sizes[k], in_place, seed % 2 ? 1 + seed % 7 : 0, seed);
        }
    team_cases_set_group(1);
    for (size_t k = 0; k < nsizes; k++)
        for (int in_place = 0; in_place < 2; in_place++) {
            const uint64_t seed = test_data_mix((uint64_t)team->size, index++, 12);
            check_allgatherv(team, sizes[k], in_place, seed % 2 ? 1 + seed % 7 : 0, seed);
        }
    return team_cases_verdict();
}

int main(int argc, char **argv) {
    team_cases_single_copy_runs();
    return team_cases_run_sizes(argc, argv, body, env_default, env_rounds, 0);
}
