/* Alltoall and alltoallv across nodes, aggregated per node: each node's leader collects its
 * members' whole send sides, the leaders exchange one message per pair of nodes, and each leader
 * hands its members what they receive.
 *
 * Node phase (alltoallv only): a node gather of every member's block sizes (what it sends to and
 * receives from each rank) to the leader, which then sizes its two buffers X and Y (the only
 * member that could not size them at init). Node phase: a node gather(v) of every member's
 * whole send side to the leader, into X (member i's blocks in rank order). The leader permutes
 * X into Y by destination node (for node m: from each of its members i, to each member j of m)
 * and the leaders (channel 0) run one alltoallv, Y to X: node n sends node m exactly the blocks
 * from n's members to m's members, so p*p blocks cross the network as nnodes*nnodes messages.
 * The leader permutes X into Y by destination member (each member's blocks in source rank
 * order) and a node scatter(v) hands each member its receive side, straight into recvbuf where
 * its blocks lie back to back in rank order (always so for alltoall).
 *
 * Aggregation pays where blocks are small, and costs four passes over a node's data in one
 * process and two buffers of it: alltoall is declined (every member alike, from the block size
 * and the map) when a node's send side, node size * p * block, exceeds
 * SHMCOLL_NET_ALLTOALL_MAX (128 KiB). Measured between two nodes of two ranks: aggregation
 * 1.45-1.5x faster than the MPI library's alltoall with 4 KiB blocks (32 KiB per node), 0.4-0.5x
 * with 32 KiB blocks (256 KiB per node); measured again with the scratch kept between calls
 * (both libraries, SHMCOLL_NET_ALLTOALL_MAX=64M): even with 64 KiB blocks (512 KiB per node),
 * 0.6-0.9x with 256 KiB blocks, 0.4-0.55x with 1 and 4 MiB blocks. The leader's copies then cost
 * more than the messages they save, and the MPI library's pairwise exchange moves each block once.
 * Alltoallv has no such shared size: only each member knows its own blocks, so it is served at any
 * size, with buffers of the node's data at the leader. Network bytes: each leader hands its
 * node's blocks to other nodes. */
#include "group/compose_blocks.h"
#include "base/config.h"

typedef struct compose_alltoall {
    int uniform; /* alltoall: `block` bytes per pair */
    size_t block;
    size_t send_total, recv_total; /* this member's */
    int send_contiguous, recv_contiguous;
    size_t send_base, recv_base;
    size_t *sizes;       /* [2p] (alltoallv): this member's send sizes, then receive sizes */
    size_t *all_sizes;   /* [node size][2p] (leader, alltoallv): every member's */
    size_t *xoff, *roff; /* [node size][p] (leader): block i->q in X; block q->j in X */
    size_t *net;         /* [4][nnodes] (leader): send counts, displs, receive counts, displs */
    size_t *ncounts, *ndispls; /* [node size] (leader): node gatherv */
    size_t *tcounts, *tdispls; /* [node size] (leader): node scatterv */
    const char *send;          /* this member's send side, back to back in rank order */
    char *recv;                /* where its receive side arrives */
    char *x, *y;               /* leader */
    shmcoll_compose_heap_t heap;
} compose_alltoall_t;

_Static_assert(sizeof(compose_alltoall_t) <= SHMCOLL_COMPOSE_STATE_BYTES, "state fits");

/* What member i of this node sends to q, and what member j receives from q (leader). */
static size_t send_size(const compose_alltoall_t *s, int p, int i, int q) {
    return s->uniform ? s->block : s->all_sizes[(size_t)i * 2 * p + q];
}
static size_t recv_size(const compose_alltoall_t *s, int p, int j, int q) {
    return s->uniform ? s->block : s->all_sizes[(size_t)j * 2 * p + p + q];
}

static void alltoall_fini(shmcoll_group_task_t *t) {
    shmcoll_compose_heap_free(&SHMCOLL_COMPOSE_STATE(t, compose_alltoall_t)->heap);
}

/* The leader's plan from every member's sizes: X and Y offsets, the network step's counts, the
 * node phases' counts. Returns the larger of the node's send and receive totals, or SIZE_MAX if
 * a count does not fit the network. */
