#include "core/team_topo.h"
#include "core/config.h"
#include "core/log.h"
#include "core/team.h"
#include "kernels/nt_policy.h"
#include "topo/topo.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t topo_lock = PTHREAD_MUTEX_INITIALIZER;
static shmcoll_topo_t *loaded_topo; /* for loaded_spec; kept for the life of the process */
static char *loaded_spec;

/* The topology for the current SHMCOLL_TOPO, loaded once per process and setting. */
static shmcoll_topo_t *configured_topo(void) {
    const char *spec = shmcoll_config()->topo;
    if (loaded_spec && !strcmp(loaded_spec, spec)) return loaded_topo;
    char error[256] = "";
    shmcoll_topo_t *topo = NULL;
    if (shmcoll_topo_load(spec, &topo, error, sizeof error) != SHMCOLL_OK) {
        shmcoll_log_warn("SHMCOLL_TOPO='%s' cannot be used (%s): placement unknown, flat teams",
                         spec, error);
        topo = NULL;
    }
    shmcoll_topo_destroy(loaded_topo);
    free(loaded_spec);
    loaded_topo = topo;
    loaded_spec = strdup(spec);
    return loaded_topo;
}

void shmcoll_team_topo_place_self(int rank, int size, const cpu_set_t *affinity,
                                  shmcoll_topo_place_t *place) {
    shmcoll_topo_place_unknown(place);
    pthread_mutex_lock(&topo_lock);
    shmcoll_topo_t *topo = configured_topo();
    int pu = -1;
    if (topo) {
        const char *map = shmcoll_config()->map;
        if (!*map) {
            pu = shmcoll_topo_pu_of_binding(topo, affinity);
        } else {
            char error[256] = "";
            int *pus = malloc((size_t)size * sizeof *pus);
            if (pus && shmcoll_topo_map(topo, map, size, pus, error, sizeof error) == SHMCOLL_OK)
                pu = pus[rank];
            else if (rank == 0)
                shmcoll_log_warn("SHMCOLL_MAP='%s' cannot be used (%s): placement unknown", map,
                                 error);
            free(pus);
        }
        if (pu >= 0 && shmcoll_topo_place(topo, pu, place) != SHMCOLL_OK)
            shmcoll_topo_place_unknown(place);
    }
    pthread_mutex_unlock(&topo_lock);
}

static shmcoll_topo_caches_t caches_at(const shmcoll_topo_place_t *place) {
    shmcoll_topo_caches_t caches = {0};
    pthread_mutex_lock(&topo_lock);
    shmcoll_topo_t *topo = configured_topo();
    if (!topo || shmcoll_topo_caches(topo, place->pu, &caches) != SHMCOLL_OK)
        caches = (shmcoll_topo_caches_t){0};
    pthread_mutex_unlock(&topo_lock);
    return caches;
}

size_t shmcoll_team_topo_usable_cache(const shmcoll_topo_place_t *place) {
    const shmcoll_topo_caches_t caches = caches_at(place);
    /* When the LLC is the L2 itself, it must not be counted twice. */
    size_t l2 = caches.llc_level > 2 ? caches.l2_size : 0;
    return shmcoll_kernel_usable_cache(caches.llc_size, l2, caches.llc_cores, caches.llc_inclusive);
}

size_t shmcoll_team_topo_private_cache(const shmcoll_topo_place_t *place) {
    const shmcoll_topo_caches_t caches = caches_at(place);
    return caches.llc_level > 2 ? caches.l2_size : 0;
}

int shmcoll_team_topo_streaming_cores(const shmcoll_topo_place_t *places, int size, int ncpus) {
    int domains = 0;
    for (int r = 0; r < size; r++) {
        const int numa = places[r].obj[SHMCOLL_TOPO_NUMA];
        if (places[r].pu < 0 || numa < 0) continue;
        int seen = 0;
        for (int q = 0; q < r && !seen; q++)
            seen = places[q].pu >= 0 && places[q].obj[SHMCOLL_TOPO_NUMA] == numa;
        domains += !seen;
    }
    if (!domains) {
        pthread_mutex_lock(&topo_lock);
        shmcoll_topo_t *topo = configured_topo();
        domains = topo ? shmcoll_topo_count(topo, SHMCOLL_TOPO_NUMA) : 1;
        pthread_mutex_unlock(&topo_lock);
    }
    const int running = size < ncpus ? size : ncpus;
    return domains > 1 ? (running + domains - 1) / domains : running;
}

shmcoll_status_t shmcoll_team_hierarchy(shmcoll_team_t *team, const char *levels, int root,
                                        const shmcoll_topo_hier_t **hier) {
    for (int i = 0; i < SHMCOLL_TEAM_HIER_CACHE; i++) {
        const shmcoll_team_hier_entry_t *e = &team->hier_cache[i];
        if (e->hier && e->root == root && !strcmp(e->levels, levels)) {
            *hier = e->hier;
            return SHMCOLL_OK;
        }
    }
    shmcoll_topo_kind_t kinds[SHMCOLL_TOPO_MAX_LEVELS];
    int nkinds = 0;
    char error[256];
    if (strlen(levels) >= sizeof team->hier_cache[0].levels ||
        shmcoll_topo_levels_parse(levels, kinds, &nkinds, error, sizeof error) != SHMCOLL_OK)
        return SHMCOLL_ERR_INVALID;
    shmcoll_topo_hier_t *built = NULL;
    SHMCOLL_CHECK(shmcoll_topo_hier_build(team->places, team->size, kinds, nkinds, root, &built));
    /* Replace round-robin: a team uses few (list, root) pairs at a time. */
    shmcoll_team_hier_entry_t *e = &team->hier_cache[team->hier_next];
    team->hier_next = (team->hier_next + 1) % SHMCOLL_TEAM_HIER_CACHE;
    shmcoll_topo_hier_destroy(e->hier);
    e->hier = built;
    e->root = root;
    strcpy(e->levels, levels);
    *hier = built;
    return SHMCOLL_OK;
}

void shmcoll_team_topo_release(shmcoll_team_t *team) {
    for (int i = 0; i < SHMCOLL_TEAM_HIER_CACHE; i++) {
        shmcoll_topo_hier_destroy(team->hier_cache[i].hier);
        team->hier_cache[i].hier = NULL;
    }
}
