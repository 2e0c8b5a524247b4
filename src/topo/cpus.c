#include "topo/cpus.h"

#include <unistd.h>

void shmcoll_topo_affinity(cpu_set_t *mask) {
    CPU_ZERO(mask);
    if (sched_getaffinity(0, sizeof *mask, mask) == 0 && CPU_COUNT(mask) > 0) return;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (long cpu = 0; cpu < online && cpu < CPU_SETSIZE; cpu++) CPU_SET(cpu, mask);
}

int shmcoll_topo_union_count(const cpu_set_t *masks, int count) {
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int i = 0; i < count; i++) CPU_OR(&all, &all, &masks[i]);
    return CPU_COUNT(&all);
}
