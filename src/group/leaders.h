/* Who leads a group that spans nodes, and how its layout reads: shared by group setup
 * (mpi/group_setup.c), which applies the rule and logs the layout, and by shmcoll-info, which
 * shows it for a layout given on its command line. MPI-free. */
#ifndef SHMCOLL_GROUP_LEADERS_H
#define SHMCOLL_GROUP_LEADERS_H

#include "group/group.h"

#include <stddef.h>

/* Leaders per node (the network's channels, group/net.h): `asked` (SHMCOLL_NET_LEADERS), at most
 * the members of the smallest node and SHMCOLL_NET_MAX_CHANNELS, at least one. `asked` 0 means
 * automatic: two, each driving a network stream with a core of its own, or one where nodes share
 * a machine's CPUs (`cpus_shared`: several nodes on one kernel), where extra leaders only take
 * time slices from each other (measured: two 8 MiB allreduces at once between two such nodes
 * took longer than one of 16 MiB). Node rank c of every node leads channel c: node n's leaders
 * are the first of map->members + node_first[n]. A function of values every member has alike. */
int shmcoll_group_leaders(const shmcoll_group_map_t *map, long asked, int cpus_shared);

/* Writes `count` ascending ranks to buf (snprintf's rules: at most len bytes with the NUL,
 * returns the length of the whole text): consecutive runs as "0-3", runs of one stride as
 * "0,2,...,14", the rest one by one ("1,5,6"). */
size_t shmcoll_group_format_ranks(const int *ranks, int count, char *buf, size_t len);

#endif
