/* Topology and hierarchy (topo/) on machines we do not have, from hwloc synthetic descriptions:
 * a 2x64-core EPYC (8 NUMA nodes, 16 L3), a 4x72-core Grace, 2x56-core Sapphire Rapids with and
 * without sub-NUMA clustering, a single core and odd shapes; teams of several sizes under linear,
 * numa-rr and explicit mappings. Every hierarchy is checked against the invariants (nesting,
 * leaders, members = leaders below, no trivial level, NODE on top, root-independence of the
 * partitions, the root leading all its groups), and the shapes against what the machine's
 * parameters imply. Also: this machine's topology, binding -> PU, cache facts, mapping and
 * sensitivity-list errors, and an XML round trip. */
#include "check.h"
#include "topo/cpus.h"
#include "topo/hierarchy.h"
#include "topo/topo.h"
#include "topo_check.h"

#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXP 512

static char error[512];

static shmcoll_topo_t *load(const char *description) {
    shmcoll_topo_t *topo = NULL;
    shmcoll_status_t st = shmcoll_topo_load_synthetic(description, &topo, error, sizeof error);
    CHECK(st == SHMCOLL_OK, "load \"%s\": %s", description, error);
    return st == SHMCOLL_OK ? topo : NULL;
}

static void places_of(const shmcoll_topo_t *topo, const int *pu, int size,
                      shmcoll_topo_place_t *places) {
    for (int r = 0; r < size; r++)
        CHECK(shmcoll_topo_place(topo, pu[r], &places[r]) == SHMCOLL_OK, "place of PU %d", pu[r]);
}

/* ---- invariants of every hierarchy ------------------------------------------------------- */

static void check_invariants(const shmcoll_topo_hier_t *h, const shmcoll_topo_place_t *places,
                             const char *what) {
    int size = h->size;
    char active[MAXP];
    CHECK(h->nlevels >= 1, "%s: no level", what);
    const shmcoll_topo_level_t *top = &h->levels[h->nlevels - 1];
    CHECK(top->kind == SHMCOLL_TOPO_NODE && top->ngroups == 1, "%s: top is not one NODE group",
          what);
    for (int r = 0; r < size; r++) active[r] = 1;
    int previous_groups = size;
    for (int i = 0; i < h->nlevels; i++) {
        const shmcoll_topo_level_t *l = &h->levels[i];
        CHECK(l->ngroups < previous_groups || (size == 1 && l->ngroups == 1),
              "%s: level %d splits nothing new (%d groups after %d)", what, i, l->ngroups,
              previous_groups);
        CHECK(i == h->nlevels - 1 || l->ngroups > 1, "%s: level %d below the top has one group",
              what, i);
        previous_groups = l->ngroups;
        int lowest_prev = -1, contiguous = 1, seen = 0;
        for (int g = 0; g < l->ngroups; g++) {
            const shmcoll_topo_group_t *grp = &l->groups[g];
            int lowest = -1, highest = -1, covered = 0, root_in = 0, leader_in = 0;
            for (int r = 0; r < size; r++)
                if (l->group_of[r] == g) {
                    if (lowest < 0) lowest = r;
                    highest = r;
                    covered++;
                }
            CHECK(lowest > lowest_prev, "%s: level %d groups not ordered by lowest rank", what, i);
            lowest_prev = lowest;
            if (highest - lowest + 1 != covered) contiguous = 0;
            CHECK(grp->nmembers >= 1, "%s: level %d group %d has no member", what, i, g);
            for (int m = 0; m < grp->nmembers; m++) {
                int r = grp->members[m];
                CHECK(m == 0 || r > grp->members[m - 1], "%s: members not ascending", what);
                CHECK(active[r], "%s: level %d member %d did not lead below", what, i, r);
                CHECK(l->group_of[r] == g && l->slot[r] == m, "%s: group_of/slot of %d", what, r);
                root_in |= r == h->root;
                leader_in |= r == grp->leader;
                seen++;
            }
            CHECK(leader_in, "%s: level %d leader %d not a member", what, i, grp->leader);
            int expected_leader = root_in ? h->root : grp->members[0];
            CHECK(grp->leader == expected_leader, "%s: level %d group %d led by %d, not %d", what,
                  i, g, grp->leader, expected_leader);
            if (i > 0) /* nesting: the group is a union of level i-1 groups */
                for (int r = 0; r < size; r++)
                    for (int s = r + 1; s < size; s++)
                        if (h->levels[i - 1].group_of[r] == h->levels[i - 1].group_of[s])
                            CHECK(l->group_of[r] == l->group_of[s], "%s: level %d not nested", what,
                                  i);
        }
        CHECK(contiguous == l->contiguous, "%s: level %d contiguous flag", what, i);
        int nactive = 0;
        for (int r = 0; r < size; r++) {
            nactive += active[r];
            if (!active[r]) CHECK(l->slot[r] == -1, "%s: inactive %d has a slot", what, r);
        }
        CHECK(seen == nactive, "%s: level %d members %d, leaders below %d", what, i, seen, nactive);
        for (int r = 0; r < size; r++) active[r] = 0;
        for (int g = 0; g < l->ngroups; g++) active[l->groups[g].leader] = 1;
    }
    if (h->root >= 0)
        CHECK(shmcoll_topo_hier_depth_of(h, h->root) == h->nlevels, "%s: root %d not on top", what,
              h->root);
    /* On the nested machines of this test a level of kind K groups exactly the ranks that share
     * their K object. */
    if (places)
        for (int i = 0; i < h->nlevels - 1; i++) {
            shmcoll_topo_kind_t kind = h->levels[i].kind;
            for (int r = 0; r < size; r++)
                for (int s = r + 1; s < size; s++)
                    CHECK((h->levels[i].group_of[r] == h->levels[i].group_of[s]) ==
                              (places[r].obj[kind] == places[s].obj[kind]),
                          "%s: level %d (%s) groups %d and %d wrongly", what, i,
                          shmcoll_topo_kind_name(kind), r, s);
        }
}