static size_t plan_leader(const shmcoll_group_t *g, compose_alltoall_t *s) {
    const shmcoll_group_map_t *map = &g->map;
    const int p = g->size, nnodes = map->nnodes, ns = map->node_size[g->node];
    size_t *scounts = s->net, *sdispls = scounts + nnodes;
    size_t *rcounts = sdispls + nnodes, *rdispls = rcounts + nnodes;
    size_t send = 0, recv = 0;
    for (int i = 0; i < ns; i++) { /* X as gathered: member i's blocks in rank order */
        s->ndispls[i] = send;
        for (int q = 0; q < p; q++) {
            s->xoff[(size_t)i * p + q] = send;
            send += send_size(s, p, i, q);
        }
        s->ncounts[i] = send - s->ndispls[i];
    }
    size_t at = 0;
    for (int m = 0; m < nnodes; m++) { /* Y to send: by destination node, source, destination */
        sdispls[m] = at;
        for (int i = 0; i < ns; i++)
            for (int k = map->node_first[m]; k < map->node_first[m + 1]; k++)
                at += send_size(s, p, i, map->members[k]);
        scounts[m] = at - sdispls[m];
    }
    for (int m = 0; m < nnodes; m++) { /* X received: by source node, source, destination */
        rdispls[m] = recv;
        for (int k = map->node_first[m]; k < map->node_first[m + 1]; k++)
            for (int j = 0; j < ns; j++) {
                const int q = map->members[k];
                s->roff[(size_t)j * p + q] = recv;
                recv += recv_size(s, p, j, q);
            }
        rcounts[m] = recv - rdispls[m];
    }
    at = 0;
    for (int j = 0; j < ns; j++) { /* Y to scatter: member j's blocks in source rank order */
        s->tdispls[j] = at;
        for (int q = 0; q < p; q++) at += recv_size(s, p, j, q);
        s->tcounts[j] = at - s->tdispls[j];
    }
    if (!shmcoll_compose_fits_all(s->net, 4 * nnodes)) return SIZE_MAX;
    return send > recv ? send : recv;
}

static shmcoll_status_t alltoall_init(shmcoll_group_task_t *t) {
    const shmcoll_group_t *g = t->group;
    const shmcoll_group_map_t *map = &g->map;
    const shmcoll_coll_args_t *a = t->args;
    compose_alltoall_t *s = SHMCOLL_COMPOSE_STATE(t, compose_alltoall_t);
    const int p = g->size, nnodes = map->nnodes, ns = map->node_size[g->node];
    *s = (compose_alltoall_t){.uniform = a->kind == SHMCOLL_KIND_ALLTOALL, .block = a->count};
    if (s->uniform) {
        int largest = 0;
        for (int n = 0; n < nnodes; n++)
            largest = map->node_size[n] > largest ? map->node_size[n] : largest;
        if (s->block > shmcoll_config()->net_alltoall_max / ((size_t)largest * p))
            return shmcoll_compose_decline("across nodes: a node's blocks above "
                                           "SHMCOLL_NET_ALLTOALL_MAX (the MPI library's own "
                                           "exchange moves each block once)");
    }
    const int leader = shmcoll_compose_leads(t, 0);
    size_t words = s->uniform ? 0 : 2 * (size_t)p;
    if (leader)
        words += (s->uniform ? 0 : (size_t)ns * 2 * p) + 2 * (size_t)ns * p + 4 * (size_t)nnodes +
                 4 * (size_t)ns;
    if (words && !(s->heap.arena = shmcoll_compose_malloc(words * sizeof(size_t))))
        return SHMCOLL_ERR_NO_MEMORY;
    size_t *at = s->heap.arena;
    if (!s->uniform) s->sizes = at, at += 2 * (size_t)p;
    if (leader) {
        if (!s->uniform) s->all_sizes = at, at += (size_t)ns * 2 * p;
        s->xoff = at, at += (size_t)ns * p;
        s->roff = at, at += (size_t)ns * p;
        s->net = at, at += 4 * (size_t)nnodes;
        s->ncounts = at, at += ns;
        s->ndispls = at, at += ns;
        s->tcounts = at, at += ns;
        s->tdispls = at;
    }
    /* This member's sides; in place, the blocks to send are the receive side's. */
    const size_t *sc = a->sendbuf ? a->sendcounts : a->recvcounts;
    const size_t *sd = a->sendbuf ? a->sdispls : a->rdispls;
    const char *sendbuf = a->sendbuf ? a->sendbuf : a->recvbuf;
    if (s->uniform) {
        s->send_total = s->recv_total = (size_t)p * s->block;
        s->send_contiguous = s->recv_contiguous = 1;
    } else {
        for (int q = 0; q < p; q++) {
            s->sizes[q] = sc[q];
            s->sizes[p + q] = a->recvcounts[q];
            s->send_total += sc[q];
            s->recv_total += a->recvcounts[q];
        }
        s->send_contiguous = shmcoll_compose_contiguous(p, sc, sd, 0, &s->send_base);
        s->recv_contiguous =
            shmcoll_compose_contiguous(p, a->recvcounts, a->rdispls, 0, &s->recv_base);
    }
    void **scratch = s->heap.scratch;
    s->send = s->send_contiguous ? sendbuf + s->send_base
                                 : (scratch[0] = shmcoll_compose_malloc(s->send_total));
    s->recv = s->recv_contiguous ? (char *)a->recvbuf + s->recv_base
                                 : (scratch[1] = shmcoll_compose_malloc(s->recv_total));
    if (!s->send || !s->recv) return shmcoll_compose_heap_unwind(&s->heap, SHMCOLL_ERR_NO_MEMORY);
    if (leader && s->uniform) {
        const size_t bytes = plan_leader(g, s); /* fits: bounded by the rule above */
        s->x = scratch[2] = shmcoll_compose_malloc(bytes);
        s->y = scratch[3] = shmcoll_compose_malloc(bytes);
        if (!s->x || !s->y) return shmcoll_compose_heap_unwind(&s->heap, SHMCOLL_ERR_NO_MEMORY);
    }
    return SHMCOLL_OK;
}

