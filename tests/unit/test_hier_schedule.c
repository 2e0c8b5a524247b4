/* The schedules of the hierarchical collectives (coll/hier_schedule.h) on machines we do not have:
 * a 2x64-core EPYC (8 NUMA nodes, 16 L3), a 4x72-core Grace, a 2x56-core Sapphire Rapids with two
 * threads per core and one with sub-NUMA clustering, and odd shapes (3 sockets of 3 NUMA nodes
 * without L3, 5 cores per socket); teams of many sizes placed linearly, NUMA round-robin and by a
 * shuffled PU list.
 *
 * Broadcast, for every root: the schedule is a tree rooted at the root (every other member has
 * one parent, is its parent's child exactly once, and sits one level deeper), no deeper than the
 * hierarchy, and the copies that cross a NUMA node boundary number exactly (NUMA nodes occupied -
 * 1), those that cross a socket boundary (sockets occupied - 1). The tree that spreads a
 * reduction's result from the top group is checked the same way.
 *
 * Reduction: the data flow is simulated element by element (which ranks' inputs each partial
 * result holds, in which order): every piece a reducer reads is one its holder produced at the
 * level below, every reducer's feeders are exactly the holders it reads, every holder counts its
 * reader among its readers (the claim set), and the final result holds every rank's input
 * exactly once, in rank order when every level is contiguous. The NUMA crossings measured are
 * printed. */
#include "check.h"
#include "coll/hier_schedule.h"
#include "topo/hierarchy.h"
#include "topo/topo.h"
#include "topo_check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXP  512
#define WORDS (MAXP / 64)

static char error[512];

/* ---- teams on synthetic machines ---------------------------------------------------------- */

/* PUs for `size` ranks: "linear", "numa-rr", or "shuffle" (a fixed pseudo-random permutation). */
static int map_team(const shmcoll_topo_t *topo, const char *mapping, int size, int *pu) {
    if (strcmp(mapping, "shuffle")) {
        shmcoll_status_t st = shmcoll_topo_map(topo, mapping, size, pu, error, sizeof error);
        CHECK(st == SHMCOLL_OK, "%s size %d: %s", mapping, size, error);
        return st == SHMCOLL_OK ? 0 : -1;
    }
    const int npus = shmcoll_topo_npus(topo);
    int logical[MAXP];
    for (int i = 0; i < npus; i++) logical[i] = i;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int i = npus - 1; i > 0; i--) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int j = (int)(x % (uint64_t)(i + 1)), t = logical[i];
        logical[i] = logical[j], logical[j] = t;
    }
    for (int r = 0; r < size; r++) pu[r] = shmcoll_topo_pu_os(topo, logical[r]);
    return 0;
}

static int occupied(const shmcoll_topo_place_t *places, int size, shmcoll_topo_kind_t kind) {
    char seen[MAXP] = {0};
    int n = 0;
    for (int r = 0; r < size; r++) n += !seen[places[r].obj[kind]]++;
    return n;
}

/* ---- broadcast ---------------------------------------------------------------------------- */

