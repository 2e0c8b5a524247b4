/* Allreduce across nodes, in one of three forms (group/allreduce_plan.h), chosen from values
 * every member shares.
 *
 * One leader (below SHMCOLL_NET_SPLIT, and at any size with one leader per node): node reduce to
 * node rank 0, the leaders' allreduce of the node results through the network (channel 0), node
 * bcast from the leader. One node phase each side of one network step: the fewest steps, which is
 * what latency asks for; where one core per node drives the network it moves the whole vector.
 *
 * Shares (network steps block: the MPI library's blocking collectives are its fast ones, e.g. Open
 * MPI's; compose.h): node reduce-scatter of the whole vector into the L leaders' shares, the L
 * leaders' blocking allreduces of their shares at once (one per channel), node allgather. A
 * blocking step cannot overlap the node phases, so the vector goes through whole.
 *
 * Segments (non-blocking steps): the L leaders of every node (the network's channels; node ranks
 * 0..L-1) each own a share of the vector, 1/L of every segment, and the vector goes through in
 * segments of SHMCOLL_NET_SEGMENT bytes (YHCCL's multi-node allreduce, seed 000 §5; Jocksch et
 * al.'s leaders per socket, seed 003 §2.1.2). For segment k:
 *   RS(k)   node reduce-scatter of the segment, share c reduced into leader c's buffer (every
 *           member of the node reduces a part: the node's cores share the reduction);
 *   net(k)  each leader allreduces its share with the same leader of every other node, the L
 *           channels at once (each node sends 2s(N-1)/N over all channels together, whatever the
 *           ranks per node or their placement);
 *   AG(k)   node allgatherv of the reduced shares from the leaders into every member's recvbuf.
 * Every member starts the node phases in one order, RS(0) RS(1) AG(0) RS(2) AG(1) ... AG(K-1);
 * a leader starts AG(k) once net(k) is done and net(k+1) once RS(k+1) is done, so the network
 * step of a segment runs while the node reduces the next one and gathers the one before. The
 * composition polls (compose.h): it never waits for one phase while another needs it.
 *
 * Where the shares live: a leader reduces its share into a scratch of two segments' shares (one
 * in the shares form), and the network step moves it from there into the share's place in the
 * leader's recvbuf, where the allgather finds it in place. The network step is never in place:
 * Open MPI's non-blocking allreduce (libnbc) takes a binomial tree for in-place calls, which has
 * a node send the vector twice among four nodes, and its reduce-scatter + allgather (2s(N-1)/N)
 * only for the others. With MPI_IN_PLACE the leader's input is its recvbuf, consumed by RS(k)
 * before net(k) writes.
 *
 * Order: the node reductions fold their members in rank order and the network folds the nodes
 * in node order, so non-commutative ops get the canonical order when every node holds a block
 * of consecutive ranks (nodes are numbered by their lowest member); otherwise they are not
 * supported here (the call falls back). Every element's result is one reduction, copied: it is
 * identical on every member. */
#include "group/allreduce_plan.h"
#include "group/compose.h"

#include <stdlib.h>

enum { RS = 0, AG = 2 }; /* pipe slots: RS(k) in RS + k % 2, AG(k) in AG + k % 2 */

typedef struct compose_allreduce {
    size_t span;
    shmcoll_allreduce_plan_t plan;
    /* The forms with shares. */
    int share;        /* the share this member leads, or -1 */
    size_t k;         /* the segment the pipeline is at */
    size_t share_max; /* elements of the largest share of a segment */
    size_t *counts;   /* [2][node size] reduce-scatter counts (elements); [2][2][node size]
                         allgatherv counts and displacements (bytes) */
    char *scratch;    /* a leader: its share of (up to) two segments, reduced, before the network */
} compose_allreduce_t;

_Static_assert(sizeof(compose_allreduce_t) <= SHMCOLL_COMPOSE_STATE_BYTES, "state fits");

static void allreduce_fini(shmcoll_group_task_t *t) {
    compose_allreduce_t *s = SHMCOLL_COMPOSE_STATE(t, compose_allreduce_t);
    shmcoll_compose_free(s->counts);
    shmcoll_compose_free(s->scratch);
}