/* Same partitions whatever the root; the root leads every group it is in. */
static void check_roots(const shmcoll_topo_place_t *places, int size, const char *list,
                        const shmcoll_topo_hier_t *base, const char *what) {
    int step = size <= 64 ? 1 : size / 17 + 1;
    for (int root = 0; root < size; root += step) {
        shmcoll_topo_hier_t *h = topo_check_hier_build(places, size, list, root);
        if (!h) return;
        check_invariants(h, NULL, what);
        CHECK(h->nlevels == base->nlevels, "%s root %d: %d levels, %d without root", what, root,
              h->nlevels, base->nlevels);
        for (int i = 0; i < h->nlevels && i < base->nlevels; i++) {
            CHECK(h->levels[i].kind == base->levels[i].kind &&
                      h->levels[i].ngroups == base->levels[i].ngroups &&
                      !memcmp(h->levels[i].group_of, base->levels[i].group_of,
                              sizeof(int) * (size_t)size),
                  "%s root %d: level %d partition differs", what, root, i);
            int g = h->levels[i].group_of[root];
            CHECK(h->levels[i].groups[g].leader == root, "%s root %d: level %d led by %d", what,
                  root, i, h->levels[i].groups[g].leader);
        }
        shmcoll_topo_hier_destroy(h);
    }
}

/* A team on a synthetic machine: builds, checks all invariants and roots, returns the hierarchy
 * without a root (caller destroys). */
static shmcoll_topo_hier_t *team(const shmcoll_topo_t *topo, const char *mapping, int size,
                                 const char *list, int nested, shmcoll_topo_place_t *places) {
    int pu[MAXP];
    char what[256];
    snprintf(what, sizeof what, "%s size %d \"%s\"", mapping, size, list);
    CHECK(shmcoll_topo_map(topo, mapping, size, pu, error, sizeof error) == SHMCOLL_OK, "%s: %s",
          what, error);
    places_of(topo, pu, size, places);
    shmcoll_topo_hier_t *h = topo_check_hier_build(places, size, list, -1);
    if (!h) return NULL;
    check_invariants(h, nested ? places : NULL, what);
    check_roots(places, size, list, h, what);
    return h;
}

/* Expected shape of one level: kind, number of groups, and leaders i * stride when stride > 0. */
static void expect_level(const shmcoll_topo_hier_t *h, int i, shmcoll_topo_kind_t kind, int ngroups,
                         int stride, const char *what) {
    if (i >= h->nlevels) {
        CHECK(0, "%s: no level %d", what, i);
        return;
    }
    const shmcoll_topo_level_t *l = &h->levels[i];
    CHECK(l->kind == kind && l->ngroups == ngroups, "%s: level %d is %s x%d, expected %s x%d", what,
          i, shmcoll_topo_kind_name(l->kind), l->ngroups, shmcoll_topo_kind_name(kind), ngroups);
    if (stride > 0)
        for (int g = 0; g < l->ngroups && g < ngroups; g++)
            CHECK(l->groups[g].leader == g * stride, "%s: level %d leader %d is %d", what, i, g,
                  l->groups[g].leader);
}

static int ceil_div(int a, int b) {
    return (a + b - 1) / b;
}

/* ---- machines ------------------------------------------------------------------------------- */

