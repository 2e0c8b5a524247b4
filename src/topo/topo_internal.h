/* The topology object, shared by the files of topo/ only. */
#ifndef SHMCOLL_TOPO_INTERNAL_H
#define SHMCOLL_TOPO_INTERNAL_H

#include "topo/topo.h"

#include <hwloc.h>

struct shmcoll_topo {
    hwloc_topology_t hw;
};

/* The PU object of an OS index, or NULL. */
hwloc_obj_t shmcoll_topo_pu_obj(const shmcoll_topo_t *topo, int pu_os);

/* The NUMA node of a PU: the one with the smallest cpuset containing it (the local one when
 * memory-only or machine-wide nodes also cover it), lowest logical index on ties; NULL if none. */
hwloc_obj_t shmcoll_topo_numa_of(const shmcoll_topo_t *topo, hwloc_obj_t pu);

/* Whether a topology object is a data or unified cache (topo_cache.c). */
int shmcoll_topo_is_data_cache(hwloc_obj_t obj);

/* Adds to this machine's data caches that lack it the info "Inclusive" ("1" or "0") hwloc's x86
 * backend would have given them, from the calling core's CPUID (topo_cpuid.c). */
void shmcoll_topo_add_inclusive(hwloc_topology_t hw);

#endif
