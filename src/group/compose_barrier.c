/* Barrier across nodes: every node's members arrive on their node, the leaders meet through the
 * network, and each leader releases its node.
 *
 * Node phase 1: a node barrier (every member of the node has arrived once it is done, in
 * particular at the leader). Network step: the leaders (node rank 0, channel 0) run a barrier,
 * which completes once every leader, hence every member of every node, has arrived. Node phase
 * 2: a bcast of one byte from the leader, which it starts only after the network step: no member
 * leaves before every node has arrived, and the release costs one flag per member instead of a
 * second barrier. Network bytes: none. */
#include "group/compose.h"

typedef struct compose_barrier {
    unsigned char token;
} compose_barrier_t;

_Static_assert(sizeof(compose_barrier_t) <= SHMCOLL_COMPOSE_STATE_BYTES, "state fits");

static shmcoll_status_t barrier_init(shmcoll_group_task_t *t) {
    SHMCOLL_COMPOSE_STATE(t, compose_barrier_t)->token = 0;
    return SHMCOLL_OK;
}

static shmcoll_status_t barrier_progress(shmcoll_group_task_t *t) {
    compose_barrier_t *s = SHMCOLL_COMPOSE_STATE(t, compose_barrier_t);
    SHMCOLL_RESUME_BEGIN(&t->pc);
    t->node_args = (shmcoll_coll_args_t){.kind = SHMCOLL_KIND_BARRIER};
    SHMCOLL_CHECK(shmcoll_compose_node_start(t));
    SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
    if (shmcoll_compose_leads(t, 0)) {
        t->net = (shmcoll_net_coll_t){.channel = 0, .args = {.kind = SHMCOLL_KIND_BARRIER}};
        SHMCOLL_CHECK(shmcoll_compose_net_start(t, 0));
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_net_test(t));
    }
    t->node_args = (shmcoll_coll_args_t){
        .kind = SHMCOLL_KIND_BCAST, .recvbuf = &s->token, .count = 1, .root = 0};
    SHMCOLL_CHECK(shmcoll_compose_node_start(t));
    SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
    SHMCOLL_RESUME_END(&t->pc);
}

const shmcoll_compose_ops_t shmcoll_compose_barrier_ops = {.init = barrier_init,
                                                           .progress = barrier_progress};