/* Checks the tree of one hierarchy; counts crossings of its copies (FROM_ROOT only). */
static void check_tree(const shmcoll_topo_hier_t *h, shmcoll_coll_hier_source_t source,
                       const shmcoll_topo_place_t *places, const char *what, int *numa_cross,
                       int *socket_cross) {
    const int p = h->size, from_top = source == SHMCOLL_COLL_HIER_FROM_TOP;
    const int top = h->nlevels - 1;
    int children[MAXP], times_child[MAXP] = {0}, edges = 0, sources = 0;
    *numa_cross = *socket_cross = 0;
    const int height = shmcoll_coll_hier_height(h, source);
    CHECK(height >= (p > 1) && height <= h->nlevels, "%s: height %d with %d levels", what, height,
          h->nlevels);
    for (int r = 0; r < p; r++) {
        int level;
        const int parent = shmcoll_coll_hier_parent(h, source, r, &level);
        const int depth = shmcoll_coll_hier_depth(h, source, r);
        const int is_top = h->levels[top].slot[r] >= 0;
        if (parent < 0) {
            sources++;
            CHECK(from_top ? is_top : r == shmcoll_coll_hier_root(h), "%s: %d has no parent", what,
                  r);
            CHECK(depth == from_top, "%s: source %d at depth %d", what, r, depth);
        } else {
            CHECK(!from_top || !is_top, "%s: top member %d has parent %d", what, r, parent);
            CHECK(depth == shmcoll_coll_hier_depth(h, source, parent) + 1 && depth <= height,
                  "%s: %d at depth %d, its parent %d at %d", what, r, depth, parent,
                  shmcoll_coll_hier_depth(h, source, parent));
            CHECK(h->levels[level].group_of[r] == h->levels[level].group_of[parent] &&
                      h->levels[level].slot[parent] >= 0,
                  "%s: %d and its parent %d do not share a level-%d group", what, r, parent, level);
            *numa_cross +=
                places[r].obj[SHMCOLL_TOPO_NUMA] != places[parent].obj[SHMCOLL_TOPO_NUMA];
            *socket_cross +=
                places[r].obj[SHMCOLL_TOPO_SOCKET] != places[parent].obj[SHMCOLL_TOPO_SOCKET];
        }
        const int n = shmcoll_coll_hier_children(h, source, r, children);
        edges += n;
        for (int k = 0; k < n; k++) {
            const int c = children[k];
            CHECK(c >= 0 && c < p && c != r, "%s: %d has child %d", what, r, c);
            if (c < 0 || c >= p) continue;
            times_child[c]++;
            CHECK(shmcoll_coll_hier_parent(h, source, c, NULL) == r,
                  "%s: child %d of %d has parent %d", what, c, r,
                  shmcoll_coll_hier_parent(h, source, c, NULL));
        }
    }
    for (int r = 0; r < p; r++)
        CHECK(times_child[r] == (shmcoll_coll_hier_parent(h, source, r, NULL) >= 0),
              "%s: %d is a child %d times", what, r, times_child[r]);
    CHECK(edges == p - sources, "%s: %d copies for %d members and %d sources", what, edges, p,
          sources);
    CHECK(sources == (from_top ? h->levels[top].groups[0].nmembers : 1), "%s: %d sources", what,
          sources);
}

/* Every root: a tree, and the crossings of one broadcast. Returns the crossings seen (the same
 * for every root, checked). */
static void check_bcast(const shmcoll_topo_place_t *places, int size, const char *list,
                        const char *what, int *numa_seen, int *socket_seen) {
    const int numa = occupied(places, size, SHMCOLL_TOPO_NUMA);
    const int sockets = occupied(places, size, SHMCOLL_TOPO_SOCKET);
    char desc[256];
    for (int root = 0; root < size; root++) {
        shmcoll_topo_hier_t *h = topo_check_hier_build(places, size, list, root);
        if (!h) return;
        snprintf(desc, sizeof desc, "%s \"%s\" root %d", what, list, root);
        CHECK(shmcoll_coll_hier_root(h) == root, "%s: tree rooted at %d", desc,
              shmcoll_coll_hier_root(h));
        int numa_cross, socket_cross;
        check_tree(h, SHMCOLL_COLL_HIER_FROM_ROOT, places, desc, &numa_cross, &socket_cross);
        CHECK(numa_cross == numa - 1, "%s: %d NUMA crossings, %d NUMA nodes occupied", desc,
              numa_cross, numa);
        CHECK(socket_cross == sockets - 1, "%s: %d socket crossings, %d sockets occupied", desc,
              socket_cross, sockets);
        *numa_seen = numa_cross, *socket_seen = socket_cross;
        shmcoll_topo_hier_destroy(h);
    }
    shmcoll_topo_hier_t *h = topo_check_hier_build(places, size, list, -1);
    if (!h) return;
    snprintf(desc, sizeof desc, "%s \"%s\" from the top group", what, list);
    int numa_cross, socket_cross;
    check_tree(h, SHMCOLL_COLL_HIER_FROM_TOP, places, desc, &numa_cross, &socket_cross);
    shmcoll_topo_hier_destroy(h);
}

