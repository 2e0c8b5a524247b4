/* Hierarchy builder; the rules are in hierarchy.h.
 *
 * Partitions are kept as a union-find forest over team ranks: coarsening by a level's objects
 * unions the members that share an object, so the result is automatically the join with the
 * partition below. Everything is O(size * levels) apart from the small sort of the levels. */
#include "topo/hierarchy.h"

#include <stdlib.h>
#include <string.h>

static int find(int *parent, int r) {
    while (parent[r] != r) r = parent[r] = parent[parent[r]];
    return r;
}

/* Union by smaller representative: the representative of a block is its lowest rank. */
static void unite(int *parent, int a, int b) {
    a = find(parent, a);
    b = find(parent, b);
    if (a < b)
        parent[b] = a;
    else if (b < a)
        parent[a] = b;
}

static int count_blocks(int *parent, int size) {
    int n = 0;
    for (int r = 0; r < size; r++) n += find(parent, r) == r;
    return n;
}

/* Distinct objects of a kind among the members; -1 if some member has none, -2 if out of
 * memory (an error, never a silently different hierarchy on this member). */
static int distinct_objects(const shmcoll_topo_place_t *places, int size, shmcoll_topo_kind_t kind,
                            int *scratch) {
    int max = -1;
    for (int r = 0; r < size; r++) {
        if (places[r].obj[kind] < 0) return -1;
        if (places[r].obj[kind] > max) max = places[r].obj[kind];
    }
    int *seen = max < size ? scratch : calloc((size_t)max + 1, sizeof *seen);
    if (!seen) return -2;
    if (seen == scratch) memset(seen, 0, sizeof *seen * (size_t)size);
    int n = 0;
    for (int r = 0; r < size; r++) n += !seen[places[r].obj[kind]]++;
    if (seen != scratch) free(seen);
    return n;
}

/* Unions the members that share their kind object; first[key] remembers the first member seen
 * with each object (keys are object indices, bounded by the machine's object count). */
static shmcoll_status_t coarsen(int *parent, const shmcoll_topo_place_t *places, int size,
                                shmcoll_topo_kind_t kind) {
    int max = 0;
    for (int r = 0; r < size; r++)
        if (places[r].obj[kind] > max) max = places[r].obj[kind];
    int *first = malloc(sizeof *first * ((size_t)max + 1));
    if (!first) return SHMCOLL_ERR_NO_MEMORY;
    for (int key = 0; key <= max; key++) first[key] = -1;
    for (int r = 0; r < size; r++) {
        int key = places[r].obj[kind];
        if (first[key] < 0)
            first[key] = r;
        else
            unite(parent, first[key], r);
    }
    free(first);
    return SHMCOLL_OK;
}

/* Fills a level from the partition in parent: groups numbered by their lowest rank; members
 * are the ranks in `active` (the leaders of the level below); leaders per the root rule. Leaves
 * the new level's leaders in `active`. On failure the level holds only what destroy frees. */
static shmcoll_status_t make_level(shmcoll_topo_level_t *level, shmcoll_topo_kind_t kind,
                                   int *parent, int size, int root, char *active) {
    level->kind = kind;
    level->group_of = malloc(sizeof(int) * (size_t)size);
    level->slot = malloc(sizeof(int) * (size_t)size);
    int *lowest = malloc(sizeof(int) * (size_t)size), *storage = NULL;
    if (!level->group_of || !level->slot || !lowest) goto fail;
    int ngroups = 0, nactive = 0;
    for (int r = 0; r < size; r++) {
        int rep = find(parent, r);
        if (rep == r) lowest[ngroups++] = r; /* the representative is the block's lowest rank */
        level->group_of[r] = rep;            /* relabelled below: reps come in ascending order */
        nactive += active[r];
    }
    storage = malloc(sizeof(int) * (size_t)nactive);
    level->groups = calloc((size_t)ngroups, sizeof *level->groups);
    if (!storage || !level->groups) goto fail;
    level->ngroups = ngroups;
    /* Group g has representative lowest[g]; map each rep to its group index. The rep slot of
     * `slot` is free scratch until the members are placed. */
    for (int g = 0; g < ngroups; g++) level->slot[lowest[g]] = g;
    for (int r = 0; r < size; r++) level->group_of[r] = level->slot[level->group_of[r]];
    for (int r = 0; r < size; r++)
        if (active[r]) level->groups[level->group_of[r]].nmembers++;
    int offset = 0;
    for (int g = 0; g < ngroups; g++) {
        level->groups[g].members = storage + offset; /* groups[0].members == storage */
        level->groups[g].leader = -1;
        offset += level->groups[g].nmembers;
        level->groups[g].nmembers = 0;
    }
    storage = NULL;
    for (int r = 0; r < size; r++) {
        level->slot[r] = -1;
        if (!active[r]) continue;
        shmcoll_topo_group_t *group = &level->groups[level->group_of[r]];
        level->slot[r] = group->nmembers;
        group->members[group->nmembers++] = r;
        if (group->leader < 0 || r == root) group->leader = r;
    }
    /* Contiguous: each group's covered ranks run from its lowest rank without a gap. */
    level->contiguous = 1;
    for (int r = 1; r < size; r++)
        if (level->group_of[r] != level->group_of[r - 1] && lowest[level->group_of[r]] != r)
            level->contiguous = 0;
    free(lowest);
    for (int r = 0; r < size; r++) active[r] = 0;
    for (int g = 0; g < ngroups; g++) active[level->groups[g].leader] = 1;
    return SHMCOLL_OK;
fail:
    free(lowest);
    free(storage);
    free(level->groups);
    level->groups = NULL;
    level->ngroups = 0;
    return SHMCOLL_ERR_NO_MEMORY;
}

