/* Which CPUs this process may run on: the minimal topology the foundation needs to know whether
 * the node is oversubscribed (more team members than CPUs), in which case waiting ranks must yield
 * their CPU at once instead of spinning. */
#ifndef SHMCOLL_TOPO_CPUS_H
#define SHMCOLL_TOPO_CPUS_H

#include <sched.h>

/* This process's affinity mask (all online CPUs if it cannot be read). */
void shmcoll_topo_affinity(cpu_set_t *mask);

/* Number of CPUs in the union of `count` masks. */
int shmcoll_topo_union_count(const cpu_set_t *masks, int count);

/* A number naming the running kernel (a hash of its boot id; 0 if unreadable): processes that
 * see different hosts (a container or network namespace per node) but share one kernel share its
 * CPUs, so nodes with the same number must count their ranks together against the CPUs. */
unsigned shmcoll_topo_machine_id(void);

#endif