/* ---- reduction ---------------------------------------------------------------------------- */

/* Which ranks' inputs a partial result holds, and whether they were combined in rank order. */
typedef struct partial {
    uint64_t set[WORDS];
    int lo, hi, ordered, valid;
} partial_t;

static void combine(partial_t *acc, const partial_t *next, const char *what) {
    for (int w = 0; w < WORDS; w++) {
        CHECK(!(acc->set[w] & next->set[w]), "%s: an input reduced twice", what);
        acc->set[w] |= next->set[w];
    }
    acc->ordered = acc->ordered && next->ordered && acc->hi < next->lo;
    acc->hi = next->hi;
}

static int contains(const int *list, int n, int x) {
    for (int k = 0; k < n; k++)
        if (list[k] == x) return 1;
    return 0;
}

/* Simulates the reduction of n elements (parts aligned to `align`) for each element; checks the
 * flow and returns the NUMA crossings summed over the elements (reads of a piece whose holder
 * sits on another NUMA node than the reader, plus the result root's reads). */
static long check_reduce(const shmcoll_topo_hier_t *h, const shmcoll_topo_place_t *places, size_t n,
                         size_t align, int result_root, const char *what) {
    const int p = h->size, L = h->nlevels;
    int contiguous = 1;
    for (int i = 0; i < L; i++) contiguous &= h->levels[i].contiguous;
    static partial_t prev[MAXP], cur[MAXP];
    static int feeders[MAXP], readers[MAXP][MAXP], nreaders[MAXP];
    for (int r = 0; r < p; r++)
        nreaders[r] = shmcoll_coll_hier_reduce_readers(h, r, result_root, readers[r]);
    long crossings = 0;
    char desc[300];
    for (size_t e = 0; e < n; e++) {
        for (int r = 0; r < p; r++) {
            memset(&prev[r], 0, sizeof prev[r]);
            prev[r].set[r / 64] = (uint64_t)1 << (r % 64);
            prev[r].lo = prev[r].hi = r;
            prev[r].ordered = prev[r].valid = 1;
        }
        for (int i = 0; i < L; i++) {
            const shmcoll_topo_level_t *l = &h->levels[i];
            memset(cur, 0, sizeof(partial_t) * (size_t)p);
            for (int g = 0; g < l->ngroups; g++) {
                const shmcoll_topo_group_t *grp = &l->groups[g];
                const size_t per = shmcoll_coll_hier_part_len(n, grp->nmembers, align);
                const int x = grp->members[e / per];
                size_t lo, len;
                shmcoll_coll_hier_part(n, grp->nmembers, align, l->slot[x], &lo, &len);
                snprintf(desc, sizeof desc, "%s n %zu align %zu element %zu level %d reducer %d",
                         what, n, align, e, i, x);
                CHECK(lo <= e && e < lo + len, "%s: element outside its part", desc);
                const int nf = shmcoll_coll_hier_feeders(h, i, x, n, align, feeders);
                partial_t acc = {.ordered = 1, .lo = -1, .hi = -1};
                for (int k = 0; k < grp->nmembers; k++) {
                    size_t first, end;
                    const int y = grp->members[k];
                    const int holder = shmcoll_coll_hier_holder(h, i, y, n, align, e, &first, &end);
                    CHECK(first <= e && e < end && end <= n, "%s: piece [%zu,%zu)", desc, first,
                          end);
                    if (i > 0) { /* the piece is the holder's part of the group below */
                        const shmcoll_topo_level_t *below = &h->levels[i - 1];
                        size_t plo, plen;
                        shmcoll_coll_hier_part(n, below->groups[below->group_of[y]].nmembers, align,
                                               below->slot[holder], &plo, &plen);
                        CHECK(below->group_of[holder] == below->group_of[y] && plo == first &&
                                  plo + plen == end,
                              "%s: holder %d of %d's piece", desc, holder, y);
                    }
                    CHECK(prev[holder].valid, "%s: holder %d of %d's input has nothing", desc,
                          holder, y);
                    CHECK(contains(feeders, nf, holder), "%s: holder %d not among its feeders",
                          desc, holder);
                    CHECK(holder == x || contains(readers[holder], nreaders[holder], x),
                          "%s: %d reads %d's buffer but is not among its readers", desc, x, holder);
                    crossings +=
                        places[holder].obj[SHMCOLL_TOPO_NUMA] != places[x].obj[SHMCOLL_TOPO_NUMA];
                    if (k == 0)
                        acc = prev[holder];
                    else
                        combine(&acc, &prev[holder], desc);
                }
                CHECK(!cur[x].valid, "%s: %d reduces element twice at one level", desc, x);
                cur[x] = acc;
            }
            memcpy(prev, cur, sizeof(partial_t) * (size_t)p);
        }
        size_t first, end;
        const int holder = shmcoll_coll_hier_holder(h, L, 0, n, align, e, &first, &end);
        snprintf(desc, sizeof desc, "%s n %zu align %zu element %zu result", what, n, align, e);
        int all = 1;
        for (int r = 0; r < p; r++) all &= (int)(prev[holder].set[r / 64] >> (r % 64)) & 1;
        CHECK(prev[holder].valid && all, "%s: does not hold every input", desc);
        CHECK(!contiguous || prev[holder].ordered, "%s: not in rank order", desc);
        for (int r = 1; r < p; r++)
            CHECK(shmcoll_coll_hier_holder(h, L, r, n, align, e, &first, &end) == holder,
                  "%s: two holders", desc);
        if (result_root >= 0) {
            CHECK(holder == result_root || contains(readers[holder], nreaders[holder], result_root),
                  "%s: the root is not among %d's readers", desc, holder);
            crossings +=
                places[holder].obj[SHMCOLL_TOPO_NUMA] != places[result_root].obj[SHMCOLL_TOPO_NUMA];
        }
    }
    /* Feeders are exactly the holders read (no extra waits): count them back. */
    for (int i = 0; i < L; i++)
        for (int x = 0; x < p; x++) {
            if (h->levels[i].slot[x] < 0) continue;
            const int nf = shmcoll_coll_hier_feeders(h, i, x, n, align, feeders);
            for (int a = 0; a < nf; a++)
                for (int b = a + 1; b < nf; b++)
                    CHECK(feeders[a] != feeders[b], "%s: feeder %d twice", what, feeders[a]);
        }
    /* The result's broadcast (allreduce) reads only from claimed readers too. */
    if (result_root < 0)
        for (int r = 0; r < p; r++) {
            int children[MAXP];
            const int nc = shmcoll_coll_hier_children(h, SHMCOLL_COLL_HIER_FROM_TOP, r, children);
            for (int k = 0; k < nc; k++)
                CHECK(contains(readers[r], nreaders[r], children[k]),
                      "%s: child %d of %d is not among its readers", what, children[k], r);
        }
    return crossings;
}

