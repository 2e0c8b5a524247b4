/* Team placement from an injected topology: with SHMCOLL_TOPO set to a synthetic machine and
 * SHMCOLL_MAP to a mapping, every member's place is allgathered at team creation and every member
 * builds the same hierarchy from it. Checked for a 2-socket, 4-NUMA, 8-L3 machine with linear and
 * NUMA round-robin mappings: the places match the mapping, the hierarchy has the expected levels
 * and groups and is identical on all members, a bad sensitivity list is refused, the cores
 * streaming per memory domain follow the places, and the cache sizes the copy decisions compare
 * with are the machine's. */
#include "core/team.h"
#include "core/team_topo.h"
#include "team_harness.h"

#include <stdio.h>
#include <string.h>

/* 32 PUs, 4 per L3, 8 per NUMA node; each core with its own 1 MiB L2 */
#define MACHINE "pack:2 numa:2 l3:2(size=16MiB) l2:4(size=1MiB) core:1 pu:1"

typedef struct expect {
    const char *map;
    int p;
    const char *levels[4]; /* the formatted hierarchy of "l3,numa,socket", root -1 */
} expect_t;

static int body(shmcoll_team_t *team, void *arg) {
    const expect_t *want = arg;
    int failed = 0;
    for (int r = 0; r < team->size; r++) {
        const shmcoll_topo_place_t *pl = &team->places[r];
        int pu = !strcmp(want->map, "linear") ? r % 32 : (r % 4) * 8 + r / 4;
        if (pl->pu != pu || pl->obj[SHMCOLL_TOPO_NUMA] != pu / 8 ||
            pl->obj[SHMCOLL_TOPO_SOCKET] != pu / 16 || pl->obj[SHMCOLL_TOPO_L3] != pu / 4) {
            team_harness_log("%s: member %d placed at pu %d numa %d socket %d, want pu %d",
                             want->map, r, pl->pu, pl->obj[SHMCOLL_TOPO_NUMA],
                             pl->obj[SHMCOLL_TOPO_SOCKET], pu);
            failed = 1;
        }
    }
    const shmcoll_topo_hier_t *hier = NULL;
    if (shmcoll_team_hierarchy(&team->hiers, "l3,numa,socket", -1, &hier) != SHMCOLL_OK) {
        team_harness_log("%s: no hierarchy", want->map);
        return 1;
    }
    for (int i = 0; i < 4; i++) {
        char line[256] = "";
        if (i < hier->nlevels) shmcoll_topo_hier_format_level(hier, i, line, sizeof line);
        const char *expected = want->levels[i] ? want->levels[i] : "";
        if (strcmp(line, expected)) {
            team_harness_log("%s: level %d is '%s', want '%s'", want->map, i, line, expected);
            failed = 1;
        }
    }
    const shmcoll_topo_hier_t *again = NULL;
    if (shmcoll_team_hierarchy(&team->hiers, "l3,numa,socket", -1, &again) != SHMCOLL_OK ||
        again != hier) {
        team_harness_log("hierarchy not cached");
        failed = 1;
    }
    if (shmcoll_team_hierarchy(&team->hiers, "l3,numa,bogus", -1, &again) != SHMCOLL_ERR_INVALID) {
        team_harness_log("a bad sensitivity list must be refused");
        failed = 1;
    }
    /* Streaming cores per memory domain, for the non-temporal policy: the members that can run
     * at once, spread over the NUMA domains of their places (2 linear, 4 round-robin), or over
     * all 4 of the machine's when no place is known. */
    const int domains = !strcmp(want->map, "linear") ? 2 : 4;
    shmcoll_topo_place_t unknown[16];
    for (int r = 0; r < team->size; r++) shmcoll_topo_place_unknown(&unknown[r]);
    const struct {
        const shmcoll_topo_place_t *places;
        int ncpus, want;
    } streams[] = {{team->places, 64, team->size / domains},
                   {team->places, 4, (4 + domains - 1) / domains},
                   {unknown, 64, team->size / 4}};
    for (size_t i = 0; i < sizeof streams / sizeof streams[0]; i++) {
        int got =
            shmcoll_team_topo_streaming_cores(streams[i].places, team->size, streams[i].ncpus);
        if (got != streams[i].want) {
            team_harness_log("%s: %d streaming cores per domain on %d cpus (%s places), want %d",
                             want->map, got, streams[i].ncpus,
                             streams[i].places == unknown ? "unknown" : "known", streams[i].want);
            failed = 1;
        }
    }
    /* The copy loop for buffers in memory takes over at four times the core's own cache, its
     * L2; the streaming decisions compare with the (inclusive) L3. */
    if (team->memory_copy_min != (4u << 20) || team->usable_cache != (16u << 20)) {
        team_harness_log("%s: memory copy loop above %zu bytes, usable cache %zu bytes; want "
                         "4 MiB and 16 MiB",
                         want->map, team->memory_copy_min, team->usable_cache);
        failed = 1;
    }
    return failed;
}

int main(void) {
    static const expect_t cases[] = {
        {"linear",
         16,
         {"level 0: l3 groups=4 leaders=0,4,8,12", "level 1: numa groups=2 leaders=0,8",
          "level 2: node groups=1 leaders=0"}},
        {"numa-rr",
         16,
         {"level 0: l3 groups=4 leaders=0,1,2,3", "level 1: socket groups=2 leaders=0,2",
          "level 2: node groups=1 leaders=0"}},
    };
    int failed = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char map_env[64];
        snprintf(map_env, sizeof map_env, "SHMCOLL_MAP=%s", cases[i].map);
        const char *env[] = {"SHMCOLL_TOPO=" MACHINE, map_env, NULL};
        team_harness_spec_t spec = {
            .p = cases[i].p, .body = body, .arg = (void *)&cases[i], .timeout_s = 60, .env = env};
        if (team_harness_run_spec(&spec)) {
            fprintf(stderr, "FAIL: %s placement\n", cases[i].map);
            failed = 1;
        }
    }
    printf("team_topo: %s\n", failed ? "FAILED" : "ok");
    return failed;
}
