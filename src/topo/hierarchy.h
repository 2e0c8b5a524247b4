/* The n-level topology hierarchy of a team (XHC, Katevenis et al., section III-A): members are
 * grouped by the object they share at each level of a sensitivity list such as "l3,numa,socket";
 * each group has a leader, only the leaders of level i take part in level i+1, and the top level
 * is one group of the remaining leaders, the whole team. Data then crosses a socket or NUMA
 * boundary once per group instead of once per member.
 *
 * Rules, all derived from the members' places (place.h) and the arguments, so every member that
 * computes the hierarchy from the same allgathered places gets the same one:
 *  - Levels are applied from the finest to the coarsest (by how many distinct objects the members
 *    occupy; list order on ties), whatever order the list gives them in: on a machine whose L3
 *    spans a socket split into NUMA nodes (sub-NUMA clustering), "l3,numa" still groups by NUMA
 *    first.
 *  - Level i's partition of the team is the finest one that is coarser than both level i-1's and
 *    the grouping by the level-i object, so groups always nest even where the hardware does not.
 *  - A level whose partition equals the one below it, or is already the whole team, is dropped;
 *    a level some member has no object for (no L3 on the machine) is ignored.
 *  - Members with unknown placement (not bound within a core): a flat hierarchy, one level.
 *  - Leaders: the lowest team rank of each group, except that a given root leads every group it
 *    is in, at every level. The partitions (which ranks each group covers) do not depend on the
 *    root; only the choice of leaders does.
 * Level 0 is the finest; the last level is always kind NODE with one group. */
#ifndef SHMCOLL_TOPO_HIERARCHY_H
#define SHMCOLL_TOPO_HIERARCHY_H

#include "base/status.h"
#include "topo/place.h"

#include <stdio.h>

typedef struct shmcoll_topo_group {
    int leader;   /* team rank */
    int nmembers; /* members take part at this level: all ranks at level 0, else the leaders
                     of the level-below groups this group covers */
    int *members; /* ascending team ranks */
} shmcoll_topo_group_t;

typedef struct shmcoll_topo_level {
    shmcoll_topo_kind_t kind;
    int ngroups;
    shmcoll_topo_group_t *groups; /* ordered by the lowest team rank each covers */
    int *group_of;                /* [size] the group covering each team rank */
    int *slot;                    /* [size] index in its group's members; -1: not taking part */
    int contiguous; /* every group covers a contiguous range of team ranks (what a hierarchical
                       reduction needs to keep a non-commutative operation in rank order) */
} shmcoll_topo_level_t;

typedef struct shmcoll_topo_hier {
    int size;
    int root; /* -1 when built without a root */
    int nlevels;
    shmcoll_topo_level_t levels[SHMCOLL_TOPO_MAX_LEVELS + 1];
} shmcoll_topo_hier_t;

/* Builds the hierarchy of `size` members from their places and a sensitivity list (kinds in any
 * order; NODE entries and repeats are ignored). root: a team rank or -1. INVALID on bad
 * arguments, NO_MEMORY. */
shmcoll_status_t shmcoll_topo_hier_build(const shmcoll_topo_place_t *places, int size,
                                         const shmcoll_topo_kind_t *kinds, int nkinds, int root,
                                         shmcoll_topo_hier_t **hier);

void shmcoll_topo_hier_destroy(shmcoll_topo_hier_t *hier);

/* Number of levels rank takes part in (levels 0 .. n-1): 1 for a member that leads nothing. */
int shmcoll_topo_hier_depth_of(const shmcoll_topo_hier_t *hier, int rank);

/* One line "level <i>: <kind> groups=<g> leaders=<r0>,<r1>,..." (truncated to len). */
void shmcoll_topo_hier_format_level(const shmcoll_topo_hier_t *hier, int level, char *text,
                                    size_t len);

/* All levels, one line each. */
void shmcoll_topo_hier_print(const shmcoll_topo_hier_t *hier, FILE *out);

#endif