/* ---- machines ----------------------------------------------------------------------------- */

typedef struct machine {
    const char *name;
    const char *description;
    int sizes[10]; /* 0-terminated */
} machine_t;

static void run_machine(const machine_t *m) {
    shmcoll_topo_t *topo = NULL;
    if (shmcoll_topo_load_synthetic(m->description, &topo, error, sizeof error) != SHMCOLL_OK) {
        CHECK(0, "load %s: %s", m->description, error);
        return;
    }
    static const char *mappings[] = {"linear", "numa-rr", "shuffle"};
    static const char *lists[] = {"numa,socket", "l3,numa,socket"};
    static shmcoll_topo_place_t places[MAXP];
    printf("%s (%s)\n", m->name, m->description);
    for (int s = 0; m->sizes[s]; s++)
        for (int mi = 0; mi < 3; mi++) {
            const int size = m->sizes[s];
            int pu[MAXP];
            if (map_team(topo, mappings[mi], size, pu)) continue;
            for (int r = 0; r < size; r++)
                CHECK(shmcoll_topo_place(topo, pu[r], &places[r]) == SHMCOLL_OK, "place");
            char what[128];
            snprintf(what, sizeof what, "%s p=%d %s", m->name, size, mappings[mi]);
            int numa_cross = 0, socket_cross = 0;
            for (int li = 0; li < 2; li++)
                check_bcast(places, size, lists[li], what, &numa_cross, &socket_cross);
            /* Reductions: the flow does not depend on the root (only the result's reader). */
            shmcoll_topo_hier_t *h = topo_check_hier_build(places, size, "l3,numa,socket", -1);
            shmcoll_topo_hier_t *hr =
                topo_check_hier_build(places, size, "l3,numa,socket", size - 1);
            long cross = 0;
            const size_t n = size > 100 ? 100 : 1000;
            if (h && hr) {
                check_reduce(h, places, 1, 8, -1, what);
                check_reduce(h, places, 13, 1, -1, what);
                check_reduce(h, places, n, 8, -1, what);
                cross = check_reduce(hr, places, n, 8, size - 1, what);
            }
            printf("  p=%-3d %-7s NUMA nodes %d sockets %d | bcast crossings: NUMA %d socket %d "
                   "| reduce (l3,numa,socket; %d levels) NUMA crossings per element %.2f\n",
                   size, mappings[mi], occupied(places, size, SHMCOLL_TOPO_NUMA),
                   occupied(places, size, SHMCOLL_TOPO_SOCKET), numa_cross, socket_cross,
                   h ? h->nlevels : 0, (double)cross / (double)n);
            shmcoll_topo_hier_destroy(h);
            shmcoll_topo_hier_destroy(hr);
        }
    shmcoll_topo_destroy(topo);
}