/* 2 sockets x 4 NUMA x 2 L3 x 8 cores, like a dual 64-core EPYC in NPS4. */
static void test_epyc(void) {
    const int sockets = 2, numa = 4, l3 = 2, cores = 8;
    shmcoll_topo_t *topo = load("pack:2 numa:4 l3:2 core:8 pu:1");
    if (!topo) return;
    CHECK(shmcoll_topo_npus(topo) == sockets * numa * l3 * cores, "npus");
    CHECK(shmcoll_topo_count(topo, SHMCOLL_TOPO_NUMA) == sockets * numa, "8 NUMA nodes");
    CHECK(shmcoll_topo_count(topo, SHMCOLL_TOPO_L3) == sockets * numa * l3, "16 L3");
    CHECK(shmcoll_topo_count(topo, SHMCOLL_TOPO_SOCKET) == sockets, "2 sockets");
    CHECK(shmcoll_topo_count(topo, SHMCOLL_TOPO_L2) == 0, "no L2 in the description");
    shmcoll_topo_caches_t c;
    CHECK(shmcoll_topo_caches(topo, -1, &c) == SHMCOLL_OK && c.llc_level == 3 &&
              c.llc_cores == cores && c.cores_per_package == numa * l3 * cores &&
              c.llc_inclusive == 1 && c.llc_size > 0 && c.l2_size == 0,
          "EPYC caches: level %d cores %d per package %d inclusive %d", c.llc_level, c.llc_cores,
          c.cores_per_package, c.llc_inclusive);

    static shmcoll_topo_place_t places[MAXP];
    const int sizes[] = {1, 2, 7, 8, 9, 20, 33, 64, 100, 128};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int size = sizes[s];
        char what[64];
        snprintf(what, sizeof what, "EPYC linear %d", size);
        shmcoll_topo_hier_t *h = team(topo, "linear", size, "l3,numa,socket", 1, places);
        if (!h) continue;
        /* Linear: groups of consecutive ranks; a level exists while it splits the team. */
        int per[3] = {cores, cores * l3, cores * l3 * numa};
        shmcoll_topo_kind_t kinds[3] = {SHMCOLL_TOPO_L3, SHMCOLL_TOPO_NUMA, SHMCOLL_TOPO_SOCKET};
        int level = 0;
        for (int k = 0; k < 3; k++)
            if (ceil_div(size, per[k]) > 1)
                expect_level(h, level++, kinds[k], ceil_div(size, per[k]), per[k], what);
        expect_level(h, level++, SHMCOLL_TOPO_NODE, 1, 1, what);
        CHECK(h->nlevels == level, "%s: %d levels, expected %d", what, h->nlevels, level);
        for (int i = 0; i < h->nlevels; i++)
            CHECK(h->levels[i].contiguous, "%s: linear levels are contiguous", what);
        shmcoll_topo_hier_destroy(h);
    }
    /* numa-rr: rank i on NUMA node i mod 8; ranks i and i+8 share an L3, NUMA adds nothing. */
    shmcoll_topo_hier_t *h = team(topo, "numa-rr", 16, "l3,numa,socket", 1, places);
    if (h) {
        expect_level(h, 0, SHMCOLL_TOPO_L3, 8, 1, "EPYC numa-rr 16");
        expect_level(h, 1, SHMCOLL_TOPO_SOCKET, 2, 4, "EPYC numa-rr 16");
        expect_level(h, 2, SHMCOLL_TOPO_NODE, 1, 1, "EPYC numa-rr 16");
        CHECK(h->nlevels == 3 && !h->levels[0].contiguous, "EPYC numa-rr 16: shape");
        shmcoll_topo_hier_destroy(h);
    }
    h = team(topo, "numa-rr", 128, "numa+socket", 1, places);
    if (h) {
        expect_level(h, 0, SHMCOLL_TOPO_NUMA, 8, 1, "EPYC numa-rr 128");
        expect_level(h, 1, SHMCOLL_TOPO_SOCKET, 2, 4, "EPYC numa-rr 128");
        CHECK(h->nlevels == 3, "EPYC numa-rr 128: %d levels", h->nlevels);
        shmcoll_topo_hier_destroy(h);
    }
    /* The list's order does not matter. */
    h = team(topo, "linear", 128, "socket,l3,numa", 1, places);
    if (h) {
        expect_level(h, 0, SHMCOLL_TOPO_L3, 16, 8, "EPYC reversed list");
        expect_level(h, 1, SHMCOLL_TOPO_NUMA, 8, 16, "EPYC reversed list");
        expect_level(h, 2, SHMCOLL_TOPO_SOCKET, 2, 64, "EPYC reversed list");
        shmcoll_topo_hier_destroy(h);
    }
    /* Explicit list: one rank per socket and per NUMA node in a scrambled order. */
    h = team(topo, "64,0,80,16", 4, "numa,socket", 1, places);
    if (h) {
        expect_level(h, 0, SHMCOLL_TOPO_SOCKET, 2, 1, "EPYC explicit");
        CHECK(h->nlevels == 2 && h->levels[0].groups[0].members[1] == 2 && !h->levels[0].contiguous,
              "EPYC explicit: ranks 0 and 2 share socket 1");
        shmcoll_topo_hier_destroy(h);
    }
    /* An empty list: one level. */
    h = team(topo, "linear", 32, "", 1, places);
    if (h) {
        CHECK(h->nlevels == 1, "empty list: %d levels", h->nlevels);
        shmcoll_topo_hier_destroy(h);
    }
    shmcoll_topo_destroy(topo);
}

