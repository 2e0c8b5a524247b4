/* Bcast across nodes: the root's node first, then the leaders through the network, then every
 * other node from its leader.
 *
 * Root r on node R at node rank rr. If r is not R's leader, node phase on R: a node bcast from
 * rr (every member of R, its leader included, has the data after it; R needs no other node
 * phase). Network: the leaders (node rank 0, channel 0) bcast from R's leader. Every other node
 * (and R when r is its leader): a node bcast from the leader once the network is done; on R that
 * node bcast runs while the network step is in flight, from SHMCOLL_NET_SPLIT bytes: below, the
 * step goes first and the node bcast after it, which lets the step be the MPI library's blocking
 * bcast, its fast one (compose.h) — a node bcast that short gains nothing from overlapping. Each
 * node runs exactly one node phase.
 *
 * The network part is one bcast among the leaders, or, from SHMCOLL_NET_SPLIT bytes on three
 * nodes or more, a scatter of the vector in N pieces from R's leader followed by an allgather of
 * the pieces (van de Geijn's bcast): R's node then sends s(N-1)/N twice, at most 2s, where a bcast
 * may have the root send the whole vector to every other node (Open MPI 4.1 does between four
 * nodes at 16 MiB: 3s from the root's node, measured on the nodes' interfaces), and the other
 * nodes share the sending. Network bytes handed: s from R's leader in one bcast; in two steps,
 * each leader its piece, and R's the others' pieces in the scatter too. */
#include "group/compose.h"
#include "base/config.h"

typedef struct compose_bcast {
    int root_node, root_rank; /* R and rr */
    int overlap;              /* the root leads R, and R's node bcast runs during the network */
    int pieces;               /* the network part is a scatter then an allgather of N pieces */
    size_t *counts, *displs;  /* [N] bytes of each node's piece and where it starts */
} compose_bcast_t;

_Static_assert(sizeof(compose_bcast_t) <= SHMCOLL_COMPOSE_STATE_BYTES, "state fits");

static void bcast_fini(shmcoll_group_task_t *t) {
    shmcoll_compose_free(SHMCOLL_COMPOSE_STATE(t, compose_bcast_t)->counts);
}

static shmcoll_status_t bcast_init(shmcoll_group_task_t *t) {
    compose_bcast_t *s = SHMCOLL_COMPOSE_STATE(t, compose_bcast_t);
    const size_t count = t->args->count;
    const int nnodes = t->group->map.nnodes;
    SHMCOLL_CHECK(shmcoll_compose_count_fits(count));
    *s = (compose_bcast_t){.root_node = t->group->map.node_of[t->args->root],
                           .root_rank = t->group->map.node_rank[t->args->root]};
    const int large = count >= shmcoll_config()->net_split;
    s->overlap = s->root_rank == 0 && large;
    s->pieces = large && nnodes >= 3;
    if (!s->pieces) return SHMCOLL_OK;
    s->counts = shmcoll_compose_malloc(2 * (size_t)nnodes * sizeof *s->counts);
    if (!s->counts) return SHMCOLL_ERR_NO_MEMORY;
    s->displs = s->counts + nnodes;
    for (int n = 0; n < nnodes; n++) {
        s->displs[n] = count * (size_t)n / (size_t)nnodes;
        s->counts[n] = count * (size_t)(n + 1) / (size_t)nnodes - s->displs[n];
    }
    return SHMCOLL_OK;
}

/* The network part's steps: 0 the bcast, or 0 the scatter and 1 the allgather of the pieces. */
static void network_step(shmcoll_group_task_t *t, int step) {
    compose_bcast_t *s = SHMCOLL_COMPOSE_STATE(t, compose_bcast_t);
    const shmcoll_coll_args_t *a = t->args;
    const int me = t->group->node, root = me == s->root_node;
    shmcoll_coll_args_t net = {
        .kind = SHMCOLL_KIND_BCAST, .recvbuf = a->recvbuf, .count = a->count, .root = s->root_node};
    if (s->pieces && step == 0) /* the root's leader keeps its own piece in place */
        net = (shmcoll_coll_args_t){.kind = SHMCOLL_KIND_SCATTERV,
                                    .sendbuf = root ? a->recvbuf : NULL,
                                    .sendcounts = s->counts,
                                    .sdispls = s->displs,
                                    .recvbuf = root ? NULL : (char *)a->recvbuf + s->displs[me],
                                    .recvbytes = s->counts[me],
                                    .root = s->root_node};
    else if (s->pieces)
        net = (shmcoll_coll_args_t){.kind = SHMCOLL_KIND_ALLGATHERV,
                                    .recvbuf = a->recvbuf,
                                    .recvcounts = s->counts,
                                    .rdispls = s->displs};
    t->net = (shmcoll_net_coll_t){.channel = 0, .args = net};
    if (!s->pieces)
        t->group->net.bytes += root ? a->count : 0;
    else
        t->group->net.bytes += step == 0 ? (root ? a->count - s->counts[me] : 0) : s->counts[me];
}

static shmcoll_status_t bcast_progress(shmcoll_group_task_t *t) {
    compose_bcast_t *s = SHMCOLL_COMPOSE_STATE(t, compose_bcast_t);
    const shmcoll_coll_args_t *a = t->args;
    const int on_root_node = t->group->node == s->root_node;
    const int leader = shmcoll_compose_leads(t, 0);
    SHMCOLL_RESUME_BEGIN(&t->pc);
    if (on_root_node && s->root_rank != 0) {
        t->node_args = (shmcoll_coll_args_t){.kind = SHMCOLL_KIND_BCAST,
                                             .recvbuf = a->recvbuf,
                                             .count = a->count,
                                             .root = s->root_rank};
        SHMCOLL_CHECK(shmcoll_compose_node_start(t));
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
    }
    if (leader && s->pieces) { /* scatter, then allgather; R's node bcast after them */
        network_step(t, 0);
        SHMCOLL_CHECK(shmcoll_compose_net_start(t, 0));
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_net_test(t));
        network_step(t, 1);
        SHMCOLL_CHECK(shmcoll_compose_net_start(t, 0));
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_net_test(t));
    } else if (leader) {
        network_step(t, 0);
        SHMCOLL_CHECK(shmcoll_compose_net_start(t, s->overlap));
        if (!on_root_node || !s->overlap) SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_net_test(t));
    }
    if (!on_root_node || s->root_rank == 0) {
        t->node_args = (shmcoll_coll_args_t){
            .kind = SHMCOLL_KIND_BCAST, .recvbuf = a->recvbuf, .count = a->count, .root = 0};
        SHMCOLL_CHECK(shmcoll_compose_node_start(t));
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
    }
    if (leader && on_root_node && s->overlap && !s->pieces)
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_net_test(t));
    SHMCOLL_RESUME_END(&t->pc);
}

const shmcoll_compose_ops_t shmcoll_compose_bcast_ops = {
    .init = bcast_init, .progress = bcast_progress, .fini = bcast_fini};
