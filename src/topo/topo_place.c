/* Placement of members: PU -> containing objects, CPU binding -> PU, injected rank -> PU maps.
 *
 * Objects are identified by their index among all objects of their type (hwloc's logical index,
 * made unique should a type sit at several depths), so the numbers mean the same on every member
 * that loaded the same topology and can be compared after an allgather. */
#include "topo/topo_internal.h"

#include <ctype.h>
#include <errno.h>
#include <hwloc/glibc-sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* hwloc object type of a level kind (NUMA is a memory object in hwloc 2; NODE the machine). */
static hwloc_obj_type_t kind_type(shmcoll_topo_kind_t kind) {
    switch (kind) {
    case SHMCOLL_TOPO_CORE:
        return HWLOC_OBJ_CORE;
    case SHMCOLL_TOPO_L1:
        return HWLOC_OBJ_L1CACHE;
    case SHMCOLL_TOPO_L2:
        return HWLOC_OBJ_L2CACHE;
    case SHMCOLL_TOPO_L3:
        return HWLOC_OBJ_L3CACHE;
    case SHMCOLL_TOPO_NUMA:
        return HWLOC_OBJ_NUMANODE;
    case SHMCOLL_TOPO_SOCKET:
        return HWLOC_OBJ_PACKAGE;
    default:
        return HWLOC_OBJ_MACHINE;
    }
}

hwloc_obj_t shmcoll_topo_pu_obj(const shmcoll_topo_t *topo, int pu_os) {
    if (pu_os < 0) return NULL;
    return hwloc_get_pu_obj_by_os_index(topo->hw, (unsigned)pu_os);
}

hwloc_obj_t shmcoll_topo_numa_of(const shmcoll_topo_t *topo, hwloc_obj_t pu) {
    hwloc_obj_t best = NULL;
    int best_weight = 0;
    for (hwloc_obj_t numa = hwloc_get_next_obj_by_type(topo->hw, HWLOC_OBJ_NUMANODE, NULL); numa;
         numa = hwloc_get_next_obj_by_type(topo->hw, HWLOC_OBJ_NUMANODE, numa)) {
        if (!numa->cpuset || !hwloc_bitmap_isset(numa->cpuset, pu->os_index)) continue;
        int weight = hwloc_bitmap_weight(numa->cpuset);
        if (!best || weight < best_weight) best = numa, best_weight = weight;
    }
    return best;
}

/* Objects of a type at depths above obj's, plus obj's logical index: unique within the type. */
static int type_index(const shmcoll_topo_t *topo, hwloc_obj_t obj) {
    int index = (int)obj->logical_index;
    if (obj->depth < 0) return index; /* memory objects have one special depth per type */
    for (int depth = 0; depth < obj->depth; depth++)
        if (hwloc_get_depth_type(topo->hw, depth) == obj->type)
            index += (int)hwloc_get_nbobjs_by_depth(topo->hw, depth);
    return index;
}

int shmcoll_topo_npus(const shmcoll_topo_t *topo) {
    return hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_PU);
}

int shmcoll_topo_count(const shmcoll_topo_t *topo, shmcoll_topo_kind_t kind) {
    if (kind == SHMCOLL_TOPO_NODE) return 1;
    hwloc_obj_type_t type = kind_type(kind);
    if (type == HWLOC_OBJ_NUMANODE) return hwloc_get_nbobjs_by_type(topo->hw, type);
    int count = 0, depths = hwloc_topology_get_depth(topo->hw);
    for (int depth = 0; depth < depths; depth++)
        if (hwloc_get_depth_type(topo->hw, depth) == type)
            count += (int)hwloc_get_nbobjs_by_depth(topo->hw, depth);
    return count;
}

int shmcoll_topo_pu_os(const shmcoll_topo_t *topo, int logical) {
    hwloc_obj_t pu =
        logical < 0 ? NULL : hwloc_get_obj_by_type(topo->hw, HWLOC_OBJ_PU, (unsigned)logical);
    return pu ? (int)pu->os_index : -1;
}

shmcoll_status_t shmcoll_topo_place(const shmcoll_topo_t *topo, int pu_os,
                                    shmcoll_topo_place_t *place) {
    shmcoll_topo_place_unknown(place);
    if (pu_os < 0) return SHMCOLL_OK;
    hwloc_obj_t pu = shmcoll_topo_pu_obj(topo, pu_os);
    if (!pu) return SHMCOLL_ERR_INVALID;
    place->pu = pu_os;
    for (int kind = 0; kind < SHMCOLL_TOPO_NKINDS; kind++) {
        hwloc_obj_t obj;
        if (kind == SHMCOLL_TOPO_NODE) {
            place->obj[kind] = 0;
            continue;
        }
        if (kind == SHMCOLL_TOPO_NUMA)
            obj = shmcoll_topo_numa_of(topo, pu);
        else
            obj = hwloc_get_ancestor_obj_by_type(topo->hw, kind_type(kind), pu);
        place->obj[kind] = obj ? type_index(topo, obj) : -1;
    }
    return SHMCOLL_OK;
}

int shmcoll_topo_pu_of_binding(const shmcoll_topo_t *topo, const cpu_set_t *binding) {
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int result = -1;
    if (!set || hwloc_cpuset_from_glibc_sched_affinity(topo->hw, set, binding, sizeof *binding))
        goto out;
    int first = hwloc_bitmap_first(set);
    hwloc_obj_t pu = shmcoll_topo_pu_obj(topo, first);
    if (!pu) goto out;
    /* Bound within one core: exact at every level from the core up. Without core objects only
     * a single PU is exact. */
    hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo->hw, HWLOC_OBJ_CORE, pu);
    if (hwloc_bitmap_isincluded(set, core ? core->cpuset : pu->cpuset)) result = first;