/* 4 x Grace: one NUMA node, one L3 per 72-core package; L3, NUMA and socket coincide. */
static void test_grace(void) {
    shmcoll_topo_t *topo = load("pack:4 numa:1 l3:1(size=114MiB) l2:72(size=1MiB) core:1 pu:1");
    if (!topo) return;
    shmcoll_topo_caches_t c;
    CHECK(shmcoll_topo_caches(topo, 100, &c) == SHMCOLL_OK && c.llc_size == 114u << 20 &&
              c.l2_size == 1u << 20 && c.llc_cores == 72 && c.cores_per_package == 72,
          "Grace caches: llc %zu l2 %zu cores %d/%d", c.llc_size, c.l2_size, c.llc_cores,
          c.cores_per_package);
    static shmcoll_topo_place_t places[MAXP];
    shmcoll_topo_hier_t *h = team(topo, "linear", 288, "l3,numa,socket", 1, places);
    if (h) {
        expect_level(h, 0, SHMCOLL_TOPO_L3, 4, 72, "Grace 288");
        expect_level(h, 1, SHMCOLL_TOPO_NODE, 1, 1, "Grace 288");
        CHECK(h->nlevels == 2, "Grace 288: %d levels", h->nlevels);
        shmcoll_topo_hier_destroy(h);
    }
    h = team(topo, "numa-rr", 13, "l2,l3", 1, places);
    if (h) {
        /* every rank on its own core and L2: the L2 level splits nothing */
        expect_level(h, 0, SHMCOLL_TOPO_L3, 4, 1, "Grace numa-rr 13");
        CHECK(h->nlevels == 2 && h->levels[0].groups[0].nmembers == 4, "Grace numa-rr 13");
        shmcoll_topo_hier_destroy(h);
    }
    shmcoll_topo_destroy(topo);
}

/* 2 x 56-core Sapphire Rapids with 2 hardware threads per core, without and with SNC4 (the L3
 * spans the socket, the NUMA nodes split it). */
static void test_sapphire_rapids(void) {
    static shmcoll_topo_place_t places[MAXP];
    shmcoll_topo_t *topo = load("pack:2 numa:1 l3:1 core:56 pu:2");
    if (topo) {
        shmcoll_topo_hier_t *h = team(topo, "linear", 224, "core,l3,numa,socket", 1, places);
        if (h) {
            expect_level(h, 0, SHMCOLL_TOPO_CORE, 112, 2, "SPR 224");
            expect_level(h, 1, SHMCOLL_TOPO_L3, 2, 112, "SPR 224");
            CHECK(h->nlevels == 3, "SPR 224: %d levels", h->nlevels);
            shmcoll_topo_hier_destroy(h);
        }
        /* Bound to a core's two threads: placed at the core's first PU. */
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(6, &set);
        CPU_SET(7, &set);
        CHECK(shmcoll_topo_pu_of_binding(topo, &set) == 6, "binding to one core's threads");
        CPU_SET(8, &set);
        CHECK(shmcoll_topo_pu_of_binding(topo, &set) == -1, "binding across cores");
        CPU_ZERO(&set);
        CHECK(shmcoll_topo_pu_of_binding(topo, &set) == -1, "empty binding");
        CPU_SET(500, &set);
        CHECK(shmcoll_topo_pu_of_binding(topo, &set) == -1, "binding to a PU the topology lacks");
        shmcoll_topo_destroy(topo);
    }
    topo = load("pack:2 l3:1 numa:4 core:14 pu:2");
    if (topo) {
        shmcoll_topo_hier_t *h = team(topo, "linear", 224, "l3,numa,socket", 0, places);
        if (h) {
            expect_level(h, 0, SHMCOLL_TOPO_NUMA, 8, 28, "SPR SNC4 224");
            expect_level(h, 1, SHMCOLL_TOPO_L3, 2, 112, "SPR SNC4 224");
            CHECK(h->nlevels == 3, "SPR SNC4 224: %d levels", h->nlevels);
            shmcoll_topo_hier_destroy(h);
        }
        shmcoll_topo_destroy(topo);
    }
}

