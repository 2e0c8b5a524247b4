/* A communicator's group: where its members live, a team per node, the network between nodes.
 *
 * Collective over the communicator, run once at its first collective (comm_state.c), at the same
 * point on every rank; every decision below is made alike everywhere:
 *   nodes     MPI_Comm_split_type(SHARED) (or SHMCOLL_SIM_NODES: N virtual nodes, ranks in
 *             blocks or round-robin); every member learns every member's node from one allgather
 *             of node labels (the communicator rank of the node's first member);
 *   teams     each node's members create their node team, bootstrapped over the node's
 *             communicator; one allreduce then tells every member whether every node succeeded,
 *             so either all members have a group or none has (no rank takes another path alone);
 *   network   with several nodes, SHMCOLL_NET_LEADERS leaders per node (at most the smallest
 *             node's members): the channel communicators of mpi/net.c, split once, here.
 * The node communicators are freed at the end: a team needs them only to be born. */
#include "mpi/group_setup.h"

#include "base/config.h"
#include "base/log.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int node_allgather(void *ctx, const void *in, void *out, size_t bytes) {
    if (bytes > INT_MAX) return 1;
    return PMPI_Allgather(in, (int)bytes, MPI_BYTE, out, (int)bytes, MPI_BYTE, *(MPI_Comm *)ctx) !=
           MPI_SUCCESS;
}

/* Lets the MPI library progress the caller's other requests (and, for MPICH, its own network
 * layer) while a rank waits in shared memory. */
static void progress_mpi(void *ctx) {
    int flag;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

/* The virtual node of `rank` of `size` asked for by SHMCOLL_SIM_NODES ("N" in blocks, "N:cyclic"
 * round-robin), or -1 when the setting is empty; a malformed one is reported and ignored. */
static int sim_node(const char *setting, int rank, int size) {
    if (!setting || !*setting) return -1;
    char *end;
    long n = strtol(setting, &end, 10);
    const int cyclic = !strcmp(end, ":cyclic");
    if (n < 1 || (*end && !cyclic)) {
        static int warned;
        if (!warned++)
            shmcoll_log_warn("SHMCOLL_SIM_NODES=%s is not N or N:cyclic; ignored", setting);
        return -1;
    }
    if (n > size) n = size;
    return cyclic ? rank % (int)n : (int)((long long)rank * n / size);
}

/* This member's node communicator. */
static int split_nodes(MPI_Comm comm, int rank, int size, MPI_Comm *node) {
    const int sim = sim_node(shmcoll_config()->sim_nodes, rank, size);
    if (sim >= 0) return PMPI_Comm_split(comm, sim, rank, node);
    return PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, node);
}

void shmcoll_mpi_group_destroy(shmcoll_mpi_group_t *g) {
    if (!g) return;
    if (g->group.team) shmcoll_team_destroy(g->group.team);
    shmcoll_mpi_net_fini(&g->net);
    shmcoll_group_map_fini(&g->group.map);
    free(g);
}

/* Leaders per node: as asked, at most the members of the smallest node, at least one. */
static int channels_for(const shmcoll_group_map_t *map) {
    long asked = shmcoll_config()->net_leaders;
    int smallest = map->size;
    for (int n = 0; n < map->nnodes; n++)
        smallest = map->node_size[n] < smallest ? map->node_size[n] : smallest;
    if (asked > smallest) asked = smallest;
    if (asked > SHMCOLL_NET_MAX_CHANNELS) asked = SHMCOLL_NET_MAX_CHANNELS;
    return asked < 1 ? 1 : (int)asked;
}

shmcoll_status_t shmcoll_mpi_group_setup(MPI_Comm comm, int rank, int size,
                                         shmcoll_mpi_group_t **out, const char **reason) {
    *out = NULL;
    MPI_Comm node = MPI_COMM_NULL;
    if (split_nodes(comm, rank, size, &node) != MPI_SUCCESS) {
        *reason = "splitting the communicator into nodes failed";
        return SHMCOLL_ERR_NOT_SUPPORTED;
    }
    int node_rank = 0, node_size = 1, label = rank, labels[size];
    PMPI_Comm_rank(node, &node_rank);
    PMPI_Comm_size(node, &node_size);
    PMPI_Bcast(&label, 1, MPI_INT, 0, node); /* the node's label: its first member's rank */
    PMPI_Allgather(&label, 1, MPI_INT, labels, 1, MPI_INT, comm);
    shmcoll_mpi_group_t *g = calloc(1, sizeof *g);
    /* A member without its group takes part in team creation all the same, and fails it. */
    const int ready = g && shmcoll_group_map_init(&g->group.map, labels, size) == SHMCOLL_OK;
    if (g) g->net.comm = MPI_COMM_NULL;
    shmcoll_bootstrap_t bootstrap = {.rank = node_rank,
                                     .size = node_size,
                                     .allgather = node_allgather,
                                     .ctx = &node,
                                     .unready = !ready};
    shmcoll_team_t *team = NULL;
    shmcoll_status_t status = shmcoll_team_create(&bootstrap, &team);
    PMPI_Comm_free(&node);
    /* Every node's team agrees within its node; all nodes must have one. */
    int ok = status == SHMCOLL_OK, all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        if (team) shmcoll_team_destroy(team);
        if (g) shmcoll_group_map_fini(&g->group.map);
        free(g);
        *reason = status != SHMCOLL_OK ? shmcoll_status_string(status)
                                       : "another node has no shared memory for its team";
        return status != SHMCOLL_OK ? status : SHMCOLL_ERR_NO_SPACE;
    }
    team->progress = progress_mpi;
    team->progress_ctx = NULL;
    shmcoll_group_t *group = &g->group;
    group->rank = rank;
    group->size = size;
    group->node = group->map.node_of[rank];
    group->team = team;
    if (group->map.nnodes > 1) {
        const int channels = channels_for(&group->map);
        /* Collective over comm, the same number of calls everywhere (channels is agreed). */
        status = shmcoll_mpi_net_init(&g->net, comm, group->node, group->map.node_rank[rank],
                                      group->map.nnodes, channels);
        group->net = shmcoll_mpi_net_interface(&g->net, channels);
        int net_ok = status == SHMCOLL_OK, all_net_ok = 0;
        PMPI_Allreduce(&net_ok, &all_net_ok, 1, MPI_INT, MPI_MIN, comm);
        if (!all_net_ok) {
            shmcoll_mpi_group_destroy(g);
            *reason = "the leaders' communicators could not be made";
            return SHMCOLL_ERR_SYSTEM;
        }
        shmcoll_log_verbose("communicator of %d ranks over %d nodes (this node: %d ranks), %d "
                            "leader(s) per node",
                            size, group->map.nnodes, group->map.node_size[group->node], channels);
    }
    *out = g;
    return SHMCOLL_OK;
}
