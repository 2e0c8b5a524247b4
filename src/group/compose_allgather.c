/* Allgather and allgatherv across nodes: gather on each node, allgather the nodes' packed blocks
 * among the leaders, broadcast the whole result on each node.
 *
 * Blocks are packed in node order (node 0's members in node rank order, then node 1's, ...).
 * Node phase 1: a node gather(v) of the members' blocks to the leader (node rank 0), into its
 * node's place in the packed buffer P. Network step: the leaders (channel 0) allgatherv P in
 * place, node n contributing its members' bytes. The leader then lays P out in rank order (R):
 * with nodes in blocks the two orders are one and nothing moves. Node phase 2: a node bcast of R
 * from the leader. Where P is too large to be kept between calls (group/scratch.h) and the
 * blocks are of one size (allgather) back to back in the leader's recvbuf, P is that recvbuf and
 * the leader permutes it into rank order in place, cycle by cycle with one spare block: a fresh
 * mapping of the whole result faulted in on every call (128 MiB for 8 ranks' 16 MiB, nodes
 * placed round-robin) made MPICH's allgather faster than the composition at 4x2 (0.84x; in
 * place 1.32x). Smaller P stays scratch: Open MPI's allgatherv into the kept scratch was faster
 * at 4x2 with 1 MiB blocks (1.18x against 0.65-0.79x in place). Each member then places the
 * blocks at its own displacements, unless they lie
 * back to back in rank order in its recvbuf (always so for allgather), where R is recvbuf itself
 * and the data arrive in place: with nodes in blocks and such a layout no member copies anything
 * outside the node phases. The displacements of allgatherv may differ between members (MPI
 * allows it); each member's choice of R is its own and changes nothing of the protocol.
 * Network bytes: each leader hands its node's blocks (the sum of its members' counts). */
#include "group/compose_blocks.h"

#include <string.h>

typedef struct compose_allgather {
    shmcoll_compose_layout_t layout; /* the blocks in this member's recvbuf */
    int blocks;                      /* every node a block of consecutive ranks */
    int contiguous;                  /* this member's blocks lie back to back in rank order */
    size_t base, total;              /* from base */
    size_t *node_total, *node_off;   /* [nnodes]: the network step's counts and displacements */
    size_t *pos, *prefix;            /* [size]: node-packed and rank-packed offset of each block */
    size_t *ncounts, *ndispls;       /* [node size]: the leader's node gatherv */
    char *packed, *ranked;           /* P (leaders) and R */
    char *spare;                     /* a leader permuting P in place: one block */
    unsigned char *moved;            /* [size] (the same): the blocks the permutation placed */
    shmcoll_compose_heap_t heap;
} compose_allgather_t;

_Static_assert(sizeof(compose_allgather_t) <= SHMCOLL_COMPOSE_STATE_BYTES, "state fits");

static void allgather_fini(shmcoll_group_task_t *t) {
    shmcoll_compose_heap_free(&SHMCOLL_COMPOSE_STATE(t, compose_allgather_t)->heap);
}

/* Whether the leader gathers its node's blocks into node-packed order in its own recvbuf and
 * permutes them there: where P could not be kept as scratch between calls, blocks of one size,
 * back to back in rank order, and, in place, its own block either already in its node-packed
 * place or outside its node's packed range (which the node gather fills). */
static int permutes_in_place(const shmcoll_group_t *g, const compose_allgather_t *s, int sendbuf) {
    const int me = g->rank;
    if (!s->layout.uniform || !s->contiguous || !s->layout.block ||
        s->total <= shmcoll_scratch_keep())
        return 0;
    if (sendbuf || s->pos[me] == s->prefix[me]) return 1;
    const size_t from = s->node_off[g->node], to = from + s->node_total[g->node];
    return s->prefix[me] + s->layout.block <= from || s->prefix[me] >= to;
}

/* P (node-packed) into R (rank order) within one buffer, blocks of one size: slot k must receive
 * rank k's block, which lies in slot pos[k] / block. Each cycle of that permutation starts by
 * saving its first slot's block in the spare, then fills each slot from the next, and the last
 * slot from the spare: every block moves once, a cycle's first twice. */
static void permute_in_place(shmcoll_group_task_t *t, compose_allgather_t *s, int p) {
    const size_t b = s->layout.block;
    char *buf = s->packed;
    memset(s->moved, 0, (size_t)p);
    for (int start = 0; start < p; start++) {
        if (s->moved[start] || s->pos[start] == (size_t)start * b) continue;
        shmcoll_compose_copy(t, s->spare, buf + (size_t)start * b, b);
        for (int k = start;;) {
            s->moved[k] = 1;
            const int from = (int)(s->pos[k] / b);
            if (from == start) {
                shmcoll_compose_copy(t, buf + (size_t)k * b, s->spare, b);
                break;
            }
            shmcoll_compose_copy(t, buf + (size_t)k * b, buf + (size_t)from * b, b);
            k = from;
        }
    }
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
    s->heap.arena = shmcoll_compose_malloc(
        (2 * (size_t)nnodes + 2 * (size_t)p + 2 * (size_t)ns) * sizeof(size_t) + (size_t)p);
    if (!s->heap.arena) return SHMCOLL_ERR_NO_MEMORY;
    s->node_total = s->heap.arena;
    s->node_off = s->node_total + nnodes;
    s->pos = s->node_off + nnodes;
    s->prefix = s->pos + p;
    s->ncounts = s->prefix + p;
    s->ndispls = s->ncounts + ns;
    s->moved = (unsigned char *)(s->ndispls + ns);
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
        } else if (permutes_in_place(g, s, a->sendbuf != NULL)) {
            s->packed = s->ranked = in_recvbuf;
            s->spare = scratch[0] = shmcoll_compose_malloc(l->block);
            if (!s->spare) return shmcoll_compose_heap_unwind(&s->heap, SHMCOLL_ERR_NO_MEMORY);
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
        if (s->spare)
            permute_in_place(t, s, p);
        else if (s->ranked != s->packed)
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