static void test_small_and_odd(void) {
    static shmcoll_topo_place_t places[MAXP];
    shmcoll_topo_t *topo = load("pack:1 numa:1 core:1 pu:1");
    if (topo) {
        for (int size = 1; size <= 4; size++) { /* oversubscribed: all on PU 0 */
            shmcoll_topo_hier_t *h = team(topo, "linear", size, "core,l3,numa,socket", 1, places);
            if (h) {
                CHECK(h->nlevels == 1 && h->levels[0].groups[0].nmembers == size,
                      "single core, %d ranks: flat", size);
                shmcoll_topo_hier_destroy(h);
            }
        }
        shmcoll_topo_caches_t c;
        CHECK(shmcoll_topo_caches(topo, 0, &c) == SHMCOLL_OK && c.llc_size == 0 &&
                  c.llc_level == 0 && c.cores_per_package == 1,
              "no caches");
        shmcoll_topo_destroy(topo);
    }
    /* 3 sockets of 5 cores. */
    topo = load("pack:3 numa:1 l3:1 core:5 pu:1");
    if (topo) {
        const int sizes[] = {1, 2, 3, 5, 6, 7, 11, 15, 16, 31};
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            int size = sizes[s];
            char what[64];
            snprintf(what, sizeof what, "3x5 linear %d", size);
            shmcoll_topo_hier_t *h = team(topo, "linear", size, "l3,numa,socket", 1, places);
            if (!h) continue;
            /* rank i on PU i mod 15: socket (i mod 15) / 5 */
            int used = size < 15 ? ceil_div(size, 5) : 3;
            CHECK(h->nlevels == (used > 1 ? 2 : 1), "%s: %d levels", what, h->nlevels);
            if (used > 1) expect_level(h, 0, SHMCOLL_TOPO_L3, used, 5, what);
            shmcoll_topo_hier_destroy(h);
            snprintf(what, sizeof what, "3x5 numa-rr %d", size);
            h = team(topo, "numa-rr", size, "socket", 1, places);
            if (!h) continue;
            /* one rank per socket splits nothing: that level is dropped */
            used = size < 3 ? size : 3;
            int split = used > 1 && used < size;
            CHECK(h->nlevels == (split ? 2 : 1), "%s: %d levels", what, h->nlevels);
            if (split) expect_level(h, 0, SHMCOLL_TOPO_SOCKET, used, 1, what);
            shmcoll_topo_hier_destroy(h);
        }
        shmcoll_topo_destroy(topo);
    }
    /* A machine with a deeper cache tree and odd counts everywhere. */
    topo = load("pack:3 numa:3 l3:1 l2:3 core:1 pu:3");
    if (topo) {
        const int sizes[] = {5, 26, 81};
        for (size_t s = 0; s < 3; s++) {
            shmcoll_topo_hier_t *h =
                team(topo, "linear", sizes[s], "core,l2,l3,numa,socket", 1, places);
            if (h) shmcoll_topo_hier_destroy(h);
            h = team(topo, "numa-rr", sizes[s], "core,l2,l3,numa,socket", 1, places);
            if (h) shmcoll_topo_hier_destroy(h);
        }
        shmcoll_topo_destroy(topo);
    }
}

