/* A team's view of the machine: where each member runs (allgathered at team creation) and the
 * topology hierarchies built from that, cached per (sensitivity list, root). Every member builds
 * the same hierarchy from the same places, so hierarchical algorithms need no agreement. */
#ifndef SHMCOLL_CORE_TEAM_TOPO_H
#define SHMCOLL_CORE_TEAM_TOPO_H

#include "base/status.h"
#include "topo/hierarchy.h"
#include "topo/place.h"

#include <sched.h>

#define SHMCOLL_TEAM_HIER_CACHE 8

typedef struct shmcoll_team_hier_entry {
    char levels[64];
    int root;
    int refs;                  /* tasks in flight holding it */
    shmcoll_topo_hier_t *hier; /* NULL: empty entry */
} shmcoll_team_hier_entry_t;

/* A team's hierarchies, built from where its members run, cached per (sensitivity list, root). */
typedef struct shmcoll_team_hiers {
    const shmcoll_topo_place_t *places; /* of every member */
    int size;
    shmcoll_team_hier_entry_t cache[SHMCOLL_TEAM_HIER_CACHE];
    int next;
    int pinned; /* the first entries stay for the team's life */
} shmcoll_team_hiers_t;

/* Loads the configured topology now (as the first place_self would), where its cost is out of
 * the way: at MPI_Init, not in a communicator's first collective. hwloc's first load in a
 * process dlopens its plugins (OpenGL, OpenCL, PCI: 4-5 ms under Open MPI, whose own start
 * had not loaded them) and reads the operating system's tables (1-2 ms): that was most of a
 * team's setup, which a program timing its first calls of a size paid in them. */
void shmcoll_team_topo_load(void);

/* This member's place: the configured topology (SHMCOLL_TOPO: this machine, or an injected
 * synthetic/XML one) at the PU of its CPU binding, or at the PU the injected mapping
 * (SHMCOLL_MAP) gives rank `rank` of `size`. Unknown (flat hierarchy) when either is unusable; a
 * malformed setting is reported once. Local, cheap after the first call (the topology is loaded
 * once per process and setting). */
void shmcoll_team_topo_place_self(int rank, int size, const cpu_set_t *affinity,
                                  shmcoll_topo_place_t *place);

/* The NUMA node (OS index) local to every CPU of this member's binding, where the team's
 * segment places the slots it writes (see team.c, place_slots); -1 when unknown: not bound
 * within one node, or SHMCOLL_TOPO injects another machine. */
int shmcoll_team_topo_memory_node(const cpu_set_t *affinity);

/* The cache capacity non-temporal decisions compare working sets with (YHCCL §4): the LLC over
 * this member's PU (or the first PU when unplaced) of the configured topology, plus every core's
 * L2 when the LLC is not inclusive; 0 when the topology does not say (copies stay temporal). */
size_t shmcoll_team_topo_usable_cache(const shmcoll_topo_place_t *place);

/* The cache this member's core has to itself below the shared LLC (its L2), for choosing the
 * copy loop of buffers in memory; 0 when the topology does not say or the L2 is the LLC. */
size_t shmcoll_team_topo_private_cache(const shmcoll_topo_place_t *place);

/* The cores the team copies with at once per memory domain, for the same decisions: as many
 * members as run at once (size, at most ncpus, the CPUs their bindings allow), spread over the
 * NUMA domains their places name, or over all of the topology's when no place is known
 * (rounded up: a domain with any of them streams). */
int shmcoll_team_topo_streaming_cores(const shmcoll_topo_place_t *places, int size, int ncpus);

/* The hierarchy of the team over `levels` (a sensitivity list such as "l3,numa,socket"), with
 * `root` leading its groups (-1: lowest ranks lead). Built on first use and cached in the team;
 * INVALID when the list does not parse. Valid until the next lookup: a later one may replace
 * it in the cache. */
shmcoll_status_t shmcoll_team_hierarchy(shmcoll_team_hiers_t *hiers, const char *levels, int root,
                                        const shmcoll_topo_hier_t **hier);

/* The same, held until shmcoll_team_hierarchy_release: for a task, whose hierarchy must outlive
 * the lookups of the tasks started after it. */
shmcoll_status_t shmcoll_team_hierarchy_take(shmcoll_team_hiers_t *hiers, const char *levels,
                                             int root, const shmcoll_topo_hier_t **hier);
void shmcoll_team_hierarchy_release(shmcoll_team_hiers_t *hiers, const shmcoll_topo_hier_t *hier);

/* Builds the hierarchy over `levels` rooted at the lowest ranks and keeps it in the cache for
 * the team's life, so that choices made from it later never depend on an allocation: called at
 * team creation, where a failure is agreed on by all members. A list that does not parse is
 * no failure (every member sees a flat machine). */
shmcoll_status_t shmcoll_team_hierarchy_pin(shmcoll_team_hiers_t *hiers, const char *levels);

/* The team's socket groups when they have equal sizes: the hierarchy level that groups by
 * socket, or NULL (one socket, unknown placement, unequal groups, one member per socket: the
 * hierarchy has no level of single members). The two-level reductions build on it. */
const shmcoll_topo_level_t *shmcoll_team_socket_level(shmcoll_team_hiers_t *hiers);

/* The number of those groups, 0 when there are none. */
int shmcoll_team_socket_groups(shmcoll_team_hiers_t *hiers);

/* Frees the cached hierarchies. */
void shmcoll_team_topo_release(shmcoll_team_hiers_t *hiers);

#endif