/* Part arithmetic: parts cover the range without overlap, aligned, and empty ones at the end. */
static void test_parts(void) {
    for (size_t n = 0; n < 300; n += 7)
        for (int m = 1; m <= 9; m++)
            for (size_t align = 1; align <= 16; align *= 4) {
                size_t next = 0;
                for (int j = 0; j < m; j++) {
                    size_t first, len;
                    shmcoll_coll_hier_part(n, m, align, j, &first, &len);
                    CHECK(first == next && (len == 0 || first % align == 0),
                          "n %zu m %d align %zu part %d at %zu", n, m, align, j, first);
                    next = first + len;
                }
                CHECK(next == n, "n %zu m %d align %zu: parts end at %zu", n, m, align, next);
            }
}

int main(void) {
    check_log_limit(30); /* one wrong schedule fails many checks */
    test_parts();
    static const machine_t machines[] = {
        {"EPYC 2x64", "pack:2 numa:4 l3:2 core:8 pu:1", {1, 2, 3, 7, 16, 37, 64, 128}},
        {"Grace 4x72", "pack:4 numa:1 l3:1 core:72 pu:1", {5, 64, 150, 288}},
        {"SPR 2x56x2", "pack:2 numa:1 l3:1 core:56 pu:2", {2, 13, 56, 113, 224}},
        {"SPR SNC4", "pack:2 l3:1 numa:4 core:14 pu:2", {9, 57, 224}},
        {"odd 3x3 no L3", "pack:3 numa:3 core:5 pu:1", {4, 11, 45}},
        {"odd 2x3x1", "pack:2 numa:3 l3:1 core:7 pu:1", {6, 29, 42}},
    };
    for (size_t i = 0; i < sizeof machines / sizeof machines[0]; i++) run_machine(&machines[i]);
    if (check_failures()) fprintf(stderr, "%ld failures\n", check_failures());
    printf("hier_schedule: %s\n", check_failures() ? "FAILED" : "ok");
    return check_failures() != 0;
}
