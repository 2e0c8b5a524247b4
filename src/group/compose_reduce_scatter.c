/* Reduce_scatter and reduce_scatter_block across nodes: reduce the whole vector on each node,
 * reduce-scatter the node results among the leaders by node, scatter each node's part on it.
 *
 * Node phase 1: the node team reduces every member's whole vector to the leader (node rank 0)
 * into its scratch V (any node algorithm). Network step: the leaders (channel 0) reduce-scatter V
 * into the leader's scratch W, node n receiving the concatenation of its members' blocks; with
 * nodes in blocks that is V as it is, otherwise the leader first permutes V's blocks into node
 * order (one pass over the vector, into a second buffer; V then serves as W). Not in place:
 * MPICH 4.0's in-place ireduce_scatter moves the own block with an overlapping memcpy and aborts.
 * Node phase 2: a node scatter(v) of the node's part from W, each member's block straight into
 * its recvbuf (in place: the start of the input, as MPI says). Only the other nodes' parts cross
 * the network, once per leader, whatever the number of ranks per node.
 *
 * Order: the node reductions fold their members in rank order and the network folds the nodes
 * in node order, so non-commutative ops are served only with every node a block of consecutive
 * ranks (declined otherwise, every member alike). Network bytes: each leader hands the other
 * nodes' parts of its node's reduced vector. */
#include "group/compose_blocks.h"

typedef struct compose_reduce_scatter {
    size_t total;              /* elements of the whole vector */
    int blocks;                /* every node a block of consecutive ranks */
    size_t *node_elems;        /* [nnodes]: elements each node receives */
    size_t *elem_off;          /* [size]: where block q starts in the vector (elements) */
    size_t *ncounts, *ndispls; /* [node size] (leader): bytes of the node scatterv */
    char *vector, *ordered;    /* leader: V, and V in node order */
    char *result;              /* leader: W, the node's part */
    shmcoll_compose_heap_t heap;
} compose_reduce_scatter_t;

_Static_assert(sizeof(compose_reduce_scatter_t) <= SHMCOLL_COMPOSE_STATE_BYTES, "state fits");

static size_t count_of(const shmcoll_coll_args_t *a, int q) {
    return a->kind == SHMCOLL_KIND_REDUCE_SCATTER ? a->recvcounts[q] : a->count;
}

static void reduce_scatter_fini(shmcoll_group_task_t *t) {
    shmcoll_compose_heap_free(&SHMCOLL_COMPOSE_STATE(t, compose_reduce_scatter_t)->heap);
}

static shmcoll_status_t reduce_scatter_init(shmcoll_group_task_t *t) {
    const shmcoll_group_t *g = t->group;
    const shmcoll_group_map_t *map = &g->map;
    const shmcoll_coll_args_t *a = t->args;
    const shmcoll_reduce_op_t *op = a->op;
    compose_reduce_scatter_t *s = SHMCOLL_COMPOSE_STATE(t, compose_reduce_scatter_t);
    const int p = g->size, nnodes = map->nnodes, ns = map->node_size[g->node];
    *s = (compose_reduce_scatter_t){.blocks = shmcoll_compose_all_blocks(map)};
    SHMCOLL_CHECK(shmcoll_compose_order_fits(op, map));
    s->heap.arena =
        shmcoll_compose_malloc(((size_t)nnodes + (size_t)p + 2 * (size_t)ns) * sizeof(size_t));
    if (!s->heap.arena) return SHMCOLL_ERR_NO_MEMORY;
    s->node_elems = s->heap.arena;
    s->elem_off = s->node_elems + nnodes;
    s->ncounts = s->elem_off + p;
    s->ndispls = s->ncounts + ns;
    for (int q = 0; q < p; q++) s->elem_off[q] = s->total, s->total += count_of(a, q);
    for (int n = 0; n < nnodes; n++) {
        s->node_elems[n] = 0;
        for (int k = map->node_first[n]; k < map->node_first[n + 1]; k++)
            s->node_elems[n] += count_of(a, map->members[k]);
        if (!shmcoll_net_fits(s->node_elems[n])) /* shared: the counts are everyone's */
            return shmcoll_compose_heap_unwind(&s->heap, SHMCOLL_ERR_NOT_SUPPORTED);
    }
    if (shmcoll_compose_leads(t, 0)) {
        size_t at = 0; /* elements into the node's part */
        for (int i = 0; i < ns; i++) {
            const size_t n = count_of(a, map->members[map->node_first[g->node] + i]);
            s->ncounts[i] = shmcoll_reduce_op_span(op, n);
            s->ndispls[i] = at * op->extent;
            at += n;
        }
        const size_t span = shmcoll_reduce_op_span(op, s->total);
        void **scratch = s->heap.scratch;
        s->vector = scratch[0] = shmcoll_compose_malloc(span);
        if (s->blocks) {
            s->ordered = s->vector;
            s->result = scratch[1] =
                shmcoll_compose_malloc(shmcoll_reduce_op_span(op, s->node_elems[g->node]));
        } else {
            s->ordered = scratch[1] = shmcoll_compose_malloc(span);
            s->result = s->vector;
        }
        if (!s->vector || !s->ordered || !s->result)
            return shmcoll_compose_heap_unwind(&s->heap, SHMCOLL_ERR_NO_MEMORY);
    }
    return SHMCOLL_OK;
}

