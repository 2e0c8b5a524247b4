/* Allgather and allgatherv across nodes: gather on each node, allgather the nodes' packed blocks
 * among the leaders, broadcast the whole result on each node.
 *
 * Blocks are packed in node order (node 0's members in node rank order, then node 1's, ...).
 * Node phase 1: a node gather(v) of the members' blocks to the leader (node rank 0), into its
 * node's place in the packed buffer P. Network step: the leaders (channel 0) allgatherv P in
 * place, node n contributing its members' bytes. The leader then lays P out in rank order (R):
 * with nodes in blocks the two orders are one and nothing moves. Node phase 2: a node bcast of R
 * from the leader. Each member then places the blocks at its own displacements, unless they lie
 * back to back in rank order in its recvbuf (always so for allgather), where R is recvbuf itself
 * and the data arrive in place: with nodes in blocks and such a layout no member copies anything
 * outside the node phases. The displacements of allgatherv may differ between members (MPI
 * allows it); each member's choice of R is its own and changes nothing of the protocol.
 * Network bytes: each leader hands its node's blocks (the sum of its members' counts). */
#include "group/compose_blocks.h"

typedef struct compose_allgather {
    shmcoll_compose_layout_t layout; /* the blocks in this member's recvbuf */
    int blocks;                      /* every node a block of consecutive ranks */
    int contiguous;                  /* this member's blocks lie back to back in rank order */
    size_t base, total;              /* from base */
    size_t *node_total, *node_off;   /* [nnodes]: the network step's counts and displacements */
    size_t *pos, *prefix;            /* [size]: node-packed and rank-packed offset of each block */
    size_t *ncounts, *ndispls;       /* [node size]: the leader's node gatherv */
    char *packed, *ranked;           /* P (leaders) and R */
    shmcoll_compose_heap_t heap;
} compose_allgather_t;

_Static_assert(sizeof(compose_allgather_t) <= SHMCOLL_COMPOSE_STATE_BYTES, "state fits");

static void allgather_fini(shmcoll_group_task_t *t) {
    shmcoll_compose_heap_free(&SHMCOLL_COMPOSE_STATE(t, compose_allgather_t)->heap);
}

static shmcoll_status_t allgather_init(shmcoll_group_task_t *t) {
    const shmcoll_group_t *g = t->group;
    const shmcoll_group_map_t *map = &g->map;
    const shmcoll_coll_args_t *a = t->args;
    compose_allgather_t *s = SHMCOLL_COMPOSE_STATE(t, compose_allgather_t);
    const int p = g->size, nnodes = map->nnodes, ns = map->node_size[g->node];
    const int uniform = a->kind == SHMCOLL_KIND_ALLGATHER;
    *s = (compose_allgather_t){.layout = {.uniform = uniform,
                                          .block = a->count,
                                          .counts = uniform ? NULL : a->recvcounts,
                                          .displs = uniform ? NULL : a->rdispls}};
    const shmcoll_compose_layout_t *l = &s->layout;
    s->blocks = shmcoll_compose_all_blocks(map);
    s->heap.arena = shmcoll_compose_malloc((2 * (size_t)nnodes + 2 * (size_t)p + 2 * (size_t)ns) *
                                           sizeof(size_t));
    if (!s->heap.arena) return SHMCOLL_ERR_NO_MEMORY;
    s->node_total = s->heap.arena;
    s->node_off = s->node_total + nnodes;
    s->pos = s->node_off + nnodes;
    s->prefix = s->pos + p;
    s->ncounts = s->prefix + p;
    s->ndispls = s->ncounts + ns;
    s->total =
        shmcoll_compose_node_packed(map, l->counts, l->block, s->node_total, s->node_off, s->pos);
    /* Declined from the counts, which every member shares. */
    if (!shmcoll_compose_fits_all(s->node_total, nnodes) ||
        !shmcoll_compose_fits_all(s->node_off, nnodes))
        return shmcoll_compose_heap_unwind(&s->heap, SHMCOLL_ERR_NOT_SUPPORTED);
    size_t at = 0;
    for (int q = 0; q < p; q++) {
        s->prefix[q] = at;
        at += shmcoll_compose_layout_count(l, q);
    }
    for (int i = 0; i < ns; i++) {
        const int q = map->members[map->node_first[g->node] + i];
        s->ncounts[i] = shmcoll_compose_layout_count(l, q);
        s->ndispls[i] = s->pos[q] - s->node_off[g->node];
    }
    s->contiguous = shmcoll_compose_contiguous(p, l->counts, l->displs, l->block, &s->base);
    char *in_recvbuf = (char *)a->recvbuf + s->base;
    void **scratch = s->heap.scratch;
    if (shmcoll_compose_leads(t, 0)) {
        if (s->blocks && s->contiguous) {
            s->packed = s->ranked = in_recvbuf;
        } else {
            s->packed = scratch[0] = shmcoll_compose_malloc(s->total);
            s->ranked = s->blocks       ? s->packed
                        : s->contiguous ? in_recvbuf
                                        : (scratch[1] = shmcoll_compose_malloc(s->total));
            if (!s->packed || !s->ranked)
                return shmcoll_compose_heap_unwind(&s->heap, SHMCOLL_ERR_NO_MEMORY);
        }
    } else {
        s->ranked = s->contiguous ? in_recvbuf : (scratch[0] = shmcoll_compose_malloc(s->total));
        if (!s->ranked) return shmcoll_compose_heap_unwind(&s->heap, SHMCOLL_ERR_NO_MEMORY);
    }
    return SHMCOLL_OK;
}

