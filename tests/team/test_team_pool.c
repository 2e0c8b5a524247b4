/* Kept segments (core/team_pool.h): a team of the same processes at the same ranks takes the
 * segment a destroyed team kept, and works on it as on a new one; a team whose ranks are
 * permuted does not take it; a tight budget lets kept segments go before it shrinks a new team.
 *
 * Per team size (2, 3, 5 and 8 by default), in every member: team A is made, runs collectives,
 * is destroyed; team B, of the same ranks, must map A's segment (the same address: the member
 * still holds A's mapping) on every member, and runs collectives whose inputs change every call
 * (rotating roots, the slots' both parities, counts past a chunk), each checked, so that a
 * control block left over from A would show as a wrong result or a hang; team C, of the ranks
 * rotated by one, must not map it, and gets the configured chunk although the budget (set to
 * hold the harness's team, one more and a half) is short while B's segment is kept: the keep
 * lets it go first. */
#include "core/budget.h"
#include "core/team_pool.h"
#include "select/team_coll.h"
#include "shm/channel.h"
#include "team_harness.h"
#include "test_data.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK ((size_t)16384)
#define CALLS 60

/* The harness's allgather, with the members' ranks rotated by `shift`. */
typedef struct rotated {
    int shift;
} rotated_t;

static int rotated_allgather(void *ctx, const void *in, void *out, size_t bytes) {
    const int p = team_harness_size(), shift = ((rotated_t *)ctx)->shift;
    unsigned char *all = malloc((size_t)p * bytes);
    if (!all) return 1;
    const int rc = team_harness_allgather(in, all, bytes);
    for (int r = 0; rc == 0 && r < p; r++) /* team rank (r + shift) % p is harness rank r */
        memcpy((unsigned char *)out + (size_t)((r + shift) % p) * bytes, all + (size_t)r * bytes,
               bytes);
    free(all);
    return rc;
}

static shmcoll_team_t *make_team(int shift) {
    static rotated_t ctx;
    ctx.shift = shift;
    const int p = team_harness_size();
    shmcoll_bootstrap_t boot = {.rank = (team_harness_rank() + shift) % p,
                                .size = p,
                                .allgather = rotated_allgather,
                                .ctx = &ctx};
    shmcoll_team_t *team = NULL;
    const shmcoll_status_t s = shmcoll_team_create(&boot, &team);
    if (s != SHMCOLL_OK)
        team_harness_log("team (ranks shifted by %d): %s", shift, shmcoll_status_string(s));
    return team;
}

/* CALLS allreduces and bcasts of changing sizes (up to three chunks) and roots, each checked. */
static int run_checked(shmcoll_team_t *team, const char *name) {
    const int p = team->size, me = team->rank;
    const size_t most = 3 * CHUNK / sizeof(int64_t);
    int64_t *in = malloc(most * sizeof *in), *out = malloc(most * sizeof *out);
    shmcoll_reduce_op_t op;
    int bad = !in || !out || test_data_op(SHMCOLL_DT_INT64, SHMCOLL_OP_SUM, &op) != 0;
    for (long k = 0; k < CALLS && !bad; k++) {
        const size_t n = 1 + (size_t)(k * 977) % most;
        for (size_t j = 0; j < n; j++) in[j] = (int64_t)(me + 1) * (k + 1) + (int64_t)j;
        shmcoll_status_t s = shmcoll_allreduce(team, in, out, n, &op);
        for (size_t j = 0; s == SHMCOLL_OK && j < n && !bad; j++)
            if (out[j] != (int64_t)p * (p + 1) / 2 * (k + 1) + (int64_t)p * (int64_t)j) {
                team_harness_log("%s: allreduce %ld element %zu wrong", name, k, j);
                bad = 1;
            }
        const int root = (int)(k % p);
        for (size_t j = 0; j < n; j++) out[j] = me == root ? (int64_t)(k * 31 + (long)j) : -1;
        if (s == SHMCOLL_OK) s = shmcoll_bcast(team, out, n * sizeof *out, root);
        for (size_t j = 0; s == SHMCOLL_OK && j < n && !bad; j++)
            if (out[j] != (int64_t)(k * 31 + (long)j)) {
                team_harness_log("%s: bcast %ld from %d element %zu wrong", name, k, root, j);
                bad = 1;
            }
        if (s != SHMCOLL_OK) {
            team_harness_log("%s: call %ld: %s (%s)", name, k, shmcoll_status_string(s),
                             team->error);
            bad = 1;
        }
    }
    free(in);
    free(out);
    return bad;
}

/* Whether every member's answer is `want` (each member's own: the harness's allgather). */
static int everyone(int mine) {
    int all[TEAM_HARNESS_MAX_P];
    if (team_harness_allgather(&mine, all, sizeof mine)) return 0;
    for (int r = 0; r < team_harness_size(); r++)
        if (!all[r]) return 0;
    return 1;
}

static int body(shmcoll_team_t *harness_team, void *arg) {
    (void)harness_team;
    (void)arg;
    int bad = 0;
    shmcoll_team_t *a = make_team(0);
    if (!everyone(a != NULL)) return 1;
    const void *a_base = a->segment.base;
    bad |= run_checked(a, "team A");
    shmcoll_team_destroy(a);

    shmcoll_team_t *b = make_team(0);
    if (!everyone(b != NULL)) return 1;
    const int b_kept = b->segment.base == a_base;
    if (!everyone(b_kept)) {
        team_harness_log("team B of the same ranks did not take team A's kept segment (here: %s)",
                         b_kept ? "taken" : "not taken");
        bad = 1;
    }
    bad |= run_checked(b, "team B (kept segment)");
    const void *b_base = b->segment.base;
    shmcoll_team_destroy(b);

    shmcoll_team_t *c = make_team(1);
    if (!everyone(c != NULL)) return 1;
    if (c->segment.base == b_base) {
        team_harness_log("team C of rotated ranks took the kept segment");
        bad = 1;
    }
    if (c->chunk != CHUNK) {
        team_harness_log("team C has a %zu-byte chunk, not %zu: the kept segment was not let go "
                         "for it",
                         c->chunk, CHUNK);
        bad = 1;
    }
    bad |= run_checked(c, "team C (rotated ranks)");
    shmcoll_team_destroy(c);
    shmcoll_team_pool_drain();
    return everyone(!bad) ? 0 : 1;
}

int main(int argc, char **argv) {
    static const int sizes[] = {2, 3, 5, 8};
    /* The budget holds the harness's own team, one more and a half (a team of these costs each
     * member about the same at every size, 2 the most): team C is made while B's segment is
     * kept, and gets the full chunk only when the keep lets it go. */
    static char budget[64];
    const size_t one = shmcoll_budget_cost(shmcoll_channel_segment_bytes(2, CHUNK), 2);
    snprintf(budget, sizeof budget, "SHMCOLL_SHM_BUDGET=%zu", 2 * one + one / 2);
    const char *env[] = {"SHMCOLL_CHUNK=16k", "SHMCOLL_KEEP_SEGMENTS=4", budget, NULL};
    team_harness_spec_t spec = {.body = body, .timeout_s = 300, .env = env};
    return team_harness_for_sizes_spec(argc, argv, sizes, 4, &spec) ? 1 : 0;
}
