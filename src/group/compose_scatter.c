/* Scatter and scatterv across nodes, the reverse of gather: the root's node hands the other
 * nodes' blocks to its leader, the leaders scatter them through the network, each node scatters
 * from its leader, and the root's own node scatters straight from the root.
 *
 * Root r on node R at node rank rr; blocks packed in node order. Node R: (scatterv, rr != 0)
 * first a transfer of every node's total from r, which alone knows the counts, to R's leader,
 * which then takes a buffer P' for the other nodes' blocks; if rr != 0 r packs those blocks and
 * hands them to the leader in one transfer (a node gatherv in which only r sends). R's leader
 * starts the network step (a scatterv among the leaders, channel 0, R keeping nothing) and, while
 * it is in flight, R scatters its own members' blocks straight from r's sendbuf (a node
 * scatter(v) rooted at rr). Every other node: (scatterv) a node gather of the members' block
 * sizes to the leader, which then takes a buffer P of its node's total; the leader receives P
 * from the network; a node scatter(v) from the leader. Where the blocks lie back to back in rank
 * order with nodes in blocks, r's sendbuf serves as P' as it is (r leads R, or R is the first or
 * the last node). Network bytes: R's leader hands every other node's blocks; the others none. */
#include "group/compose_blocks.h"

typedef struct compose_scatter {
    shmcoll_compose_rooted_t blocks; /* the rooted plan (compose_blocks.h) */
    unsigned char nothing;           /* R's leader receives nothing from the network */
} compose_scatter_t;

_Static_assert(sizeof(compose_scatter_t) <= SHMCOLL_COMPOSE_STATE_BYTES, "state fits");

static void scatter_fini(shmcoll_group_task_t *t) {
    shmcoll_compose_heap_free(&SHMCOLL_COMPOSE_STATE(t, compose_scatter_t)->blocks.heap);
}

static shmcoll_status_t scatter_init(shmcoll_group_task_t *t) {
    compose_scatter_t *s = SHMCOLL_COMPOSE_STATE(t, compose_scatter_t);
    s->nothing = 0;
    return shmcoll_compose_rooted_init(t, &s->blocks);
}

static shmcoll_status_t scatter_progress(shmcoll_group_task_t *t) {
    compose_scatter_t *s = SHMCOLL_COMPOSE_STATE(t, compose_scatter_t);
    shmcoll_compose_rooted_t *b = &s->blocks;
    const shmcoll_coll_args_t *a = t->args;
    const shmcoll_group_t *g = t->group;
    const shmcoll_group_map_t *map = &g->map;
    const int leader = shmcoll_compose_leads(t, 0), is_root = g->rank == a->root;
    SHMCOLL_RESUME_BEGIN(&t->pc);
    if (g->node != b->root_node) {
        if (!b->at_root.uniform)
            SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_rooted_learn_node_sizes(t, b));
        if (leader) {
            const shmcoll_coll_args_t step = {.kind = SHMCOLL_KIND_SCATTERV,
                                              .recvbuf = b->packed,
                                              .recvbytes = b->node_total[g->node],
                                              .root = b->root_node};
            /* Overlapped on the root's node (the same on every leader). */
            SHMCOLL_CHECK(shmcoll_compose_leaders_start(t, &step, 0, 1));
            SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_net_test(t));
        }
        shmcoll_compose_scatter_blocks(t, b->at_root.uniform, b->packed, b->ncounts, b->ndispls,
                                       a->recvbuf, b->my_size, 0);
        SHMCOLL_CHECK(shmcoll_compose_node_start(t));
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
    } else {
        /* Node R. */
        if (!b->at_root.uniform && b->root_rank != 0)
            SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_rooted_learn_totals(t, b));
        shmcoll_compose_rooted_restage(t, b, 0);
        if (b->root_rank != 0) {
            shmcoll_compose_transfer(t, b->root_rank, 0, b->other_blocks, b->packed, b->other_bytes,
                                     b->tcounts, b->tdispls);
            SHMCOLL_CHECK(shmcoll_compose_node_start(t));
            SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
        }
        if (leader) {
            const shmcoll_coll_args_t step = {.kind = SHMCOLL_KIND_SCATTERV,
                                              .sendbuf = b->packed,
                                              .sendcounts = b->net_counts,
                                              .sdispls = b->net_displs,
                                              .recvbuf = &s->nothing, /* R keeps nothing */
                                              .recvbytes = 0,
                                              .root = b->root_node};
            SHMCOLL_CHECK(shmcoll_compose_leaders_start(t, &step, b->other_bytes, 1));
        }
        {
            /* Straight from r's sendbuf: a scatter where R's blocks lie there as one stretch. */
            const int stretch = b->at_root.uniform && shmcoll_group_map_block(map, g->node);
            const size_t first = stretch ? (size_t)map->members[map->node_first[g->node]] : 0;
            const char *from = is_root ? (const char *)a->sendbuf + first * b->at_root.block : NULL;
            shmcoll_compose_scatter_blocks(t, stretch, from, is_root ? b->ncounts : NULL,
                                           is_root ? b->ndispls : NULL, a->recvbuf, b->my_size,
                                           b->root_rank);
        }
        SHMCOLL_CHECK(shmcoll_compose_node_start(t));
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
        if (leader) SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_net_test(t));
    }
    SHMCOLL_RESUME_END(&t->pc);
}

const shmcoll_compose_ops_t shmcoll_compose_scatter_ops = {
    .init = scatter_init, .progress = scatter_progress, .fini = scatter_fini};
