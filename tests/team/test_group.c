/* A group that spans nodes, without MPI: the forked members are split into nodes, each node gets
 * a team of its own (bootstrapped among its members only), and the nodes' leaders talk through a
 * fake network in the harness's shared memory. The composed allreduce (group/compose_allreduce.c)
 * runs end to end through the group's one entry, shmcoll_group_run.
 *
 * Shapes: 2 nodes x 2 in blocks, 3 + 2 (uneven), 3 nodes placed round-robin (rank r on node
 * r mod 3), 1 member per node. Counts from 1 element (the inline path) to several chunks, in
 * place and not, a commutative sum and a non-commutative op (served only with nodes in blocks;
 * round-robin nodes must decline it, on every member, before anything moves). Also checked: the
 * bytes the leaders hand to the network, s per call. */
#include "group/compose.h"
#include "team_harness.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NELEMS(a)    (sizeof(a) / sizeof((a)[0]))
#define MAX_MEMBERS  8    /* MAX_NODES and MAX_NET below bound the shapes */
#define SLOT_BYTES   4096 /* one member's contribution to one bootstrap exchange */
#define MAX_EXCHANGE 8
#define MAX_NODES    4
#define MAX_CALLS    16
#define MAX_NET      (70000 * 8) /* bytes of one leader's contribution to one call */

/* The shared memory of a run: the nodes' bootstrap mailboxes and the fake network's. */
typedef struct shared {
    _Atomic int posted[MAX_MEMBERS][MAX_EXCHANGE];
    unsigned char slot[MAX_MEMBERS][MAX_EXCHANGE][SLOT_BYTES];
    _Atomic int net_posted[MAX_NODES][MAX_CALLS];
    unsigned char net[MAX_NODES][MAX_CALLS][MAX_NET]; /* never reused: no one reads a stale call */
} shared_t;

/* ---- Bootstrap among the members of one node --------------------------------------------- */

typedef struct node_boot {
    const int *members; /* harness ranks of the node, in rank order */
    int size, rank;
    int exchanges;
} node_boot_t;

static int node_allgather(void *ctx, const void *in, void *out, size_t bytes) {
    node_boot_t *b = ctx;
    shared_t *sh = team_harness_shared();
    const int me = b->members[b->rank], k = b->exchanges++;
    if (bytes > SLOT_BYTES || k >= MAX_EXCHANGE) return 1;
    memcpy(sh->slot[me][k], in, bytes);
    atomic_store_explicit(&sh->posted[me][k], 1, memory_order_release);
    const double deadline = team_harness_now() + 60;
    for (int i = 0; i < b->size; i++) {
        const int m = b->members[i];
        while (!atomic_load_explicit(&sh->posted[m][k], memory_order_acquire)) {
            if (team_harness_now() > deadline) return 1;
            sched_yield();
        }
        memcpy((char *)out + (size_t)i * bytes, sh->slot[m][k], bytes);
    }
    return 0;
}

/* ---- The fake network: leaders reduce each other's contributions in node order ----------- */

typedef struct fake_net {
    int node, nnodes;
    int calls;
    const shmcoll_net_coll_t *coll; /* in flight */
} fake_net_t;

static shmcoll_status_t net_start(void *ctx, const shmcoll_net_coll_t *coll, void **request) {
    fake_net_t *net = ctx;
    shared_t *sh = team_harness_shared();
    const shmcoll_coll_args_t *a = &coll->args;
    const size_t span = shmcoll_reduce_op_span(a->op, a->count);
    if (a->kind != SHMCOLL_KIND_ALLREDUCE || span > MAX_NET || net->calls >= MAX_CALLS)
        return SHMCOLL_ERR_NOT_SUPPORTED;
    memcpy(sh->net[net->node][net->calls], a->sendbuf ? a->sendbuf : a->recvbuf, span);
    atomic_store_explicit(&sh->net_posted[net->node][net->calls], 1, memory_order_release);
    net->coll = coll;
    *request = net;
    return SHMCOLL_OK;
}

/* Done once every node posted this call: the reduction of all nodes, folded from the right
 * (x0 op (x1 op (... op xn-1))), the canonical order with MPI's in/inout shape. */