static shmcoll_status_t allreduce_init(shmcoll_group_task_t *t) {
    const shmcoll_group_t *g = t->group;
    const shmcoll_group_map_t *map = &g->map;
    const shmcoll_coll_args_t *a = t->args;
    compose_allreduce_t *s = SHMCOLL_COMPOSE_STATE(t, compose_allreduce_t);
    SHMCOLL_CHECK(shmcoll_compose_order_fits(a->op, map));
    *s = (compose_allreduce_t){.span = shmcoll_reduce_op_span(a->op, a->count), .share = -1};
    shmcoll_allreduce_plan(a->count, a->op->extent, g->net.nchannels,
                           shmcoll_compose_net_may_block(t), t->form, &s->plan);
    const shmcoll_allreduce_plan_t *plan = &s->plan;
    if (plan->form == SHMCOLL_ALLREDUCE_ONE_LEADER) /* one network step of the whole vector */
        return shmcoll_net_fits(a->count) ? SHMCOLL_OK : SHMCOLL_ERR_NOT_SUPPORTED;

    s->share_max = (plan->segment + (size_t)plan->shares - 1) / (size_t)plan->shares;
    const int me = map->node_rank[g->rank], ns = map->node_size[g->node];
    if (me < plan->shares) s->share = me;
    t->polls = plan->form == SHMCOLL_ALLREDUCE_SEGMENTS;
    s->counts = shmcoll_compose_malloc(6 * (size_t)ns * sizeof *s->counts);
    if (!s->counts) return SHMCOLL_ERR_NO_MEMORY;
    if (s->share >= 0) {
        const size_t halves = plan->segments > 1 ? 2 : 1;
        s->scratch = shmcoll_compose_malloc(halves * s->share_max * a->op->extent);
        if (!s->scratch) {
            allreduce_fini(t);
            return SHMCOLL_ERR_NO_MEMORY;
        }
    }
    return SHMCOLL_OK;
}

/* ---- One leader ------------------------------------------------------------------------ */

static shmcoll_status_t allreduce_one_leader(shmcoll_group_task_t *t) {
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
        SHMCOLL_CHECK(shmcoll_compose_net_start(t, 0));
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_net_test(t));
    }
    t->node_args = (shmcoll_coll_args_t){
        .kind = SHMCOLL_KIND_BCAST, .recvbuf = a->recvbuf, .count = s->span, .root = 0};
    SHMCOLL_CHECK(shmcoll_compose_node_start(t));
    SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
    SHMCOLL_RESUME_END(&t->pc);
}

/* ---- Shares and segments ------------------------------------------------------------------------
 */

/* Segment k: its first element and its elements. */
static size_t segment_at(const compose_allreduce_t *s, const shmcoll_coll_args_t *a, size_t k,
                         size_t *n) {
    const size_t first = k * s->plan.segment;
    *n = a->count - first < s->plan.segment ? a->count - first : s->plan.segment;
    return first;
}

/* Share c of n elements. */
static size_t share_at(const compose_allreduce_t *s, size_t n, int c) {
    return shmcoll_allreduce_share_at(n, c, s->plan.shares);
}

/* Where a leader reduces its share of segment k: half k % 2 of its scratch. */
static char *share_buffer(const compose_allreduce_t *s, const shmcoll_coll_args_t *a, size_t k) {
    return s->scratch + (k % 2) * s->share_max * a->op->extent;
}

static void reduce_scatter_args(shmcoll_group_task_t *t, size_t k) {
    compose_allreduce_t *s = SHMCOLL_COMPOSE_STATE(t, compose_allreduce_t);
    const shmcoll_coll_args_t *a = t->args;
    const int ns = t->group->map.node_size[t->group->node];
    size_t n, *counts = s->counts + (k % 2) * (size_t)ns;
    const size_t first = segment_at(s, a, k, &n), extent = a->op->extent;
    for (int i = 0; i < ns; i++)
        counts[i] = i < s->plan.shares ? share_at(s, n, i + 1) - share_at(s, n, i) : 0;
    const char *input = a->sendbuf ? a->sendbuf : a->recvbuf;
    t->pipe_args[RS + k % 2] =
        (shmcoll_coll_args_t){.kind = SHMCOLL_KIND_REDUCE_SCATTER,
                              .sendbuf = input + first * extent,
                              .recvbuf = s->share >= 0 ? share_buffer(s, a, k) : a->recvbuf,
                              .op = a->op,
                              .recvcounts = counts};
}

static void allgather_args(shmcoll_group_task_t *t, size_t k) {
    compose_allreduce_t *s = SHMCOLL_COMPOSE_STATE(t, compose_allreduce_t);
    const shmcoll_coll_args_t *a = t->args;
    const int ns = t->group->map.node_size[t->group->node];
    size_t n, *counts = s->counts + (2 + 2 * (k % 2)) * (size_t)ns, *displs = counts + ns;
    const size_t first = segment_at(s, a, k, &n), extent = a->op->extent;
    for (int i = 0; i < ns; i++) {
        const size_t at = i < s->plan.shares ? share_at(s, n, i) : 0;
        const size_t elems = i < s->plan.shares ? share_at(s, n, i + 1) - at : 0;
        counts[i] = shmcoll_reduce_op_span(a->op, elems);
        displs[i] = at * extent;
    }
    /* Every leader's share is at its place in its recvbuf (the network step put it there): the
     * allgather's own in place, for every member. */
    t->pipe_args[AG + k % 2] = (shmcoll_coll_args_t){.kind = SHMCOLL_KIND_ALLGATHERV,
                                                     .sendbuf = NULL,
                                                     .recvbuf = (char *)a->recvbuf + first * extent,
                                                     .recvcounts = counts,
                                                     .rdispls = displs};
}

