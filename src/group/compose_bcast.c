/* Bcast across nodes: the root's node first, then the leaders through the network, then every
 * other node from its leader.
 *
 * Root r on node R at node rank rr. If r is not R's leader, node phase on R: a node bcast from
 * rr (every member of R, its leader included, has the data after it; R needs no other node
 * phase). Network step: the leaders (node rank 0, channel 0) bcast from R's leader. Every other
 * node (and R when r is its leader): a node bcast from the leader once the network step is done;
 * on R that node bcast runs while the network step is in flight, from SHMCOLL_NET_SPLIT bytes:
 * below, the step goes first and the node bcast after it, which lets the step be the MPI
 * library's blocking bcast, its fast one (compose.h) — a node bcast that short gains nothing from
 * overlapping. Each node runs exactly one node phase. Network bytes: s from R's leader (the
 * root's contribution), none from the others. */
#include "group/compose.h"
#include "base/config.h"

typedef struct compose_bcast {
    int root_node, root_rank; /* R and rr */
    int overlap;              /* the root leads R, and R's node bcast runs during the step */
} compose_bcast_t;

_Static_assert(sizeof(compose_bcast_t) <= SHMCOLL_COMPOSE_STATE_BYTES, "state fits");

static shmcoll_status_t bcast_init(shmcoll_group_task_t *t) {
    compose_bcast_t *s = SHMCOLL_COMPOSE_STATE(t, compose_bcast_t);
    if (!shmcoll_net_fits(t->args->count)) return SHMCOLL_ERR_NOT_SUPPORTED;
    s->root_node = t->group->map.node_of[t->args->root];
    s->root_rank = t->group->map.node_rank[t->args->root];
    s->overlap = s->root_rank == 0 && t->args->count >= shmcoll_config()->net_split;
    return SHMCOLL_OK;
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
    if (leader) {
        t->net = (shmcoll_net_coll_t){.channel = 0,
                                      .args = {.kind = SHMCOLL_KIND_BCAST,
                                               .recvbuf = a->recvbuf,
                                               .count = a->count,
                                               .root = s->root_node}};
        if (on_root_node) t->group->net.bytes += a->count;
        SHMCOLL_CHECK(shmcoll_compose_net_start(t, s->overlap));
        if (!on_root_node || !s->overlap) SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_net_test(t));
    }
    if (!on_root_node || s->root_rank == 0) {
        t->node_args = (shmcoll_coll_args_t){
            .kind = SHMCOLL_KIND_BCAST, .recvbuf = a->recvbuf, .count = a->count, .root = 0};
        SHMCOLL_CHECK(shmcoll_compose_node_start(t));
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
    }
    if (leader && on_root_node && s->overlap)
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_net_test(t));
    SHMCOLL_RESUME_END(&t->pc);
}

const shmcoll_compose_ops_t shmcoll_compose_bcast_ops = {.init = bcast_init,
                                                         .progress = bcast_progress};