static shmcoll_status_t net_test(void *ctx, void *request, char *error, size_t error_len) {
    fake_net_t *net = ctx;
    shared_t *sh = team_harness_shared();
    const shmcoll_coll_args_t *a = &net->coll->args;
    const int k = net->calls;
    for (int n = 0; n < net->nnodes; n++)
        if (!atomic_load_explicit(&sh->net_posted[n][k], memory_order_acquire))
            return SHMCOLL_IN_PROGRESS;
    const shmcoll_reduce_op_t *op = a->op;
    const size_t span = shmcoll_reduce_op_span(op, a->count);
    unsigned char *acc = malloc(span ? span : 1);
    memcpy(acc, sh->net[net->nnodes - 1][k], span);
    for (int n = net->nnodes - 2; n >= 0; n--) {
        if (op->kernel)
            op->kernel(sh->net[n][k], acc, acc, a->count);
        else
            op->user_fn(sh->net[n][k], acc, a->count, op->user_ctx);
    }
    memcpy(a->recvbuf, acc, span);
    free(acc);
    net->calls++;
    return SHMCOLL_OK;
}

/* ---- Checks ------------------------------------------------------------------------------- */

/* A non-commutative op on 2x2 matrices of 64-bit integers (row-major), the product mod 2^64. */
static void matmul(const void *in, void *inout, size_t n, void *ctx) {
    const uint64_t *x = in;
    uint64_t *y = inout;
    for (size_t i = 0; i < n; i++, x += 4, y += 4) {
        const uint64_t r[4] = {x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3],
                               x[2] * y[0] + x[3] * y[2], x[2] * y[1] + x[3] * y[3]};
        memcpy(y, r, sizeof r);
    }
}

static void input(int64_t *v, size_t elems, int rank, long call, int matrices) {
    for (size_t j = 0; j < elems; j++)
        v[j] = matrices ? (int64_t)((rank * 7 + j + (size_t)call) % 5) - 2
                        : (int64_t)(rank + 1) * (call + 1) + (int64_t)j;
}

/* The expected result, computed locally in rank order. */
static void expected(int64_t *want, size_t elems, int p, long call, int matrices) {
    int64_t *x = malloc(elems * sizeof *x);
    input(want, elems, p - 1, call, matrices);
    for (int r = p - 2; r >= 0; r--) {
        input(x, elems, r, call, matrices);
        if (matrices)
            matmul(x, want, elems / 4, NULL);
        else
            for (size_t j = 0; j < elems; j++) want[j] += x[j];
    }
    free(x);
}

typedef struct shape {
    const char *name;
    int p;
    int labels[MAX_MEMBERS]; /* node label of each member */
} shape_t;