/* Whether this member leads a share of segment k that is not empty. */
static int leads_segment(const compose_allreduce_t *s, const shmcoll_coll_args_t *a, size_t k) {
    size_t n;
    segment_at(s, a, k, &n);
    return s->share >= 0 && share_at(s, n, s->share + 1) > share_at(s, n, s->share);
}

static shmcoll_status_t net_start(shmcoll_group_task_t *t, size_t k, int overlapped) {
    compose_allreduce_t *s = SHMCOLL_COMPOSE_STATE(t, compose_allreduce_t);
    const shmcoll_coll_args_t *a = t->args;
    size_t n;
    const size_t first = segment_at(s, a, k, &n), at = share_at(s, n, s->share);
    const size_t elems = share_at(s, n, s->share + 1) - at;
    t->net =
        (shmcoll_net_coll_t){.channel = s->share,
                             .args = {.kind = SHMCOLL_KIND_ALLREDUCE,
                                      .sendbuf = share_buffer(s, a, k),
                                      .recvbuf = (char *)a->recvbuf + (first + at) * a->op->extent,
                                      .count = elems,
                                      .op = a->op,
                                      .net_op = a->net_op}};
    t->group->net.bytes += shmcoll_reduce_op_span(a->op, elems);
    return shmcoll_compose_net_start(t, overlapped);
}

/* Shares, whole: node reduce-scatter, the leaders' allreduces, node allgather, one after the
 * other. */
static shmcoll_status_t allreduce_shares(shmcoll_group_task_t *t) {
    compose_allreduce_t *s = SHMCOLL_COMPOSE_STATE(t, compose_allreduce_t);
    SHMCOLL_RESUME_BEGIN(&t->pc);
    reduce_scatter_args(t, 0);
    t->node_args = t->pipe_args[RS];
    SHMCOLL_CHECK(shmcoll_compose_node_start(t));
    SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
    if (leads_segment(s, t->args, 0)) {
        SHMCOLL_CHECK(net_start(t, 0, 0));
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_net_test(t));
    }
    allgather_args(t, 0);
    t->node_args = t->pipe_args[AG];
    SHMCOLL_CHECK(shmcoll_compose_node_start(t));
    SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
    SHMCOLL_RESUME_END(&t->pc);
}

static shmcoll_status_t allreduce_segments(shmcoll_group_task_t *t) {
    compose_allreduce_t *s = SHMCOLL_COMPOSE_STATE(t, compose_allreduce_t);
    const shmcoll_coll_args_t *a = t->args;
    SHMCOLL_RESUME_BEGIN(&t->pc);
    for (s->k = 0; s->k <= s->plan.segments; s->k++) {
        /* A slot's (and a scratch half's) previous segment is done before it is used again. */
        if (s->k >= 2) SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_pipe_test(t, AG + s->k % 2));
        if (s->k < s->plan.segments) {
            reduce_scatter_args(t, s->k);
            SHMCOLL_CHECK(shmcoll_compose_pipe_start(t, RS + s->k % 2));
        }
        if (s->k >= 1) { /* segment k - 1: its network step, then its allgather */
            if (leads_segment(s, a, s->k - 1))
                SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_net_test(t));
            allgather_args(t, s->k - 1);
            SHMCOLL_CHECK(shmcoll_compose_pipe_start(t, AG + (s->k - 1) % 2));
        }
        if (s->k < s->plan.segments) {
            SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_pipe_test(t, RS + s->k % 2));
            if (leads_segment(s, a, s->k)) SHMCOLL_CHECK(net_start(t, s->k, 1));
        }
    }
    SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_pipe_test(t, AG));
    SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_pipe_test(t, AG + 1));
    SHMCOLL_RESUME_END(&t->pc);
}

static shmcoll_status_t allreduce_progress(shmcoll_group_task_t *t) {
    switch (SHMCOLL_COMPOSE_STATE(t, compose_allreduce_t)->plan.form) {
    case SHMCOLL_ALLREDUCE_SHARES:
        return allreduce_shares(t);
    case SHMCOLL_ALLREDUCE_SEGMENTS:
        return allreduce_segments(t);
    default:
        return allreduce_one_leader(t);
    }
}

const shmcoll_compose_ops_t shmcoll_compose_allreduce_ops = {
    .init = allreduce_init, .progress = allreduce_progress, .fini = allreduce_fini};