out:
    hwloc_bitmap_free(set);
    return result;
}

int shmcoll_topo_memory_node(const shmcoll_topo_t *topo, const cpu_set_t *binding) {
    if (!hwloc_topology_is_thissystem(topo->hw)) return -1; /* an injected machine's nodes */
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int node = -1;
    if (set && !hwloc_cpuset_from_glibc_sched_affinity(topo->hw, set, binding, sizeof *binding)) {
        /* The local node of the binding's first PU, if it holds the other PUs too. */
        hwloc_obj_t pu = shmcoll_topo_pu_obj(topo, hwloc_bitmap_first(set));
        hwloc_obj_t local = pu ? shmcoll_topo_numa_of(topo, pu) : NULL;
        if (local && hwloc_bitmap_isincluded(set, local->cpuset)) node = (int)local->os_index;
    }
    hwloc_bitmap_free(set);
    return node;
}

/* ---- injected mappings ------------------------------------------------------------------- */

/* NUMA domains with CPUs, in the order of their first PU: NUMA nodes that share a cpuset (DDR and
 * HBM of one socket) count once, memory-only nodes not at all. */
static int numa_domains(const shmcoll_topo_t *topo, hwloc_obj_t *domains, int max) {
    int n = 0, npus = shmcoll_topo_npus(topo);
    for (int i = 0; i < npus; i++) {
        hwloc_obj_t numa =
            shmcoll_topo_numa_of(topo, hwloc_get_obj_by_type(topo->hw, HWLOC_OBJ_PU, (unsigned)i));
        if (!numa) continue;
        int known = 0;
        for (int d = 0; d < n && !known; d++) known = domains[d] == numa;
        if (!known && n < max) domains[n++] = numa;
    }
    return n;
}

static shmcoll_status_t map_linear(const shmcoll_topo_t *topo, int size, int *pu_os) {
    int npus = shmcoll_topo_npus(topo);
    for (int i = 0; i < size; i++) pu_os[i] = shmcoll_topo_pu_os(topo, i % npus);
    return SHMCOLL_OK;
}

static shmcoll_status_t map_numa_rr(const shmcoll_topo_t *topo, int size, int *pu_os) {
    int max = hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_NUMANODE);
    hwloc_obj_t *domains = max > 0 ? malloc(sizeof *domains * (size_t)max) : NULL;
    if (max > 0 && !domains) return SHMCOLL_ERR_NO_MEMORY;
    int n = max > 0 ? numa_domains(topo, domains, max) : 0;
    if (n == 0) {
        free(domains);
        return map_linear(topo, size, pu_os);
    }
    for (int i = 0; i < size; i++) {
        hwloc_const_cpuset_t set = domains[i % n]->cpuset;
        int in_domain = hwloc_get_nbobjs_inside_cpuset_by_type(topo->hw, set, HWLOC_OBJ_PU);
        hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(topo->hw, set, HWLOC_OBJ_PU,
                                                             (unsigned)(i / n % in_domain));
        pu_os[i] = (int)pu->os_index;
    }
    free(domains);
    return SHMCOLL_OK;
}

static shmcoll_status_t map_list(const shmcoll_topo_t *topo, const char *spec, int size, int *pu_os,
                                 char *error, size_t error_len) {
    const char *s = spec;
    int n = 0;
    while (*s) {
        char *end;
        errno = 0;
        long pu = strtol(s, &end, 10);
        if (end == s || errno || pu < -1 || pu > 1 << 24) {
            snprintf(error, error_len, "bad PU '%.*s' in mapping \"%s\"", (int)strcspn(s, ","), s,
                     spec);
            return SHMCOLL_ERR_INVALID;
        }
        if (pu >= 0 && !shmcoll_topo_pu_obj(topo, (int)pu)) {
            snprintf(error, error_len, "mapping \"%s\" names PU %ld, which the topology lacks",
                     spec, pu);
            return SHMCOLL_ERR_INVALID;
        }
        if (n < size) pu_os[n] = (int)pu;
        n++;
        for (s = end; isspace((unsigned char)*s); s++) continue;
        if (*s == ',')
            s++;
        else if (*s) {
            snprintf(error, error_len, "bad character '%c' in mapping \"%s\"", *s, spec);
            return SHMCOLL_ERR_INVALID;
        }
    }
    if (n < size) {
        snprintf(error, error_len, "mapping \"%s\" lists %d PUs for %d ranks", spec, n, size);
        return SHMCOLL_ERR_INVALID;
    }
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_topo_map(const shmcoll_topo_t *topo, const char *spec, int size,
                                  int *pu_os, char *error, size_t error_len) {
    if (strcmp(spec, "linear") == 0) return map_linear(topo, size, pu_os);
    if (strcmp(spec, "numa-rr") == 0) return map_numa_rr(topo, size, pu_os);
    if (*spec == '-' || isdigit((unsigned char)*spec) || isspace((unsigned char)*spec))
        return map_list(topo, spec, size, pu_os, error, error_len);
    snprintf(error, error_len,
             "unknown mapping \"%s\": expected linear, numa-rr or a list of PU numbers", spec);
    return SHMCOLL_ERR_INVALID;
}
