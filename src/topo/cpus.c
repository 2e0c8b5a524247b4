#include "topo/cpus.h"

#include <pthread.h>
#include <stdio.h>
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

/* The hash of the boot id, read once: a process never changes machines (and communicators' setups
 * asked for it each time). */
static unsigned machine_id;
static pthread_once_t machine_once = PTHREAD_ONCE_INIT;

static void machine_read(void) {
    char text[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f) return;
    const int got = fgets(text, sizeof text, f) != NULL;
    fclose(f);
    unsigned hash = 2166136261u; /* FNV-1a */
    for (const char *c = text; got && *c && *c != '\n'; c++)
        hash = (hash ^ (unsigned char)*c) * 16777619u;
    machine_id = got ? hash | 1u : 0;
}

unsigned shmcoll_topo_machine_id(void) {
    pthread_once(&machine_once, machine_read);
    return machine_id;
}
