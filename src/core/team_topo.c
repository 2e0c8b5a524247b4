#include "core/team_topo.h"
#include "base/config.h"
#include "base/log.h"
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

void shmcoll_team_topo_load(void) {
    pthread_mutex_lock(&topo_lock);
    (void)configured_topo();
    pthread_mutex_unlock(&topo_lock);
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

int shmcoll_team_topo_memory_node(const cpu_set_t *affinity) {
    pthread_mutex_lock(&topo_lock);
    shmcoll_topo_t *topo = configured_topo();
    const int node = topo ? shmcoll_topo_memory_node(topo, affinity) : -1;
    pthread_mutex_unlock(&topo_lock);
    return node;
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

/* The entry of (levels, root), or NULL. */
static shmcoll_team_hier_entry_t *cached(shmcoll_team_hiers_t *hiers, const char *levels,
                                         int root) {
    for (int i = 0; i < SHMCOLL_TEAM_HIER_CACHE; i++) {
        shmcoll_team_hier_entry_t *e = &hiers->cache[i];
        if (e->hier && e->root == root && !strcmp(e->levels, levels)) return e;
    }
    return NULL;
}

/* An entry that may be replaced: not pinned, not held by a task in flight; round-robin, since a
 * team uses few (list, root) pairs at a time. NULL when every one is held. */
static shmcoll_team_hier_entry_t *replaceable(shmcoll_team_hiers_t *hiers) {
    const int slots = SHMCOLL_TEAM_HIER_CACHE - hiers->pinned;
    for (int tried = 0; tried < slots; tried++) {
        if (hiers->next < hiers->pinned) hiers->next = hiers->pinned;
        shmcoll_team_hier_entry_t *e = &hiers->cache[hiers->next];
        hiers->next = hiers->next + 1 < SHMCOLL_TEAM_HIER_CACHE ? hiers->next + 1 : hiers->pinned;
        if (!e->refs) return e;
    }
    return NULL;
}

static shmcoll_status_t build(shmcoll_team_hiers_t *hiers, const char *levels, int root,
                              shmcoll_topo_hier_t **hier) {
    shmcoll_topo_kind_t kinds[SHMCOLL_TOPO_MAX_LEVELS];
    int nkinds = 0;
    char error[256];
    if (strlen(levels) >= sizeof hiers->cache[0].levels ||
        shmcoll_topo_levels_parse(levels, kinds, &nkinds, error, sizeof error) != SHMCOLL_OK)
        return SHMCOLL_ERR_INVALID;
    return shmcoll_topo_hier_build(hiers->places, hiers->size, kinds, nkinds, root, hier);
}

/* The hierarchy of (levels, root), cached; with `hold`, counted as held until released. A
 * hierarchy no cache entry can take (all held) is built for the caller alone: `*owned` says so. */
static shmcoll_status_t lookup(shmcoll_team_hiers_t *hiers, const char *levels, int root, int hold,
                               const shmcoll_topo_hier_t **hier) {
    shmcoll_team_hier_entry_t *e = cached(hiers, levels, root);
    if (!e) {
        shmcoll_topo_hier_t *built = NULL;
        SHMCOLL_CHECK(build(hiers, levels, root, &built));
        e = replaceable(hiers);
        if (!e) {
            if (!hold) { /* a caller that does not hold it would leak it */
                shmcoll_topo_hier_destroy(built);
                return SHMCOLL_ERR_NO_MEMORY;
            }
            *hier = built; /* the holder's alone: released by destroying it */
            return SHMCOLL_OK;
        }
        shmcoll_topo_hier_destroy(e->hier);
        e->hier = built;
        e->root = root;
        strcpy(e->levels, levels);
    }
    if (hold) e->refs++;
    *hier = e->hier;
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_team_hierarchy(shmcoll_team_hiers_t *hiers, const char *levels, int root,
                                        const shmcoll_topo_hier_t **hier) {
    return lookup(hiers, levels, root, 0, hier);
}

shmcoll_status_t shmcoll_team_hierarchy_take(shmcoll_team_hiers_t *hiers, const char *levels,
                                             int root, const shmcoll_topo_hier_t **hier) {
    return lookup(hiers, levels, root, 1, hier);
}

void shmcoll_team_hierarchy_release(shmcoll_team_hiers_t *hiers, const shmcoll_topo_hier_t *hier) {
    if (!hier) return;
    for (int i = 0; i < SHMCOLL_TEAM_HIER_CACHE; i++)
        if (hiers->cache[i].hier == hier) {
            hiers->cache[i].refs--;
            return;
        }
    shmcoll_topo_hier_destroy((shmcoll_topo_hier_t *)hier); /* built for its holder alone */
}

shmcoll_status_t shmcoll_team_hierarchy_pin(shmcoll_team_hiers_t *hiers, const char *levels) {
    const shmcoll_topo_hier_t *hier;
    if (hiers->pinned >= SHMCOLL_TEAM_HIER_CACHE - 1) return SHMCOLL_ERR_INVALID;
    hiers->next = hiers->pinned;
    shmcoll_status_t status = shmcoll_team_hierarchy(hiers, levels, -1, &hier);
    if (status == SHMCOLL_ERR_INVALID) return SHMCOLL_OK; /* a bad list: flat, on every member */
    if (status == SHMCOLL_OK && hiers->next != hiers->pinned) hiers->pinned++;
    return status;
}

void shmcoll_team_topo_release(shmcoll_team_hiers_t *hiers) {
    for (int i = 0; i < SHMCOLL_TEAM_HIER_CACHE; i++) {
        shmcoll_topo_hier_destroy(hiers->cache[i].hier);
        hiers->cache[i].hier = NULL;
    }
}

const shmcoll_topo_level_t *shmcoll_team_socket_level(shmcoll_team_hiers_t *hiers) {
    const shmcoll_topo_hier_t *hier = NULL;
    if (shmcoll_team_hierarchy(hiers, "socket", -1, &hier) != SHMCOLL_OK || hier->nlevels < 2)
        return NULL;
    const shmcoll_topo_level_t *level = &hier->levels[0];
    if (level->kind != SHMCOLL_TOPO_SOCKET || level->ngroups < 2) return NULL;
    for (int g = 1; g < level->ngroups; g++)
        if (level->groups[g].nmembers != level->groups[0].nmembers) return NULL;
    return level;
}

int shmcoll_team_socket_groups(shmcoll_team_hiers_t *hiers) {
    const shmcoll_topo_level_t *level = shmcoll_team_socket_level(hiers);
    return level ? level->ngroups : 0;
}
