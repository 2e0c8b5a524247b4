/* Gather and gatherv across nodes: each node gathers to its leader, the leaders gather to the
 * root's node through the network, and the root's own node gathers straight into the root.
 *
 * Root r on node R at node rank rr; blocks packed in node order. Every node but R: node phase
 * (gatherv only) a node gather of the members' block sizes to the leader, which then knows its
 * node's total and takes a buffer P of that size (the only member that could not size it at
 * init); node phase: a node gather(v) of the blocks to the leader into P; network step: the
 * leaders (channel 0) gatherv to R's leader, P from each node. Node R: (gatherv, rr != 0) first a
 * transfer of every node's total from r, which alone knows the counts, to R's leader; the leader
 * starts the network step (R contributes nothing to it) and, while it is in flight, R gathers
 * its own members' blocks straight into r's recvbuf (a node gather(v) rooted at rr: R's blocks
 * never cross a buffer of the leader's); if rr != 0 the other nodes' blocks then move from the
 * leader to r as one transfer (a node gatherv in which only the leader sends). r places each
 * block at its displacement; where the blocks lie back to back in rank order with nodes in
 * blocks, they arrive in place instead (r leads R, or R is the first or the last node).
 * Network bytes: each leader but R's hands its node's blocks. */
#include "group/compose_blocks.h"

typedef struct compose_gather {
    shmcoll_compose_rooted_t blocks; /* the rooted plan (compose_blocks.h) */
    int pc;                          /* node R's part */
} compose_gather_t;

_Static_assert(sizeof(compose_gather_t) <= SHMCOLL_COMPOSE_STATE_BYTES, "state fits");

static void gather_fini(shmcoll_group_task_t *t) {
    shmcoll_compose_heap_free(&SHMCOLL_COMPOSE_STATE(t, compose_gather_t)->blocks.heap);
}

static shmcoll_status_t gather_init(shmcoll_group_task_t *t) {
    compose_gather_t *s = SHMCOLL_COMPOSE_STATE(t, compose_gather_t);
    s->pc = 0;
    return shmcoll_compose_rooted_init(t, &s->blocks);
}

static shmcoll_status_t root_node_progress(shmcoll_group_task_t *t);

static shmcoll_status_t gather_progress(shmcoll_group_task_t *t) {
    compose_gather_t *s = SHMCOLL_COMPOSE_STATE(t, compose_gather_t);
    shmcoll_compose_rooted_t *b = &s->blocks;
    const shmcoll_coll_args_t *a = t->args;
    const shmcoll_group_t *g = t->group;
    SHMCOLL_RESUME_BEGIN(&t->pc);
    if (g->node != b->root_node) {
        if (!b->at_root.uniform)
            SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_rooted_learn_node_sizes(t, b));
        shmcoll_compose_gather_blocks(t, b->at_root.uniform, a->sendbuf, b->my_size, b->packed,
                                      b->ncounts, b->ndispls, 0);
        SHMCOLL_CHECK(shmcoll_compose_node_start(t));
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
        if (shmcoll_compose_leads(t, 0)) {
            const size_t mine = b->node_total[g->node];
            const shmcoll_coll_args_t step = {.kind = SHMCOLL_KIND_GATHERV,
                                              .sendbuf = b->packed,
                                              .sendbytes = mine,
                                              .root = b->root_node};
            /* Overlapped on the root's node (the same on every leader). */
            SHMCOLL_CHECK(shmcoll_compose_leaders_start(t, &step, mine, 1));
            SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_net_test(t));
        }
    } else {
        SHMCOLL_AWAIT_TEST(&t->pc, root_node_progress(t));
    }
    SHMCOLL_RESUME_END(&t->pc);
}

/* Node R's part, resumable on its own resume point. */
static shmcoll_status_t root_node_progress(shmcoll_group_task_t *t) {
    compose_gather_t *s = SHMCOLL_COMPOSE_STATE(t, compose_gather_t);
    shmcoll_compose_rooted_t *b = &s->blocks;
    const shmcoll_coll_args_t *a = t->args;
    const shmcoll_group_t *g = t->group;
    const shmcoll_group_map_t *map = &g->map;
    const int leader = shmcoll_compose_leads(t, 0), is_root = g->rank == a->root;
    static const unsigned char nothing;
    SHMCOLL_RESUME_BEGIN(&s->pc);
    if (!b->at_root.uniform && b->root_rank != 0)
        SHMCOLL_AWAIT_TEST(&s->pc, shmcoll_compose_rooted_learn_totals(t, b));
    if (leader) {
        const shmcoll_coll_args_t step = {.kind = SHMCOLL_KIND_GATHERV,
                                          .sendbuf = &nothing, /* R's blocks stay on R */
                                          .sendbytes = 0,
                                          .recvbuf = b->packed,
                                          .recvcounts = b->net_counts,
                                          .rdispls = b->net_displs,
                                          .root = b->root_node};
        SHMCOLL_CHECK(shmcoll_compose_leaders_start(t, &step, 0, 1));
    }
    {
        /* Straight into r's recvbuf: a gather where R's blocks lie there as one stretch. */
        const int stretch = b->at_root.uniform && shmcoll_group_map_block(map, g->node);
        const size_t first = stretch ? (size_t)map->members[map->node_first[g->node]] : 0;
        char *into = is_root ? (char *)a->recvbuf + first * b->at_root.block : NULL;
        shmcoll_compose_gather_blocks(t, stretch, a->sendbuf, b->my_size, into,
                                      is_root ? b->ncounts : NULL, is_root ? b->ndispls : NULL,
                                      b->root_rank);
    }
    SHMCOLL_CHECK(shmcoll_compose_node_start(t));
    SHMCOLL_AWAIT_TEST(&s->pc, shmcoll_compose_node_test(t));
    if (leader) SHMCOLL_AWAIT_TEST(&s->pc, shmcoll_compose_net_test(t));
    if (b->root_rank != 0) {
        shmcoll_compose_transfer(t, 0, b->root_rank, b->packed, b->other_blocks, b->other_bytes,
                                 b->tcounts, b->tdispls);
        SHMCOLL_CHECK(shmcoll_compose_node_start(t));
        SHMCOLL_AWAIT_TEST(&s->pc, shmcoll_compose_node_test(t));
    }
    shmcoll_compose_rooted_restage(t, b, 1);
    SHMCOLL_RESUME_END(&s->pc);
}

const shmcoll_compose_ops_t shmcoll_compose_gather_ops = {
    .init = gather_init, .progress = gather_progress, .fini = gather_fini};
