/* Where a team member runs, as plain integers that can be allgathered and compared: for each kind
 * of topology level, the logical index of the object (core, cache, NUMA node, package) that
 * contains the member's CPU. The hierarchy (hierarchy.h) is built from these alone, so it is the
 * same on every member and never needs hwloc. Also the names of the levels and the parser of a
 * sensitivity list such as "l3,numa,socket". */
#ifndef SHMCOLL_TOPO_PLACE_H
#define SHMCOLL_TOPO_PLACE_H

#include "base/status.h"

#include <stddef.h>

typedef enum shmcoll_topo_kind {
    SHMCOLL_TOPO_CORE = 0,
    SHMCOLL_TOPO_L1,
    SHMCOLL_TOPO_L2,
    SHMCOLL_TOPO_L3,
    SHMCOLL_TOPO_NUMA,
    SHMCOLL_TOPO_SOCKET, /* hwloc's package */
    SHMCOLL_TOPO_NODE,   /* the whole team: the top level of every hierarchy */
    SHMCOLL_TOPO_NKINDS
} shmcoll_topo_kind_t;

typedef struct shmcoll_topo_place {
    int pu; /* OS index of the member's PU; -1: not bound within one core (placement unknown) */
    int obj[SHMCOLL_TOPO_NKINDS]; /* logical index per kind; -1 where the machine has no such
                                     object (e.g. no L3); obj[NODE] is 0 when pu >= 0 */
} shmcoll_topo_place_t;

/* A place with nothing known (pu = -1, every obj -1). */
void shmcoll_topo_place_unknown(shmcoll_topo_place_t *place);

/* "core", "l1", "l2", "l3", "numa", "socket", "node". */
const char *shmcoll_topo_kind_name(shmcoll_topo_kind_t kind);

/* Most levels a sensitivity list may name. */
#define SHMCOLL_TOPO_MAX_LEVELS 16

/* Parses a sensitivity list: level names separated by ',' or '+' (XHC writes "numa+socket"),
 * spaces ignored; "package" and "pack" are accepted for "socket". An empty list is valid (a flat
 * hierarchy). On a bad token returns INVALID with a message naming it in error. */
shmcoll_status_t shmcoll_topo_levels_parse(const char *list, shmcoll_topo_kind_t *kinds,
                                           int *nkinds, char *error, size_t error_len);

#endif
