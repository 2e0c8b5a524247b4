/* The machine as hwloc sees it, reduced to what shmcoll needs: where each team member runs
 * (place.h), how members map to PUs when the mapping is injected, and cache sizes.
 *
 * A topology comes from this machine or is injected — an hwloc synthetic description such as
 * "pack:2 numa:4 l3:2 core:8 pu:1", or an XML file exported by hwloc (lstopo file.xml or
 * shmcoll_topo_export_xml) — so hierarchies of machines we do not have are reproducible in tests
 * and from user reports. The object is opaque: hwloc stays inside topo/. */
#ifndef SHMCOLL_TOPO_TOPO_H
#define SHMCOLL_TOPO_TOPO_H

#include "base/status.h"
#include "topo/place.h"

#include <sched.h>
#include <stddef.h>

typedef struct shmcoll_topo shmcoll_topo_t;

/* Loads this machine's topology. */
shmcoll_status_t shmcoll_topo_load_machine(shmcoll_topo_t **topo, char *error, size_t error_len);

/* Loads an hwloc synthetic description (hwloc 2 syntax; short names like "pack", "numa", "l3"
 * are hwloc's own). INVALID with hwloc's complaint on a bad description. */
shmcoll_status_t shmcoll_topo_load_synthetic(const char *description, shmcoll_topo_t **topo,
                                             char *error, size_t error_len);

/* Loads an hwloc XML export. */
shmcoll_status_t shmcoll_topo_load_xml(const char *path, shmcoll_topo_t **topo, char *error,
                                       size_t error_len);

/* One entry point for a setting: NULL or "" = this machine, a name ending in ".xml" = an XML
 * file, anything else = a synthetic description. */
shmcoll_status_t shmcoll_topo_load(const char *spec, shmcoll_topo_t **topo, char *error,
                                   size_t error_len);

void shmcoll_topo_destroy(shmcoll_topo_t *topo);

/* Writes the topology as hwloc XML (to reproduce this machine elsewhere). */
shmcoll_status_t shmcoll_topo_export_xml(const shmcoll_topo_t *topo, const char *path, char *error,
                                         size_t error_len);

/* Number of PUs, and of objects of a kind (NODE: 1). */
int shmcoll_topo_npus(const shmcoll_topo_t *topo);
int shmcoll_topo_count(const shmcoll_topo_t *topo, shmcoll_topo_kind_t kind);

/* OS index of the PU with the given logical index, -1 if out of range. */
int shmcoll_topo_pu_os(const shmcoll_topo_t *topo, int logical);

/* The place of a member running on PU pu_os (an OS index), or the unknown place for -1.
 * INVALID if the topology has no such PU. */
shmcoll_status_t shmcoll_topo_place(const shmcoll_topo_t *topo, int pu_os,
                                    shmcoll_topo_place_t *place);

/* The PU that represents a CPU binding: the binding's lowest PU if all of its PUs are in one
 * core (a process bound to a core's hardware threads is placed exactly at every level from core
 * up), else -1 (not bound, or bound more widely: placement unknown). */
int shmcoll_topo_pu_of_binding(const shmcoll_topo_t *topo, const cpu_set_t *binding);

/* The OS index of the NUMA node local to the binding's first PU (as a place's NUMA level takes
 * it) when every CPU of the binding is in it, for placing the memory a process writes; -1 when
 * not (not bound, or bound across nodes) or the topology is not this machine's (injected). */
int shmcoll_topo_memory_node(const shmcoll_topo_t *topo, const cpu_set_t *binding);

/* An injected rank -> PU mapping for `size` ranks, written as OS indices to pu_os[size]:
 *   "linear"   rank i on the PU of logical index i mod npus;
 *   "numa-rr"  rank i on NUMA node i mod nnuma, taking that node's PUs in order;
 *   "0,8,16,…" an explicit list of PU OS indices, at least `size` of them; -1 = not bound.
 * INVALID with a message naming the problem otherwise. */
shmcoll_status_t shmcoll_topo_map(const shmcoll_topo_t *topo, const char *spec, int size,
                                  int *pu_os, char *error, size_t error_len);

/* Cache facts for choosing between temporal and non-temporal copies. Sizes are 0 when the
 * topology does not say. */
typedef struct shmcoll_topo_caches {
    size_t llc_size;       /* the last-level cache over the PU */
    int llc_level;         /* its level (3 for an L3), 0 when there is no cache */
    int llc_inclusive;     /* 1 unless hwloc says Inclusive=0 */
    int llc_cores;         /* cores sharing that cache */
    size_t l2_size;        /* the L2 over the PU, 0 if none */
    size_t line;           /* cache line of the LLC (64 when unknown) */
    int cores_per_package; /* cores in the PU's package (all cores when there are no packages) */
} shmcoll_topo_caches_t;

/* Cache facts seen from PU pu_os, or from the first PU for -1. */
shmcoll_status_t shmcoll_topo_caches(const shmcoll_topo_t *topo, int pu_os,
                                     shmcoll_topo_caches_t *caches);

#endif