/* Members not bound within a core make the hierarchy flat; bad inputs are errors. */
static void test_unbound_and_errors(void) {
    static shmcoll_topo_place_t places[MAXP];
    shmcoll_topo_t *topo = load("pack:2 numa:4 l3:2 core:8 pu:1");
    if (!topo) return;
    shmcoll_topo_hier_t *h = team(topo, "0,64,-1,65", 4, "l3,numa,socket", 0, places);
    if (h) {
        CHECK(h->nlevels == 1 && h->levels[0].ngroups == 1, "unbound member: flat");
        shmcoll_topo_hier_destroy(h);
    }
    int pu[8];
    CHECK(shmcoll_topo_map(topo, "0,1", 4, pu, error, sizeof error) == SHMCOLL_ERR_INVALID &&
              strstr(error, "2 PUs for 4 ranks"),
          "short list: %s", error);
    CHECK(shmcoll_topo_map(topo, "0,999", 2, pu, error, sizeof error) == SHMCOLL_ERR_INVALID &&
              strstr(error, "999"),
          "unknown PU: %s", error);
    CHECK(shmcoll_topo_map(topo, "0;1", 2, pu, error, sizeof error) == SHMCOLL_ERR_INVALID,
          "bad separator");
    CHECK(shmcoll_topo_map(topo, "round-robin", 2, pu, error, sizeof error) ==
                  SHMCOLL_ERR_INVALID &&
              strstr(error, "round-robin"),
          "unknown mapping: %s", error);
    CHECK(shmcoll_topo_place(topo, 128, &places[0]) == SHMCOLL_ERR_INVALID, "place of PU 128");

    shmcoll_topo_kind_t kinds[SHMCOLL_TOPO_MAX_LEVELS];
    int n;
    CHECK(shmcoll_topo_levels_parse("l3,numa,sockets", kinds, &n, error, sizeof error) ==
                  SHMCOLL_ERR_INVALID &&
              strstr(error, "'sockets'"),
          "bad token named: %s", error);
    CHECK(shmcoll_topo_levels_parse("l3,,numa", kinds, &n, error, sizeof error) ==
              SHMCOLL_ERR_INVALID,
          "empty token");
    CHECK(shmcoll_topo_levels_parse("l3,", kinds, &n, error, sizeof error) == SHMCOLL_ERR_INVALID,
          "trailing comma");
    CHECK(shmcoll_topo_levels_parse("l3 numa", kinds, &n, error, sizeof error) ==
              SHMCOLL_ERR_INVALID,
          "missing comma");
    CHECK(shmcoll_topo_levels_parse(" L2 , core+pack", kinds, &n, error, sizeof error) ==
                  SHMCOLL_OK &&
              n == 3 && kinds[0] == SHMCOLL_TOPO_L2 && kinds[1] == SHMCOLL_TOPO_CORE &&
              kinds[2] == SHMCOLL_TOPO_SOCKET,
          "spaces, case, '+' and pack");
    CHECK(shmcoll_topo_hier_build(places, 4, kinds, 1, 4, &h) == SHMCOLL_ERR_INVALID,
          "root out of range");
    shmcoll_topo_t *bad = NULL;
    CHECK(shmcoll_topo_load_synthetic("pack:2 bogus:3 pu:1", &bad, error, sizeof error) ==
                  SHMCOLL_ERR_INVALID &&
              !bad,
          "bad synthetic description");
    CHECK(shmcoll_topo_load_xml("no-such-topology.xml", &bad, error, sizeof error) ==
                  SHMCOLL_ERR_INVALID &&
              !bad,
          "missing XML file");
    shmcoll_topo_destroy(topo);
}

/* ---- this machine and XML ----------------------------------------------------------------- */

static void test_this_machine(void) {
    shmcoll_topo_t *topo = NULL;
    CHECK(shmcoll_topo_load(NULL, &topo, error, sizeof error) == SHMCOLL_OK, "%s", error);
    if (!topo) return;
    int npus = shmcoll_topo_npus(topo);
    CHECK(npus >= 1 && npus <= MAXP * 64, "this machine: %d PUs", npus);
    CHECK(shmcoll_topo_count(topo, SHMCOLL_TOPO_CORE) >= 1 &&
              shmcoll_topo_count(topo, SHMCOLL_TOPO_CORE) <= npus,
          "cores");
    CHECK(shmcoll_topo_count(topo, SHMCOLL_TOPO_NUMA) >= 1, "NUMA nodes");
    shmcoll_topo_caches_t c;
    CHECK(shmcoll_topo_caches(topo, -1, &c) == SHMCOLL_OK, "caches");
    CHECK(c.llc_level >= 0 && c.llc_level <= 4 && c.cores_per_package >= 1 &&
              (c.llc_level == 0) == (c.llc_size == 0) &&
              (c.l2_size == 0 || c.llc_size >= c.l2_size),
          "this machine's caches: L%d %zu, L2 %zu", c.llc_level, c.llc_size, c.l2_size);
    printf("this machine: %d PUs, %d cores, %d NUMA, LLC L%d %zu KiB (%s, %d cores), L2 %zu KiB, "
           "%d cores per package\n",
           npus, shmcoll_topo_count(topo, SHMCOLL_TOPO_CORE),
           shmcoll_topo_count(topo, SHMCOLL_TOPO_NUMA), c.llc_level, c.llc_size >> 10,
           c.llc_inclusive ? "inclusive" : "non-inclusive", c.llc_cores, c.l2_size >> 10,
           c.cores_per_package);

    /* One member bound to each PU this process may use, as measured bindings. */
    cpu_set_t mine;
    shmcoll_topo_affinity(&mine);
    int pu[MAXP], size = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && size < MAXP; cpu++) {
        if (!CPU_ISSET(cpu, &mine)) continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        pu[size] = shmcoll_topo_pu_of_binding(topo, &one);
        CHECK(pu[size] == cpu, "binding to CPU %d gives PU %d", cpu, pu[size]);
        size++;
    }
    int own = shmcoll_topo_pu_of_binding(topo, &mine);
    CHECK(own == -1 || CPU_COUNT(&mine) == 1 || shmcoll_topo_count(topo, SHMCOLL_TOPO_CORE) == 1,
          "an unbound process is placed at %d", own);
    static shmcoll_topo_place_t places[MAXP];
    places_of(topo, pu, size, places);
    for (int r = 0; r < size; r++)
        CHECK(places[r].pu == pu[r] && places[r].obj[SHMCOLL_TOPO_NODE] == 0 &&
                  places[r].obj[SHMCOLL_TOPO_NUMA] >= 0,
              "place of PU %d", pu[r]);
    shmcoll_topo_hier_t *h = topo_check_hier_build(places, size, "core,l2,l3,numa,socket", -1);
    if (h) {
        check_invariants(h, NULL, "this machine");
        shmcoll_topo_hier_print(h, stdout);
        shmcoll_topo_hier_destroy(h);
    }
    shmcoll_topo_destroy(topo);
}

