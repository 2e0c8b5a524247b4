/* A group: the processes of one communicator, which may span nodes. MPI-free.
 *
 * Each node's members form a node team (core/team.h: shared memory); the nodes talk through a
 * network interface (group/net.h: implemented over the MPI library by mpi/, faked in tests).
 * Ranks are the communicator's. A group on one node is its node team, ranks included (the node
 * team orders its members as the communicator does). Every collective of the group is one entry,
 * shmcoll_group_run (group/compose.h); on several nodes it is composed of node phases (tasks on
 * the node team) and network steps (group/compose_*.c).
 *
 * Where every member lives is known to all members alike (it is built from an allgather), so
 * every choice made from it is the same everywhere. */
#ifndef SHMCOLL_GROUP_GROUP_H
#define SHMCOLL_GROUP_GROUP_H

#include "base/status.h"
#include "core/coll_args.h"
#include "core/task.h"
#include "core/team.h"
#include "group/net.h"

#include <stddef.h>

/* Where the members of a group live: which node, and which rank in its node team. */
typedef struct shmcoll_group_map {
    int size;        /* members */
    int nnodes;      /* nodes */
    int *node_of;    /* [size]: node of each member, nodes numbered by their lowest member */
    int *node_rank;  /* [size]: rank of each member in its node team (communicator order) */
    int *node_size;  /* [nnodes]: members on each node */
    int *node_first; /* [nnodes + 1]: node n's members are members[node_first[n] ..] */
    int *members;    /* [size]: members in node order, each node's in communicator order */
} shmcoll_group_map_t;

/* Builds the map from the node label of every member (any ints; equal labels: one node). */
shmcoll_status_t shmcoll_group_map_init(shmcoll_group_map_t *map, const int *labels, int size);
void shmcoll_group_map_fini(shmcoll_group_map_t *map);

/* Whether node n's members are consecutive ranks (ranks placed in blocks). */
int shmcoll_group_map_block(const shmcoll_group_map_t *map, int n);

typedef struct shmcoll_group {
    int rank; /* in the communicator */
    int size;
    shmcoll_group_map_t map; /* every member's node and node rank */
    int node;                /* this member's node */
    shmcoll_team_t *team;    /* this member's node team (of one member when alone on its node) */
    shmcoll_net_t net;       /* between the nodes; unused with one node */
    struct shmcoll_group_op *inflight; /* the non-blocking composition in flight (compose.h) */
} shmcoll_group_t;

typedef struct shmcoll_group_op shmcoll_group_op_t;

/* The member `rank` of the group as its node team knows it. */
static inline int shmcoll_group_node_rank(const shmcoll_group_t *g, int rank) {
    return g->map.node_rank[rank];
}

#endif