static shmcoll_status_t allgather_progress(shmcoll_group_task_t *t) {
    compose_allgather_t *s = SHMCOLL_COMPOSE_STATE(t, compose_allgather_t);
    const shmcoll_compose_layout_t *l = &s->layout;
    const shmcoll_coll_args_t *a = t->args;
    const shmcoll_group_t *g = t->group;
    const int me = g->rank, p = g->size, leader = shmcoll_compose_leads(t, 0);
    SHMCOLL_RESUME_BEGIN(&t->pc);
    {
        const char *mine =
            a->sendbuf ? a->sendbuf : (char *)a->recvbuf + shmcoll_compose_layout_displ(l, me);
        char *slot = leader ? s->packed + s->node_off[g->node] : NULL;
        if (mine == slot) mine = NULL; /* the leader's block is in its place: in place */
        shmcoll_compose_gather_blocks(t, l->uniform, mine, shmcoll_compose_layout_count(l, me),
                                      slot, s->ncounts, s->ndispls, 0);
    }
    SHMCOLL_CHECK(shmcoll_compose_node_start(t));
    SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
    if (leader) {
        const shmcoll_coll_args_t step = {.kind = SHMCOLL_KIND_ALLGATHERV,
                                          .sendbuf = NULL, /* in place */
                                          .sendbytes = s->node_total[g->node],
                                          .recvbuf = s->packed,
                                          .recvcounts = s->node_total,
                                          .rdispls = s->node_off};
        SHMCOLL_CHECK(shmcoll_compose_leaders_start(t, &step, s->node_total[g->node], 0));
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_net_test(t));
        if (s->ranked != s->packed)
            for (int q = 0; q < p; q++)
                shmcoll_compose_copy(t, s->ranked + s->prefix[q], s->packed + s->pos[q],
                                     shmcoll_compose_layout_count(l, q));
    }
    t->node_args = (shmcoll_coll_args_t){
        .kind = SHMCOLL_KIND_BCAST, .recvbuf = s->ranked, .count = s->total, .root = 0};
    SHMCOLL_CHECK(shmcoll_compose_node_start(t));
    SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
    if (!s->contiguous)
        for (int q = 0; q < p; q++)
            if (a->sendbuf || q != me)
                shmcoll_compose_copy(t, (char *)a->recvbuf + shmcoll_compose_layout_displ(l, q),
                                     s->ranked + s->prefix[q], shmcoll_compose_layout_count(l, q));
    SHMCOLL_RESUME_END(&t->pc);
}

const shmcoll_compose_ops_t shmcoll_compose_allgather_ops = {
    .init = allgather_init, .progress = allgather_progress, .fini = allgather_fini};