/* This machine's topology is loaded without hwloc's x86 backend, which binds the loading thread
 * to each PU in turn (topo_load.c); the caches' inclusiveness it read there comes from the
 * calling core's CPUID instead (topo_cpuid.c): the LLC's must be what hwloc's own discovery, the
 * x86 backend included, says (inclusive where it says nothing, as topo_cache.c assumes). */
static void test_inclusive_as_hwloc(void) {
    shmcoll_topo_t *topo = NULL;
    CHECK(shmcoll_topo_load(NULL, &topo, error, sizeof error) == SHMCOLL_OK, "%s", error);
    hwloc_topology_t hw;
    if (!topo || hwloc_topology_init(&hw) != 0) return;
    hwloc_topology_set_io_types_filter(hw, HWLOC_TYPE_FILTER_KEEP_NONE);
    if (hwloc_topology_load(hw) == 0) {
        const char *said = NULL;
        hwloc_obj_t pu = hwloc_get_obj_by_type(hw, HWLOC_OBJ_PU, 0);
        for (hwloc_obj_t obj = pu ? pu->parent : NULL; obj; obj = obj->parent)
            if (hwloc_obj_type_is_dcache(obj->type) &&
                obj->attr->cache.type != HWLOC_OBJ_CACHE_INSTRUCTION)
                said = hwloc_obj_get_info_by_name(obj, "Inclusive"); /* the outermost's */
        shmcoll_topo_caches_t c;
        CHECK(shmcoll_topo_caches(topo, -1, &c) == SHMCOLL_OK, "caches");
        CHECK(c.llc_inclusive == (!said || strcmp(said, "0") != 0),
              "LLC inclusive %d where hwloc's x86 backend says %s", c.llc_inclusive,
              said ? said : "nothing");
    }
    hwloc_topology_destroy(hw);
    shmcoll_topo_destroy(topo);
}

static int same_hierarchy(const shmcoll_topo_hier_t *a, const shmcoll_topo_hier_t *b) {
    if (a->nlevels != b->nlevels || a->size != b->size) return 0;
    for (int i = 0; i < a->nlevels; i++) {
        const shmcoll_topo_level_t *x = &a->levels[i], *y = &b->levels[i];
        if (x->kind != y->kind || x->ngroups != y->ngroups ||
            memcmp(x->group_of, y->group_of, sizeof(int) * (size_t)a->size) ||
            memcmp(x->slot, y->slot, sizeof(int) * (size_t)a->size))
            return 0;
        for (int g = 0; g < x->ngroups; g++)
            if (x->groups[g].leader != y->groups[g].leader) return 0;
    }
    return 1;
}

