/* The cache capacity the adaptive non-temporal copies compare working sets with (YHCCL §4):
 * the last-level cache, plus every core's L2 when the LLC is not inclusive. Read from hwloc once
 * per process, on the first collective large enough to ask. A machine whose caches hwloc cannot
 * see gets 0, which keeps every copy temporal (nt_policy.c). */
#include "coll/coll_internal.h"
#include "core/log.h"
#include "kernels/nt_policy.h"
#include "topo/topo.h"

#include <pthread.h>

static size_t usable_cache;
static pthread_once_t usable_cache_once = PTHREAD_ONCE_INIT;

static void measure_usable_cache(void) {
    char error[256] = "";
    shmcoll_topo_t *topo = NULL;
    shmcoll_topo_caches_t caches = {0};
    if (shmcoll_topo_load_machine(&topo, error, sizeof error) != SHMCOLL_OK ||
        shmcoll_topo_caches(topo, -1, &caches) != SHMCOLL_OK) {
        shmcoll_log_verbose("cache sizes unknown (%s): copies stay temporal", error);
    } else {
        /* When the LLC is the L2 itself, it must not be counted twice. */
        size_t l2 = caches.llc_level > 2 ? caches.l2_size : 0;
        usable_cache = shmcoll_kernel_usable_cache(caches.llc_size, l2, caches.llc_cores,
                                                   caches.llc_inclusive);
        shmcoll_log_verbose("usable cache for non-temporal decisions: %zu bytes", usable_cache);
    }
    shmcoll_topo_destroy(topo);
}

size_t shmcoll_coll_usable_cache(void) {
    pthread_once(&usable_cache_once, measure_usable_cache);
    return usable_cache;
}
