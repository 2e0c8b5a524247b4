/* A communicator's group: where its members live, a team per node, the network between nodes.
 *
 * Collective over the communicator, run once at its first collective (comm_state.c), at the same
 * point on every rank; every decision below is made alike everywhere:
 *   nodes     a split by node label (node_label.c: the processes that can share segments; or
 *             SHMCOLL_SIM_NODES: N virtual nodes, ranks in blocks or round-robin); every member
 *             learns every member's node from one allgather of node labels (the communicator
 *             rank of the node's first member);
 *   teams     each node's members create their node team, bootstrapped over the node's
 *             communicator; one allreduce then tells every member whether every node succeeded,
 *             so either all members have a group or none has (no rank takes another path alone);
 *   network   with several nodes, SHMCOLL_NET_LEADERS leaders per node (at most the smallest
 *             node's members: group/leaders.c): the channel communicators of mpi/net.c, split
 *             once, here; with SHMCOLL_VERBOSE=1 rank 0 logs each node's ranks and leaders.
 * The node communicators are freed at the end: a team needs them only to be born. */
#include "mpi/group_setup.h"
#include "mpi/agree.h"
#include "mpi/node_label.h"

#include "base/config.h"
#include "base/log.h"
#include "core/task.h"
#include "group/leaders.h"
#include "topo/cpus.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* This member's node key: its virtual node (SHMCOLL_SIM_NODES) or its node label. */
static unsigned node_key(int rank, int size) {
    const int sim = sim_node(shmcoll_config()->sim_nodes, rank, size);
    return (unsigned)(sim >= 0 ? sim : shmcoll_mpi_node_label());
}

