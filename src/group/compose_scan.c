/* Scan and exscan across nodes: scan within each node, exscan the node totals among the leaders,
 * and combine each member's result with its node's offset.
 *
 * Served with every node a block of consecutive ranks only (declined otherwise, every member
 * alike, from the map): a node then holds one stretch of the rank order. Node phase 1: the node
 * team's scan (exscan) of its members' inputs. The node's total is its last member's inclusive
 * result (for exscan: its exclusive result op its own input, one local reduction); node phase 2
 * moves it to the leader (a node gatherv in which only the last member sends; nothing when the
 * leader is the last member, nor on the last node, whose total no one needs). Network step: the
 * leaders (channel 0) exscan the totals: node n's leader gets the reduction of nodes 0..n-1 (the
 * last node's leader contributes its own valid data, never read). Node phase 3, on every node but
 * node 0: a node bcast of that offset from the leader; each member then puts it on the left of
 * its node result (exscan: the node's first member takes the offset alone; on node 0 the first
 * member's recvbuf stays untouched, as MPI says). Network bytes: s from every leader but the last
 * node's. */
#include "group/compose.h"

#include <stdlib.h>

typedef struct compose_scan {
    int exclusive;
    int has_total; /* the node's total is needed: every node but the last */
    size_t span;
    char *total;     /* last member, exscan with several members: its node's total */
    char *received;  /* leader: the total from the last member */
    char *offset;    /* the node's offset (every member of nodes but 0, node 0's leader) */
    size_t *tcounts; /* leader: the transfer's node arrays */
    void *scratch;
} compose_scan_t;

_Static_assert(sizeof(compose_scan_t) <= SHMCOLL_COMPOSE_STATE_BYTES, "state fits");

static shmcoll_status_t scan_init(shmcoll_group_task_t *t) {
    const shmcoll_group_t *g = t->group;
    const shmcoll_group_map_t *map = &g->map;
    const shmcoll_coll_args_t *a = t->args;
    compose_scan_t *s = SHMCOLL_COMPOSE_STATE(t, compose_scan_t);
    if (!shmcoll_compose_all_blocks(map))
        return shmcoll_compose_decline("across nodes: a scan on nodes that are not blocks of "
                                       "consecutive ranks");
    SHMCOLL_CHECK(shmcoll_compose_count_fits(a->count));
    const int ns = map->node_size[g->node], nr = map->node_rank[g->rank];
    *s = (compose_scan_t){.exclusive = a->kind == SHMCOLL_KIND_EXSCAN,
                          .has_total = g->node < map->nnodes - 1,
                          .span = shmcoll_reduce_op_span(a->op, a->count)};
    const int leader = nr == 0, last = nr == ns - 1, moves = s->has_total && ns > 1;
    const size_t piece = (s->span + 63) / 64 * 64; /* each buffer aligned as malloc's */
    const size_t total = s->exclusive && last && moves ? piece : 0;
    const size_t received = leader && moves ? piece : 0;
    const size_t offset = g->node > 0 || leader ? piece : 0;
    const size_t counts = leader && moves ? 2 * (size_t)ns * sizeof(size_t) : 0;
    const size_t bytes = total + received + offset + counts;
    if (!bytes) return SHMCOLL_OK;
    if (!(s->scratch = shmcoll_compose_malloc(bytes))) return SHMCOLL_ERR_NO_MEMORY;
    char *at = s->scratch;
    if (counts) s->tcounts = (size_t *)(void *)at, at += counts; /* first: aligned */
    if (total) s->total = at, at += total;
    if (received) s->received = at, at += received;
    if (offset) s->offset = at;
    return SHMCOLL_OK;
}

static shmcoll_status_t scan_progress(shmcoll_group_task_t *t) {
    compose_scan_t *s = SHMCOLL_COMPOSE_STATE(t, compose_scan_t);
    const shmcoll_coll_args_t *a = t->args;
    const shmcoll_group_t *g = t->group;
    const int ns = g->map.node_size[g->node], nr = g->map.node_rank[g->rank];
    const int leader = nr == 0, moves = s->has_total && ns > 1;
    const char *input = a->sendbuf ? a->sendbuf : a->recvbuf;
    SHMCOLL_RESUME_BEGIN(&t->pc);
    /* In place, the last member's input is overwritten by the node exscan: keep it. */
    if (s->total && !a->sendbuf) shmcoll_compose_copy(t, s->total, a->recvbuf, s->span);
    t->node_args = (shmcoll_coll_args_t){.kind = a->kind,
                                         .sendbuf = a->sendbuf,
                                         .recvbuf = a->recvbuf,
                                         .count = a->count,
                                         .op = a->op};
    SHMCOLL_CHECK(shmcoll_compose_node_start(t));
    SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
    if (s->total) /* exscan: total = (x_first .. x_last-1) op x_last */
        shmcoll_compose_reduce(t, a->op, a->recvbuf, a->sendbuf ? a->sendbuf : s->total, s->total,
                               a->count);
    if (moves) {
        const char *total = s->exclusive ? s->total : a->recvbuf; /* at the last member */
        shmcoll_compose_transfer(t, ns - 1, 0, total, s->received, s->span, s->tcounts,
                                 s->tcounts ? s->tcounts + ns : NULL);
        SHMCOLL_CHECK(shmcoll_compose_node_start(t));
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
    }
    if (leader) {
        /* The node's total; on the last node any valid data of the type (never read). */
        const void *mine = moves ? s->received : s->exclusive ? input : a->recvbuf;
        t->net = (shmcoll_net_coll_t){.channel = 0,
                                      .args = {.kind = SHMCOLL_KIND_EXSCAN,
                                               .sendbuf = mine,
                                               .recvbuf = s->offset,
                                               .count = a->count,
                                               .op = a->op,
                                               .net_op = a->net_op}};
        if (s->has_total) t->group->net.bytes += s->span;
        SHMCOLL_CHECK(shmcoll_compose_net_start(t, 0));
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_net_test(t));
    }
    if (g->node > 0) {
        t->node_args = (shmcoll_coll_args_t){
            .kind = SHMCOLL_KIND_BCAST, .recvbuf = s->offset, .count = s->span, .root = 0};
        SHMCOLL_CHECK(shmcoll_compose_node_start(t));
        SHMCOLL_AWAIT_TEST(&t->pc, shmcoll_compose_node_test(t));
        if (s->exclusive && leader)
            shmcoll_compose_copy(t, a->recvbuf, s->offset, s->span);
        else
            shmcoll_compose_reduce(t, a->op, s->offset, a->recvbuf, a->recvbuf, a->count);
    }
    SHMCOLL_RESUME_END(&t->pc);
}

static void scan_fini(shmcoll_group_task_t *t) {
    shmcoll_compose_free(SHMCOLL_COMPOSE_STATE(t, compose_scan_t)->scratch);
}

const shmcoll_compose_ops_t shmcoll_compose_scan_ops = {
    .init = scan_init, .progress = scan_progress, .fini = scan_fini};