static void test_xml(void) {
    const char *tmp = getenv("TMPDIR");
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/shmcoll-topo-XXXXXX", tmp && *tmp ? tmp : P_tmpdir);
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp %s", dir);
        return;
    }
    snprintf(path, sizeof path, "%s/epyc.xml", dir);
    static shmcoll_topo_place_t places[MAXP], places_xml[MAXP];
    int pu[MAXP];

    /* Synthetic -> XML -> same placements and the same hierarchy. */
    shmcoll_topo_t *topo = load("pack:2 numa:4 l3:2 core:8 pu:1"), *back = NULL;
    if (topo) {
        CHECK(shmcoll_topo_export_xml(topo, path, error, sizeof error) == SHMCOLL_OK, "%s", error);
        CHECK(shmcoll_topo_load(path, &back, error, sizeof error) == SHMCOLL_OK, "%s", error);
    }
    if (topo && back) {
        CHECK(shmcoll_topo_npus(back) == shmcoll_topo_npus(topo), "XML PUs");
        for (int k = 0; k < SHMCOLL_TOPO_NKINDS; k++)
            CHECK(shmcoll_topo_count(back, k) == shmcoll_topo_count(topo, k), "XML count of %s",
                  shmcoll_topo_kind_name(k));
        const char *maps[] = {"linear", "numa-rr"};
        for (int m = 0; m < 2; m++) {
            CHECK(shmcoll_topo_map(topo, maps[m], 100, pu, error, sizeof error) == SHMCOLL_OK, "%s",
                  error);
            places_of(topo, pu, 100, places);
            CHECK(shmcoll_topo_map(back, maps[m], 100, pu, error, sizeof error) == SHMCOLL_OK, "%s",
                  error);
            places_of(back, pu, 100, places_xml);
            CHECK(!memcmp(places, places_xml, sizeof(shmcoll_topo_place_t) * 100),
                  "XML placements differ (%s)", maps[m]);
            shmcoll_topo_hier_t *a = topo_check_hier_build(places, 100, "l3,numa,socket", 42);
            shmcoll_topo_hier_t *b = topo_check_hier_build(places_xml, 100, "l3,numa,socket", 42);
            CHECK(a && b && same_hierarchy(a, b), "XML hierarchy differs (%s)", maps[m]);
            shmcoll_topo_hier_destroy(a);
            shmcoll_topo_hier_destroy(b);
        }
    }
    shmcoll_topo_destroy(back);
    shmcoll_topo_destroy(topo);
    unlink(path);

    /* A non-inclusive LLC, as hwloc records it on x86: Inclusive=0 on the cache. */
    hwloc_topology_t hw;
    back = NULL;
    if (hwloc_topology_init(&hw) == 0) {
        if (hwloc_topology_set_synthetic(hw, "pack:2 numa:1 l3:1(size=32MiB) l2:4(size=2MiB) "
                                             "core:1 pu:2") == 0 &&
            hwloc_topology_load(hw) == 0) {
            for (hwloc_obj_t l3 = hwloc_get_next_obj_by_type(hw, HWLOC_OBJ_L3CACHE, NULL); l3;
                 l3 = hwloc_get_next_obj_by_type(hw, HWLOC_OBJ_L3CACHE, l3))
                hwloc_obj_add_info(l3, "Inclusive", "0");
            CHECK(hwloc_topology_export_xml(hw, path, 0) == 0, "export");
            CHECK(shmcoll_topo_load(path, &back, error, sizeof error) == SHMCOLL_OK, "%s", error);
        }
        hwloc_topology_destroy(hw);
    }
    if (back) {
        shmcoll_topo_caches_t c;
        CHECK(shmcoll_topo_caches(back, 9, &c) == SHMCOLL_OK && !c.llc_inclusive &&
                  c.llc_size == 32u << 20 && c.l2_size == 2u << 20 && c.llc_cores == 4 &&
                  c.cores_per_package == 4,
              "non-inclusive LLC: inclusive %d llc %zu l2 %zu cores %d/%d", c.llc_inclusive,
              c.llc_size, c.l2_size, c.llc_cores, c.cores_per_package);
        shmcoll_topo_destroy(back);
    }
    unlink(path);
    CHECK(rmdir(dir) == 0, "temporary directory left behind");
}

/* The example of the documentation: 64 ranks, linear, on 2 x 2 NUMA x 2 L3 x 8 cores. */
static void print_example(void) {
    static shmcoll_topo_place_t places[MAXP];
    shmcoll_topo_t *topo = load("pack:2 numa:2 l3:2 core:8 pu:1");
    if (!topo) return;
    shmcoll_topo_hier_t *h = team(topo, "linear", 64, "l3,numa,socket", 1, places);
    if (h) {
        expect_level(h, 0, SHMCOLL_TOPO_L3, 8, 8, "example");
        expect_level(h, 1, SHMCOLL_TOPO_NUMA, 4, 16, "example");
        expect_level(h, 2, SHMCOLL_TOPO_SOCKET, 2, 32, "example");
        expect_level(h, 3, SHMCOLL_TOPO_NODE, 1, 1, "example");
        char line[256];
        shmcoll_topo_hier_format_level(h, 2, line, sizeof line);
        CHECK(strcmp(line, "level 2: socket groups=2 leaders=0,32") == 0, "format: %s", line);
        shmcoll_topo_hier_print(h, stdout);
        shmcoll_topo_hier_destroy(h);
    }
    shmcoll_topo_destroy(topo);
}

int main(void) {
    test_epyc();
    test_grace();
    test_sapphire_rapids();
    test_small_and_odd();
    test_unbound_and_errors();
    test_this_machine();
    test_inclusive_as_hwloc();
    test_xml();
    print_example();
    if (check_failures()) {
        fprintf(stderr, "test_topo: %ld failures\n", check_failures());
        return 1;
    }
    printf("test_topo: ok\n");
    return 0;
}
