/* Reduce across nodes: reduce on each node to its leader, reduce among the leaders through the
 * network to the root's node, and hand the result to the root if it is not its node's leader.
 *
 * Root r on node R at node rank rr. Node phase 1 (every node): the node team reduces its
 * members' inputs to node rank 0 into the leader's scratch A (any node algorithm). Network step:
 * the leaders (node rank 0, channel 0) reduce the A's to R's leader: into r's recvbuf when r
 * leads R, else into R's leader's scratch B. The network step is never in place, so MPI never
 * sees MPI_IN_PLACE at a non-zero root (MPICH 4.0.2-4.1.1 crash there). Node phase 2, on R only
 * and only when rr != 0: B moves from the leader to r as a node gatherv rooted at rr in which only
 * the leader sends: one copy into r's recvbuf, no buffer on R's other members, and every member
 * of R decides it alike from the root alone.
 *
 * Order: the node reductions fold their members in rank order and the network folds the nodes
 * in node order, so non-commutative ops get the canonical order when every node holds a block of
 * consecutive ranks; otherwise they are declined (every member alike, from the map). Network
 * bytes: s from every leader but R's (whose node result stays on R). */
#include "group/compose_blocks.h"

#include <stdlib.h>

typedef struct compose_reduce {
    int root_node, root_rank;
    size_t span;
    void *scratch;  /* leaders: A, then B on R's leader when r does not lead R */
    size_t *counts; /* r, when rr != 0: the transfer's node arrays */
} compose_reduce_t;

_Static_assert(sizeof(compose_reduce_t) <= SHMCOLL_COMPOSE_STATE_BYTES, "state fits");

static shmcoll_status_t reduce_init(shmcoll_group_task_t *t) {
    const shmcoll_group_t *g = t->group;
    const shmcoll_coll_args_t *a = t->args;
    compose_reduce_t *s = SHMCOLL_COMPOSE_STATE(t, compose_reduce_t);
    SHMCOLL_CHECK(shmcoll_compose_order_fits(a->op, &g->map));
    SHMCOLL_CHECK(shmcoll_compose_count_fits(a->count));
    s->root_node = g->map.node_of[a->root];
    s->root_rank = g->map.node_rank[a->root];
    s->span = shmcoll_reduce_op_span(a->op, a->count);
    s->scratch = NULL;
    s->counts = NULL;
    const int leader = shmcoll_compose_leads(t, 0);
    const int on_root_node = g->node == s->root_node;
    if (leader) {
        const size_t bytes = s->span * (on_root_node && s->root_rank != 0 ? 2 : 1);
        if (!(s->scratch = shmcoll_compose_malloc(bytes))) return SHMCOLL_ERR_NO_MEMORY;
    }
    if (g->rank == a->root && s->root_rank != 0) {
        s->counts =
            shmcoll_compose_malloc(2 * (size_t)g->map.node_size[g->node] * sizeof *s->counts);
        if (!s->counts) {
            shmcoll_compose_free(s->scratch);
            return SHMCOLL_ERR_NO_MEMORY;
        }
    }
    return SHMCOLL_OK;
}

static shmcoll_status_t reduce_progress(shmcoll_group_task_t *t) {
    compose_reduce_t *s = SHMCOLL_COMPOSE_STATE(t, compose_reduce_t);
    const shmcoll_coll_args_t *a = t->args;
    const shmcoll_group_t *g = t->group;
    const int leader = shmcoll_compose_leads(t, 0);
    const int on_root_node = g->node == s->root_node;
    const int is_root = g->rank == a->root;
    char *node_result = s->scratch;                                /* A, at leaders */
    char *net_result = is_root      ? a->recvbuf                   /* r leads R */
                       : s->scratch ? (char *)s->scratch + s->span /* B on R's leader */
                                    : NULL;
    SHMCOLL_RESUME_BEGIN(&t->pc);
    shmcoll_compose_reduce_to_leader(t, leader ? node_result : NULL, a->count);
    SHMCOLL_CHECK(shmcoll_compose_node_start(t));
    SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
    if (leader) {
        const shmcoll_coll_args_t step = {.kind = SHMCOLL_KIND_REDUCE,
                                          .sendbuf = node_result,
                                          .recvbuf = on_root_node ? net_result : NULL,
                                          .count = a->count,
                                          .op = a->op,
                                          .root = s->root_node,
                                          .net_op = a->net_op};
        SHMCOLL_CHECK(shmcoll_compose_leaders_start(t, &step, on_root_node ? 0 : s->span, 0));
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_net_test(t));
    }
    if (on_root_node && s->root_rank != 0) {
        shmcoll_compose_transfer(t, 0, s->root_rank, net_result, a->recvbuf, s->span, s->counts,
                                 s->counts ? s->counts + g->map.node_size[g->node] : NULL);
        SHMCOLL_CHECK(shmcoll_compose_node_start(t));
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
    }
    SHMCOLL_RESUME_END(&t->pc);
}

static void reduce_fini(shmcoll_group_task_t *t) {
    compose_reduce_t *s = SHMCOLL_COMPOSE_STATE(t, compose_reduce_t);
    shmcoll_compose_free(s->scratch);
    shmcoll_compose_free(s->counts);
}

const shmcoll_compose_ops_t shmcoll_compose_reduce_ops = {
    .init = reduce_init, .progress = reduce_progress, .fini = reduce_fini};