static shmcoll_status_t alltoall_progress(shmcoll_group_task_t *t) {
    compose_alltoall_t *s = SHMCOLL_COMPOSE_STATE(t, compose_alltoall_t);
    const shmcoll_coll_args_t *a = t->args;
    const shmcoll_group_t *g = t->group;
    const shmcoll_group_map_t *map = &g->map;
    const int p = g->size, nnodes = map->nnodes, ns = map->node_size[g->node];
    const int leader = shmcoll_compose_leads(t, 0);
    SHMCOLL_RESUME_BEGIN(&t->pc);
    if (!s->uniform) {
        shmcoll_compose_gather_blocks(t, 1, s->sizes, 2 * (size_t)p * sizeof *s->sizes,
                                      s->all_sizes, NULL, NULL, 0);
        SHMCOLL_CHECK(shmcoll_compose_node_start(t));
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
        if (leader) {
            const size_t bytes = plan_leader(g, s);
            if (bytes == SIZE_MAX)
                return shmcoll_compose_fail(t, SHMCOLL_ERR_INVALID,
                                            "a node pair's blocks exceed an int of bytes");
            SHMCOLL_CHECK(shmcoll_compose_alloc(t, &s->heap.scratch[2], bytes));
            SHMCOLL_CHECK(shmcoll_compose_alloc(t, &s->heap.scratch[3], bytes));
            s->x = s->heap.scratch[2];
            s->y = s->heap.scratch[3];
        }
    }
    if (!s->send_contiguous) { /* this member's send side, packed in rank order */
        const size_t *sc = a->sendbuf ? a->sendcounts : a->recvcounts;
        const size_t *sd = a->sendbuf ? a->sdispls : a->rdispls;
        const char *sendbuf = a->sendbuf ? a->sendbuf : a->recvbuf;
        size_t at = 0;
        for (int q = 0; q < p; q++) {
            shmcoll_compose_copy(t, (char *)s->send + at, sendbuf + sd[q], sc[q]);
            at += sc[q];
        }
    }
    shmcoll_compose_gather_blocks(t, s->uniform, s->send, s->send_total, s->x, s->ncounts,
                                  s->ndispls, 0);
    SHMCOLL_CHECK(shmcoll_compose_node_start(t));
    SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
    if (leader) {
        size_t *scounts = s->net, *sdispls = scounts + nnodes;
        size_t *rcounts = sdispls + nnodes, *rdispls = rcounts + nnodes;
        for (int m = 0; m < nnodes; m++) {
            size_t at = sdispls[m];
            for (int i = 0; i < ns; i++)
                for (int k = map->node_first[m]; k < map->node_first[m + 1]; k++) {
                    const int q = map->members[k];
                    const size_t bytes = send_size(s, p, i, q);
                    shmcoll_compose_copy(t, s->y + at, s->x + s->xoff[(size_t)i * p + q], bytes);
                    at += bytes;
                }
        }
        size_t leaving = 0;
        for (int m = 0; m < nnodes; m++)
            if (m != g->node) leaving += scounts[m];
        const shmcoll_coll_args_t step = {.kind = SHMCOLL_KIND_ALLTOALLV,
                                          .sendbuf = s->y,
                                          .sendcounts = scounts,
                                          .sdispls = sdispls,
                                          .recvbuf = s->x,
                                          .recvcounts = rcounts,
                                          .rdispls = rdispls};
        SHMCOLL_CHECK(shmcoll_compose_leaders_start(t, &step, leaving, 0));
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_net_test(t));
        for (int j = 0; j < ns; j++) {
            size_t at = s->tdispls[j];
            for (int q = 0; q < p; q++) {
                const size_t bytes = recv_size(s, p, j, q);
                shmcoll_compose_copy(t, s->y + at, s->x + s->roff[(size_t)j * p + q], bytes);
                at += bytes;
            }
        }
    }
    shmcoll_compose_scatter_blocks(t, s->uniform, s->y, s->tcounts, s->tdispls, s->recv,
                                   s->recv_total, 0);
    SHMCOLL_CHECK(shmcoll_compose_node_start(t));
    SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
    if (!s->recv_contiguous) {
        size_t at = 0;
        for (int q = 0; q < p; q++) {
            shmcoll_compose_copy(t, (char *)a->recvbuf + a->rdispls[q], s->recv + at,
                                 a->recvcounts[q]);
            at += a->recvcounts[q];
        }
    }
    SHMCOLL_RESUME_END(&t->pc);
}

const shmcoll_compose_ops_t shmcoll_compose_alltoall_ops = {
    .init = alltoall_init, .progress = alltoall_progress, .fini = alltoall_fini};
