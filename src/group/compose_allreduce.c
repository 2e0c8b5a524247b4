/* Allreduce across nodes: reduce on each node, allreduce among the nodes' leaders through the
 * network, broadcast on each node.
 *
 * Node phase 1: the node team reduces every member's input to its node rank 0 (any node
 * algorithm: flat, movement-avoiding, hierarchical...). Network step: the leaders (node rank 0
 * of every node, channel 0) allreduce the node results in place: only s bytes per node cross the
 * network each way, whatever the number of ranks per node and their placement, where a flat
 * algorithm over all ranks sends one contribution per rank. Node phase 2: every node broadcasts
 * the result from its leader.
 *
 * Order: the node reductions fold their members in rank order and the network folds the nodes
 * in node order, so non-commutative ops get the canonical order when every node holds a block of
 * consecutive ranks (nodes are numbered by their lowest member); otherwise they are not
 * supported here (the call falls back). The result is identical on every member (one
 * reduction, then copies). */
#include "group/compose.h"

typedef struct compose_allreduce {
    size_t span;
} compose_allreduce_t;

_Static_assert(sizeof(compose_allreduce_t) <= SHMCOLL_COMPOSE_STATE_BYTES, "state fits");

static shmcoll_status_t allreduce_init(shmcoll_group_task_t *t) {
    const shmcoll_group_map_t *map = &t->group->map;
    compose_allreduce_t *s = SHMCOLL_COMPOSE_STATE(t, compose_allreduce_t);
    if (!t->args->op->commutative)
        for (int n = 0; n < map->nnodes; n++)
            if (!shmcoll_group_map_block(map, n)) return SHMCOLL_ERR_NOT_SUPPORTED;
    s->span = shmcoll_reduce_op_span(t->args->op, t->args->count);
    return SHMCOLL_OK;
}

static shmcoll_status_t allreduce_progress(shmcoll_group_task_t *t) {
    compose_allreduce_t *s = SHMCOLL_COMPOSE_STATE(t, compose_allreduce_t);
    const shmcoll_coll_args_t *a = t->args;
    SHMCOLL_RESUME_BEGIN(&t->pc);
    t->node_args = (shmcoll_coll_args_t){.kind = SHMCOLL_KIND_REDUCE,
                                         .sendbuf = a->sendbuf,
                                         .recvbuf = a->recvbuf,
                                         .count = a->count,
                                         .op = a->op,
                                         .root = 0};
    SHMCOLL_CHECK(shmcoll_compose_node_start(t));
    SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
    if (shmcoll_compose_leads(t, 0)) {
        t->net = (shmcoll_net_coll_t){.channel = 0,
                                      .args = {.kind = SHMCOLL_KIND_ALLREDUCE,
                                               .recvbuf = a->recvbuf,
                                               .count = a->count,
                                               .op = a->op,
                                               .net_op = a->net_op}};
        t->group->net.bytes += s->span;
        SHMCOLL_CHECK(shmcoll_compose_net_start(t));
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_net_test(t));
    }
    t->node_args = (shmcoll_coll_args_t){
        .kind = SHMCOLL_KIND_BCAST, .recvbuf = a->recvbuf, .count = s->span, .root = 0};
    SHMCOLL_CHECK(shmcoll_compose_node_start(t));
    SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
    SHMCOLL_RESUME_END(&t->pc);
}

const shmcoll_compose_ops_t shmcoll_compose_allreduce_ops = {.init = allreduce_init,
                                                             .progress = allreduce_progress};