/* Orders the usable kinds from the finest (most distinct objects) to the coarsest; stable, so
 * ties keep the list's order. Drops NODE, repeats and kinds some member lacks. Returns how many
 * remain, -1 if out of memory. */
static int order_kinds(const shmcoll_topo_place_t *places, int size,
                       const shmcoll_topo_kind_t *kinds, int nkinds, shmcoll_topo_kind_t *sorted,
                       int *scratch) {
    int n = 0, distinct[SHMCOLL_TOPO_MAX_LEVELS];
    for (int i = 0; i < nkinds; i++) {
        shmcoll_topo_kind_t kind = kinds[i];
        if (kind < 0 || kind >= SHMCOLL_TOPO_NODE) continue;
        int repeat = 0;
        for (int j = 0; j < n; j++) repeat |= sorted[j] == kind;
        int objects = repeat ? -1 : distinct_objects(places, size, kind, scratch);
        if (objects == -2) return -1;
        if (objects < 0) continue;
        int at = n++;
        while (at > 0 && distinct[at - 1] < objects) {
            sorted[at] = sorted[at - 1];
            distinct[at] = distinct[at - 1];
            at--;
        }
        sorted[at] = kind;
        distinct[at] = objects;
    }
    return n;
}

shmcoll_status_t shmcoll_topo_hier_build(const shmcoll_topo_place_t *places, int size,
                                         const shmcoll_topo_kind_t *kinds, int nkinds, int root,
                                         shmcoll_topo_hier_t **out) {
    *out = NULL;
    if (size < 1 || root < -1 || root >= size || nkinds < 0 || nkinds > SHMCOLL_TOPO_MAX_LEVELS)
        return SHMCOLL_ERR_INVALID;
    shmcoll_topo_hier_t *hier = calloc(1, sizeof *hier);
    int *parent = malloc(sizeof(int) * (size_t)size);
    char *active = malloc((size_t)size);
    shmcoll_status_t status = SHMCOLL_ERR_NO_MEMORY;
    if (!hier || !parent || !active) goto fail;
    hier->size = size;
    hier->root = root;

    int placed = 1;
    for (int r = 0; r < size; r++) placed &= places[r].pu >= 0;
    shmcoll_topo_kind_t sorted[SHMCOLL_TOPO_MAX_LEVELS];
    int nsorted = placed ? order_kinds(places, size, kinds, nkinds, sorted, parent) : 0;
    if (nsorted < 0) goto fail;

    for (int r = 0; r < size; r++) parent[r] = r, active[r] = 1;
    int blocks = size;
    for (int i = 0; i < nsorted && blocks > 1; i++) {
        SHMCOLL_CHECK_GOTO(coarsen(parent, places, size, sorted[i]), status, fail);
        int now = count_blocks(parent, size);
        if (now == blocks || now == 1) {
            blocks = now;
            continue; /* splits nothing new, or nothing at all: the top level covers it */
        }
        blocks = now;
        SHMCOLL_CHECK_GOTO(
            make_level(&hier->levels[hier->nlevels++], sorted[i], parent, size, root, active),
            status, fail);
    }
    for (int r = 0; r < size; r++) parent[r] = 0;
    SHMCOLL_CHECK_GOTO(
        make_level(&hier->levels[hier->nlevels++], SHMCOLL_TOPO_NODE, parent, size, root, active),
        status, fail);
    free(parent);
    free(active);
    *out = hier;
    return SHMCOLL_OK;
fail:
    free(parent);
    free(active);
    shmcoll_topo_hier_destroy(hier);
    return status;
}

void shmcoll_topo_hier_destroy(shmcoll_topo_hier_t *hier) {
    if (!hier) return;
    for (int i = 0; i < hier->nlevels; i++) {
        shmcoll_topo_level_t *level = &hier->levels[i];
        if (level->groups) free(level->groups[0].members);
        free(level->groups);
        free(level->group_of);
        free(level->slot);
    }
    free(hier);
}

int shmcoll_topo_hier_depth_of(const shmcoll_topo_hier_t *hier, int rank) {
    int depth = 0;
    while (depth < hier->nlevels && hier->levels[depth].slot[rank] >= 0) depth++;
    return depth;
}

void shmcoll_topo_hier_format_level(const shmcoll_topo_hier_t *hier, int level, char *text,
                                    size_t len) {
    const shmcoll_topo_level_t *l = &hier->levels[level];
    int used = snprintf(text, len, "level %d: %s groups=%d leaders=", level,
                        shmcoll_topo_kind_name(l->kind), l->ngroups);
    for (int g = 0; g < l->ngroups && used >= 0 && (size_t)used < len; g++)
        used += snprintf(text + used, len - (size_t)used, g ? ",%d" : "%d", l->groups[g].leader);
}

void shmcoll_topo_hier_print(const shmcoll_topo_hier_t *hier, FILE *out) {
    for (int i = 0; i < hier->nlevels; i++) {
        const shmcoll_topo_level_t *l = &hier->levels[i];
        fprintf(out, "level %d: %s groups=%d leaders=", i, shmcoll_topo_kind_name(l->kind),
                l->ngroups);
        for (int g = 0; g < l->ngroups; g++) fprintf(out, g ? ",%d" : "%d", l->groups[g].leader);
        fputc('\n', out);
    }
}
