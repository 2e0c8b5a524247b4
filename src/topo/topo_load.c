/* Loading, exporting and destroying topologies. Every load goes through one function so the
 * filters are the same whatever the source: I/O objects are never needed, instruction caches are
 * dropped (they would sit between L1d and the core and change nothing we use). */
#include "topo/topo_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { SOURCE_MACHINE, SOURCE_SYNTHETIC, SOURCE_XML } source_t;

/* This machine's topology is loaded without moving the caller: hwloc's x86 backend binds the
 * loading thread to each PU in turn to read its CPUID, which moves it onto the core of a peer
 * that spins in the MPI library (an unbound rank comes back to share a core with it until the
 * scheduler balances them again), and in a threaded program changes the binding the application
 * gave the thread, if only for a while. The team's setup at a communicator's first collective
 * took 7-12 ms with it (MPICH, p = 2: its next exchange waited 3-5 ms for the ranks' common core),
 * 1.4-2 ms without. What the placement needs (PUs, cores, caches, NUMA nodes) comes from the
 * operating system's tables, and the caches' inclusiveness, which only the x86 backend gave, from
 * this core's CPUID (topo_cpuid.c). */
static void keep_binding(hwloc_topology_t hw) {
#if HWLOC_API_VERSION >= 0x00020500
    hwloc_topology_set_flags(hw, HWLOC_TOPOLOGY_FLAG_DONT_CHANGE_BINDING);
#else
    hwloc_topology_set_components(hw, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
#endif
}

static shmcoll_status_t load(source_t source, const char *arg, shmcoll_topo_t **out, char *error,
                             size_t error_len) {
    *out = NULL;
    shmcoll_topo_t *topo = calloc(1, sizeof *topo);
    if (!topo) return SHMCOLL_ERR_NO_MEMORY;
    if (hwloc_topology_init(&topo->hw) != 0) {
        snprintf(error, error_len, "hwloc_topology_init failed: %s", strerror(errno));
        free(topo);
        return SHMCOLL_ERR_SYSTEM;
    }
    hwloc_topology_set_io_types_filter(topo->hw, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_icache_types_filter(topo->hw, HWLOC_TYPE_FILTER_KEEP_NONE);
    if (source == SOURCE_MACHINE) keep_binding(topo->hw);
    int rc = 0;
    const char *what = "this machine";
    if (source == SOURCE_SYNTHETIC) {
        what = "synthetic description";
        rc = hwloc_topology_set_synthetic(topo->hw, arg);
    } else if (source == SOURCE_XML) {
        what = "XML file";
        rc = hwloc_topology_set_xml(topo->hw, arg);
    }
    if (rc == 0) rc = hwloc_topology_load(topo->hw);
    if (rc == 0 && source == SOURCE_MACHINE) shmcoll_topo_add_inclusive(topo->hw);
    if (rc != 0) {
        int err = errno;
        snprintf(error, error_len, "cannot load the topology of %s%s%s%s: %s", what,
                 arg ? " \"" : "", arg ? arg : "", arg ? "\"" : "", strerror(err));
        hwloc_topology_destroy(topo->hw);
        free(topo);
        return source == SOURCE_MACHINE ? SHMCOLL_ERR_SYSTEM : SHMCOLL_ERR_INVALID;
    }
    *out = topo;
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_topo_load_machine(shmcoll_topo_t **topo, char *error, size_t error_len) {
    return load(SOURCE_MACHINE, NULL, topo, error, error_len);
}

shmcoll_status_t shmcoll_topo_load_synthetic(const char *description, shmcoll_topo_t **topo,
                                             char *error, size_t error_len) {
    return load(SOURCE_SYNTHETIC, description, topo, error, error_len);
}

shmcoll_status_t shmcoll_topo_load_xml(const char *path, shmcoll_topo_t **topo, char *error,
                                       size_t error_len) {
    return load(SOURCE_XML, path, topo, error, error_len);
}

shmcoll_status_t shmcoll_topo_load(const char *spec, shmcoll_topo_t **topo, char *error,
                                   size_t error_len) {
    if (!spec || !*spec) return shmcoll_topo_load_machine(topo, error, error_len);
    size_t len = strlen(spec);
    if (len > 4 && strcmp(spec + len - 4, ".xml") == 0)
        return shmcoll_topo_load_xml(spec, topo, error, error_len);
    return shmcoll_topo_load_synthetic(spec, topo, error, error_len);
}

void shmcoll_topo_destroy(shmcoll_topo_t *topo) {
    if (!topo) return;
    hwloc_topology_destroy(topo->hw);
    free(topo);
}

shmcoll_status_t shmcoll_topo_export_xml(const shmcoll_topo_t *topo, const char *path, char *error,
                                         size_t error_len) {
    if (hwloc_topology_export_xml(topo->hw, path, 0) != 0) {
        snprintf(error, error_len, "cannot export the topology to %s: %s", path, strerror(errno));
        return SHMCOLL_ERR_SYSTEM;
    }
    return SHMCOLL_OK;
}
