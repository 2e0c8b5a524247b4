/* What the topology of this machine lacks once hwloc's x86 backend is left out (topo_load.c,
 * keep_binding): whether each data cache is inclusive of the levels below it, which that backend
 * read from CPUID by binding the loading thread to each PU in turn. Read here from the calling
 * core's CPUID, without moving it: the caches of one level are alike on the machines this serves
 * (a hybrid part's cores that differ would report theirs alike too, as the x86 backend's first PU
 * did for all). Without an answer the topology says nothing and topo_cache.c assumes inclusive. */
#include "topo/topo_internal.h"

#if defined(__x86_64__) || defined(__i386__)

#include <cpuid.h>

#define HYGON_EBX    0x6f677948 /* "Hygo" of "HygonGenuine" (not in every compiler's cpuid.h) */
#define HYGON_EDX    0x6e65476e /* "nGen" */
#define CACHE_LEAVES 16 /* sub-leaves tried: more than any processor has cache levels and kinds */

/* The leaf that describes the caches one sub-leaf each (type in EAX bits 0-4, 0: no more; level
 * in bits 5-7; EDX bit 1: inclusive of the lower levels): Intel's 4, AMD's and Hygon's
 * 0x8000001d; 0 when the processor has none. */
static unsigned cache_leaf(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return 0;
    const int amd =
        (b == signature_AMD_ebx && d == signature_AMD_edx) || (b == HYGON_EBX && d == HYGON_EDX);
    if (!amd) return a >= 4 ? 4 : 0;
    return __get_cpuid_max(0x80000000, NULL) >= 0x8000001d ? 0x8000001d : 0;
}

/* Whether this core's data or unified cache of `level` is inclusive: 1, 0, or -1 not told. */
static int inclusive_at(unsigned leaf, unsigned level) {
    for (unsigned i = 0; i < CACHE_LEAVES; i++) {
        unsigned a, b, c, d;
        __cpuid_count(leaf, i, a, b, c, d);
        const unsigned type = a & 0x1f; /* 1 data, 2 instruction, 3 unified */
        if (type == 0) break;
        if (type != 2 && (a >> 5 & 7) == level) return (int)(d >> 1 & 1);
    }
    return -1;
}

void shmcoll_topo_add_inclusive(hwloc_topology_t hw) {
    const unsigned leaf = cache_leaf();
    if (!leaf) return;
    for (int depth = 0; depth < hwloc_topology_get_depth(hw); depth++) {
        for (hwloc_obj_t obj = hwloc_get_obj_by_depth(hw, depth, 0); obj; obj = obj->next_cousin) {
            if (!shmcoll_topo_is_data_cache(obj) || hwloc_obj_get_info_by_name(obj, "Inclusive"))
                continue;
            const int inclusive = inclusive_at(leaf, obj->attr->cache.depth);
            if (inclusive >= 0) hwloc_obj_add_info(obj, "Inclusive", inclusive ? "1" : "0");
        }
    }
}

#else

void shmcoll_topo_add_inclusive(hwloc_topology_t hw) {
    (void)hw; /* the operating system's tables are all there is */
}

#endif