static int run_group(shmcoll_group_t *g, const shape_t *shape) {
    const int me = g->rank, p = g->size;
    const shmcoll_reduce_op_t sum = {.kernel =
                                         shmcoll_kernel_reduce(SHMCOLL_DT_INT64, SHMCOLL_OP_SUM),
                                     .size = 8,
                                     .extent = 8,
                                     .commutative = 1,
                                     .name = "sum"};
    const shmcoll_reduce_op_t product = {
        .user_fn = matmul, .size = 32, .extent = 32, .commutative = 0, .name = "matmul"};
    const size_t counts[] = {1, 7, 1000, 70000}; /* elements of 8 bytes (matrices: / 4) */
    int blocks = 1;
    for (int n = 0; n < g->map.nnodes; n++) blocks &= shmcoll_group_map_block(&g->map, n);
    int failed = 0;
    long call = 0;
    for (size_t c = 0; c < NELEMS(counts) && !failed; c++)
        for (int variant = 0; variant < 4 && !failed; variant++, call++) {
            const int matrices = variant >= 2, in_place = variant & 1;
            const size_t elems = matrices ? (counts[c] + 3) / 4 * 4 : counts[c];
            int64_t *send = malloc(elems * 8), *recv = malloc(elems * 8), *want = malloc(elems * 8);
            input(in_place ? recv : send, elems, me, call, matrices);
            const shmcoll_coll_args_t args = {.kind = SHMCOLL_KIND_ALLREDUCE,
                                              .sendbuf = in_place ? NULL : send,
                                              .recvbuf = recv,
                                              .count = matrices ? elems / 4 : elems,
                                              .op = matrices ? &product : &sum};
            const uint64_t net_before = g->net.bytes;
            const shmcoll_status_t status = shmcoll_group_run(g, &args);
            if (matrices && !blocks) {
                if (status != SHMCOLL_ERR_NOT_SUPPORTED) {
                    team_harness_log("%s: a non-commutative op over round-robin nodes must be "
                                     "declined, got %s",
                                     shape->name, shmcoll_status_string(status));
                    failed = 1;
                }
                call--; /* nothing happened: the network's calls do not advance */
            } else if (status != SHMCOLL_OK) {
                team_harness_log("%s: allreduce of %zu: %s (%s)", shape->name, elems,
                                 shmcoll_status_string(status), g->team->error);
                failed = 1;
            } else {
                expected(want, elems, p, call, matrices);
                for (size_t j = 0; j < elems && !failed; j++)
                    if (recv[j] != want[j]) {
                        team_harness_log("%s: allreduce of %zu%s%s: element %zu is %lld, want %lld",
                                         shape->name, elems, matrices ? " matrices" : "",
                                         in_place ? " in place" : "", j, (long long)recv[j],
                                         (long long)want[j]);
                        failed = 1;
                    }
                const uint64_t sent = g->net.bytes - net_before;
                const uint64_t leader = g->map.node_rank[me] == 0 ? elems * 8 : 0;
                if (!failed && sent != leader) {
                    team_harness_log("%s: %llu bytes to the network, want %llu", shape->name,
                                     (unsigned long long)sent, (unsigned long long)leader);
                    failed = 1;
                }
            }
            free(send), free(recv), free(want);
        }
    return failed;
}

static int body(shmcoll_team_t *whole, void *arg) {
    const shape_t *shape = arg;
    const int me = whole->rank, p = whole->size;
    shmcoll_group_t g = {.rank = me, .size = p};
    if (shmcoll_group_map_init(&g.map, shape->labels, p) != SHMCOLL_OK) return 1;
    g.node = g.map.node_of[me];
    node_boot_t boot = {.members = g.map.members + g.map.node_first[g.node],
                        .size = g.map.node_size[g.node],
                        .rank = g.map.node_rank[me]};
    const shmcoll_bootstrap_t bs = {
        .rank = boot.rank, .size = boot.size, .allgather = node_allgather, .ctx = &boot};
    shmcoll_status_t status = shmcoll_team_create(&bs, &g.team);
    fake_net_t net = {.node = g.node, .nnodes = g.map.nnodes};
    g.net = (shmcoll_net_t){.nchannels = 1, .start = net_start, .test = net_test, .ctx = &net};
    int failed = status != SHMCOLL_OK;
    if (failed)
        team_harness_log("%s: node team: %s", shape->name, shmcoll_status_string(status));
    else
        failed = run_group(&g, shape);
    if (g.team) shmcoll_team_destroy(g.team);
    shmcoll_group_map_fini(&g.map);
    return failed;
}

int main(int argc, char **argv) {
    static const shape_t shapes[] = {
        {"2 nodes x 2 (blocks)", 4, {0, 0, 1, 1}},
        {"3 + 2 (uneven blocks)", 5, {7, 7, 7, 3, 3}},
        {"3 nodes round-robin", 6, {0, 1, 2, 0, 1, 2}},
        {"1 member per node", 4, {0, 1, 2, 3}},
    };
    int failed = 0;
    for (size_t s = 0; s < NELEMS(shapes); s++) {
        team_harness_spec_t spec = {.p = shapes[s].p,
                                    .body = body,
                                    .arg = (void *)&shapes[s],
                                    .timeout_s = 120,
                                    .shared_bytes = sizeof(shared_t)};
        const double t0 = team_harness_now();
        const int result = team_harness_run_spec(&spec);
        printf("test_group %s: %s (%.2f s)\n", shapes[s].name, result ? "FAILED" : "ok",
               team_harness_now() - t0);
        failed |= result != 0;
    }
    return failed;
}
