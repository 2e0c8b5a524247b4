/* Cache facts for the adaptive non-temporal copies (YHCCL Alg. 1): a copy streams when its
 * working set exceeds the cache it would otherwise pollute — the LLC, plus the private L2s when
 * the LLC is not inclusive (their contents are not duplicated in it). The topology tells
 * inclusiveness as the info "Inclusive" on x86 caches (this machine's from its CPUID, topo_cpuid.c;
 * an XML file's as hwloc wrote it); without it we assume inclusive, the conservative choice (it
 * counts less cache, so large copies stream rather than thrash). */
#include "topo/topo_internal.h"

#include <string.h>

int shmcoll_topo_is_data_cache(hwloc_obj_t obj) {
    return hwloc_obj_type_is_dcache(obj->type) &&
           obj->attr->cache.type != HWLOC_OBJ_CACHE_INSTRUCTION;
}

/* Cores inside a cpuset; PUs when the topology has no core objects. */
static int cores_in(const shmcoll_topo_t *topo, hwloc_const_cpuset_t set) {
    int cores = hwloc_get_nbobjs_inside_cpuset_by_type(topo->hw, set, HWLOC_OBJ_CORE);
    return cores > 0 ? cores : hwloc_get_nbobjs_inside_cpuset_by_type(topo->hw, set, HWLOC_OBJ_PU);
}

shmcoll_status_t shmcoll_topo_caches(const shmcoll_topo_t *topo, int pu_os,
                                     shmcoll_topo_caches_t *caches) {
    memset(caches, 0, sizeof *caches);
    caches->llc_inclusive = 1;
    caches->line = 64;
    hwloc_obj_t pu = pu_os < 0 ? hwloc_get_obj_by_type(topo->hw, HWLOC_OBJ_PU, 0)
                               : shmcoll_topo_pu_obj(topo, pu_os);
    if (!pu) return SHMCOLL_ERR_INVALID;

    /* The outermost data cache above the PU is the LLC; the first L2 on the way is "the" L2. */
    hwloc_obj_t llc = NULL;
    for (hwloc_obj_t obj = pu->parent; obj; obj = obj->parent) {
        if (!shmcoll_topo_is_data_cache(obj)) continue;
        llc = obj;
        if (obj->attr->cache.depth == 2 && caches->l2_size == 0)
            caches->l2_size = (size_t)obj->attr->cache.size;
    }
    if (llc) {
        caches->llc_size = (size_t)llc->attr->cache.size;
        caches->llc_level = (int)llc->attr->cache.depth;
        if (llc->attr->cache.linesize > 0) caches->line = llc->attr->cache.linesize;
        const char *inclusive = hwloc_obj_get_info_by_name(llc, "Inclusive");
        if (inclusive) caches->llc_inclusive = strcmp(inclusive, "0") != 0;
        caches->llc_cores = cores_in(topo, llc->cpuset);
    }

    hwloc_obj_t package = hwloc_get_ancestor_obj_by_type(topo->hw, HWLOC_OBJ_PACKAGE, pu);
    hwloc_const_cpuset_t scope =
        package ? package->cpuset : hwloc_topology_get_topology_cpuset(topo->hw);
    caches->cores_per_package = cores_in(topo, scope);
    return SHMCOLL_OK;
}