static int compare_key_rank(const void *a, const void *b) {
    const unsigned *x = a, *y = b; /* {key, rank} */
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* The label of every member's node, the rank of its first member, from all[2r] = the node key of
 * rank r (the same on every member; sorted by key: O(size log size), no allocation that could
 * fail on one member only). */
static void label_nodes(const unsigned *all, int size, int *labels) {
    unsigned order[size][2];
    for (int r = 0; r < size; r++) order[r][0] = all[2 * r], order[r][1] = (unsigned)r;
    qsort(order, (size_t)size, sizeof *order, compare_key_rank);
    for (int i = 0, first = 0; i < size; i++) {
        if (i > 0 && order[i][0] != order[i - 1][0]) first = i;
        labels[order[i][1]] = (int)order[first][1];
    }
}

void shmcoll_mpi_group_destroy(shmcoll_mpi_group_t *g) {
    if (!g) return;
    if (g->group.team) {
        shmcoll_engine_forget(g->group.team); /* no other thread drives its lanes any more */
        shmcoll_team_destroy(g->group.team);
    }
    shmcoll_mpi_net_fini(&g->net);
    shmcoll_group_map_fini(&g->group.map);
    free(g);
}

/* The layout of a group over nodes, for its rank 0's verbose line: each node's ranks and leaders,
 * "node 0: ranks 0-1 (leader 0), node 1: ranks 2-3 (leader 2)", cut short with "..." when long. */
static void describe_nodes(const shmcoll_group_map_t *map, int leaders, char *buf, size_t len) {
    size_t at = 0;
    for (int n = 0; n < map->nnodes && at < len; n++) {
        const int *members = map->members + map->node_first[n];
        at += (size_t)snprintf(buf + at, len - at, "%snode %d: %s ", n ? ", " : "", n,
                               map->node_size[n] > 1 ? "ranks" : "rank");
        if (at < len)
            at += shmcoll_group_format_ranks(members, map->node_size[n], buf + at, len - at);
        if (at < len)
            at += (size_t)snprintf(buf + at, len - at, " (%s ", leaders > 1 ? "leaders" : "leader");
        if (at < len) at += shmcoll_group_format_ranks(members, leaders, buf + at, len - at);
        if (at < len) at += (size_t)snprintf(buf + at, len - at, ")");
    }
    if (at >= len && len > 4) memcpy(buf + len - 4, "...", 4);
}

static int compare_unsigned(const void *a, const void *b) {
    const unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

/* Whether some machine runs several of the group's nodes (simulated nodes, one namespace each,
 * on one kernel): from `all`, so every member decides alike. */
static int machine_shared(const unsigned *all, int size) {
    unsigned machines[size]; /* no allocation that could fail on one member only */
    int n = 0;
    for (int r = 0; r < size; r++)
        if (all[2 * r] == (unsigned)r) machines[n++] = all[2 * r + 1]; /* node r's first member */
    qsort(machines, (size_t)n, sizeof *machines, compare_unsigned);
    int shared = 0;
    for (int i = 1; i < n; i++) shared |= machines[i] && machines[i] == machines[i - 1];
    return shared;
}

/* Whether this node's members share their CPUs with another node's and are more than the CPUs:
 * several nodes on one kernel (one namespace per simulated node). Each node team then believes
 * it has the CPUs to itself and would spin on them; from `all` (label and machine of each rank),
 * so every member of a node decides alike. */
static int shares_cpus(const unsigned *all, int size, unsigned machine, int label) {
    int on_machine = 0, other_node = 0;
    for (int r = 0; r < size; r++) {
        if (!machine || all[2 * r + 1] != machine) continue;
        on_machine++;
        other_node |= all[2 * r] != (unsigned)label;
    }
    return other_node && on_machine > sysconf(_SC_NPROCESSORS_ONLN);
}

shmcoll_status_t shmcoll_mpi_group_setup(MPI_Comm comm, int rank, int size,
                                         shmcoll_mpi_group_t **out, const char **reason) {
    *out = NULL;
    /* The settings that decide the communicator's path, the same on every rank, or the MPI
     * library serves it (agree.h). */
    const char *differs = shmcoll_mpi_agree_comm(comm, rank, size);
    if (differs) {
        *reason = differs;
        return SHMCOLL_ERR_NOT_SUPPORTED;
    }
    /* Every member's node and machine. */
    unsigned mine[2] = {node_key(rank, size), shmcoll_topo_machine_id()}, all[2 * size];
    if (PMPI_Allgather(mine, 2, MPI_UNSIGNED, all, 2, MPI_UNSIGNED, comm) != MPI_SUCCESS) {
        *reason = "exchanging the members' nodes failed";
        return SHMCOLL_ERR_NOT_SUPPORTED;
    }
    int labels[size];
    label_nodes(all, size, labels);
    for (int r = 0; r < size; r++) all[2 * r] = (unsigned)labels[r];
    const int label = labels[rank];
    int alone = 1; /* every rank alone on its node: nodes labelled by their first member */
    for (int r = 0; r < size; r++) alone &= labels[r] == r;
    if (alone && size > 1) {
        /* Nothing to share in memory: a composition would only add steps around the MPI
         * library's own collective. Decided from the allgathered labels, alike everywhere. */
        *reason = "every rank is alone on its node";
        return SHMCOLL_ERR_NOT_SUPPORTED;
    }
    /* On one node the communicator is the node's own, in the same order: no communicator is
     * made. Making one inside a collective, in two threads at once on different communicators,
     * hung Open MPI 4.1's agreement on context ids (PMPI_Comm_split in both threads' setups, each
     * waiting in ompi_comm_nextcid, found by tests/mpi/test_fuzz.c with two threads). */
    int one_node = 1;
    for (int r = 0; r < size; r++) one_node &= labels[r] == labels[0];
    MPI_Comm node = one_node ? comm : MPI_COMM_NULL;
    if (!one_node && PMPI_Comm_split(comm, label, rank, &node) != MPI_SUCCESS) {
        *reason = "splitting the communicator into nodes failed";
        return SHMCOLL_ERR_NOT_SUPPORTED;
    }
    int node_rank = 0, node_size = 1;
    PMPI_Comm_rank(node, &node_rank);
    PMPI_Comm_size(node, &node_size);
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
    if (!one_node) PMPI_Comm_free(&node);
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
    if (shares_cpus(all, size, mine[1], label)) shmcoll_team_share_cpus(team);
    team->progress = progress_mpi;
    team->progress_ctx = NULL;
    shmcoll_group_t *group = &g->group;
    group->rank = rank;
    group->size = size;
    group->node = group->map.node_of[rank];
    group->team = team;
    if (group->map.nnodes > 1) {
        const int channels = shmcoll_group_leaders(&group->map, shmcoll_config()->net_leaders,
                                                   machine_shared(all, size));
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
        if (rank == 0) {
            char nodes[768];
            describe_nodes(&group->map, channels, nodes, sizeof nodes);
            shmcoll_log_verbose("communicator of %d ranks on %d nodes, %d %s per node: %s", size,
                                group->map.nnodes, channels, channels > 1 ? "leaders" : "leader",
                                nodes);
        }
    }
    *out = g;
    return SHMCOLL_OK;
}