static shmcoll_status_t reduce_scatter_progress(shmcoll_group_task_t *t) {
    compose_reduce_scatter_t *s = SHMCOLL_COMPOSE_STATE(t, compose_reduce_scatter_t);
    const shmcoll_coll_args_t *a = t->args;
    const shmcoll_reduce_op_t *op = a->op;
    const shmcoll_group_t *g = t->group;
    const shmcoll_group_map_t *map = &g->map;
    const int leader = shmcoll_compose_leads(t, 0);
    SHMCOLL_RESUME_BEGIN(&t->pc);
    shmcoll_compose_reduce_to_leader(t, s->vector, s->total);
    SHMCOLL_CHECK(shmcoll_compose_node_start(t));
    SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
    if (leader) {
        if (s->ordered != s->vector) {
            size_t at = 0; /* elements */
            for (int k = 0; k < g->size; k++) {
                const int q = map->members[k];
                const size_t n = count_of(a, q);
                shmcoll_compose_copy(t, s->ordered + at * op->extent,
                                     s->vector + s->elem_off[q] * op->extent,
                                     shmcoll_reduce_op_span(op, n));
                at += n;
            }
        }
        size_t leaving = 0;
        for (int n = 0; n < map->nnodes; n++)
            if (n != g->node) leaving += shmcoll_reduce_op_span(op, s->node_elems[n]);
        const shmcoll_coll_args_t step = {.kind = SHMCOLL_KIND_REDUCE_SCATTER,
                                          .sendbuf = s->ordered,
                                          .recvbuf = s->result,
                                          .recvcounts = s->node_elems,
                                          .count = s->node_elems[0],
                                          .op = op,
                                          .net_op = a->net_op};
        SHMCOLL_CHECK(shmcoll_compose_leaders_start(t, &step, leaving, 0));
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_net_test(t));
    }
    {
        const size_t mine = shmcoll_reduce_op_span(op, count_of(a, g->rank));
        const int abut = a->kind == SHMCOLL_KIND_REDUCE_SCATTER_BLOCK &&
                         mine == a->count * op->extent; /* a scatter of equal blocks */
        shmcoll_compose_scatter_blocks(t, abut, s->result, s->ncounts, s->ndispls, a->recvbuf, mine,
                                       0);
    }
    SHMCOLL_CHECK(shmcoll_compose_node_start(t));
    SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
    SHMCOLL_RESUME_END(&t->pc);
}

const shmcoll_compose_ops_t shmcoll_compose_reduce_scatter_ops = {
    .init = reduce_scatter_init, .progress = reduce_scatter_progress, .fini = reduce_scatter_fini};
