/* A group that spans nodes, without MPI: the forked members are split into nodes, each node gets
 * a team of its own (bootstrapped among its members only), and the nodes' leaders talk through a
 * fake network in the harness's shared memory. Every composed collective (group/compose_*.c)
 * runs end to end through the group's one entry, shmcoll_group_run.
 *
 * The fake network implements every kind a composition hands it, among the leaders of each
 * channel (node rank c leads channel c) in leader terms (members are nodes, counts per node), as
 * the MPI library would: each leader posts its contribution into a slot of the shared memory, and a
 * step is done once every node posted; reductions fold the nodes in node order with the op's kernel
 * or user function. It checks what the MPI library would: the sizes a receiver expects against
 * those the senders post.
 *
 * Shapes: 2 nodes x 2 in blocks, 3 + 2 (uneven), 3 nodes placed round-robin (rank r on node
 * r mod 3), 1 member per node, 2 nodes x 3 in blocks; two of them again with 2 leaders per node
 * and 64 KiB segments (allreduce: shares and a pipeline of several segments). Every kind, every
 * root, in place where MPI allows it, from 1 element / 8 bytes to a few 256 KiB chunks, v-variants
 * with uneven counts (some zero) and displacements in rank order or reversed with gaps (allgatherv:
 * different on different members, as MPI allows), a commutative sum and a non-commutative op
 * (served only with nodes in blocks; round-robin nodes must decline it, on every member, before
 * anything moves; scan and exscan need nodes in blocks for any op), alltoall declined above its
 * size rule. Results are checked against expectations computed locally (whole receive buffers:
 * bytes outside the blocks must stay untouched), and so are the bytes each member hands to the
 * network. */
#include "base/config.h"
#include "group/allreduce_plan.h"
#include "group/compose.h"
#include "team_harness.h"

#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NELEMS(a)    (sizeof(a) / sizeof((a)[0]))
#define MAX_MEMBERS  8    /* MAX_NODES and NET_BYTES below bound the shapes */
#define SLOT_BYTES   4096 /* one member's contribution to one bootstrap exchange */
#define MAX_EXCHANGE 8
#define MAX_NODES    4
#define MAX_CHANNELS 2                           /* leaders per node */
#define NET_SLOTS    4                           /* network steps in flight at once */
#define NET_HEADER   64                          /* per-destination lengths */
#define NET_BYTES    (((size_t)2 << 20) + 65536) /* one leader's contribution to one step */
#define MAX_BARRIERS 8

/* The shared memory of a run: the nodes' bootstrap mailboxes and the fake network's slots. */
typedef struct shared {
    _Atomic int posted[MAX_MEMBERS][MAX_EXCHANGE];
    unsigned char slot[MAX_MEMBERS][MAX_EXCHANGE][SLOT_BYTES];
    _Atomic int arrived[MAX_BARRIERS];
    /* The fake network, per channel: */
    _Atomic uint64_t net_posted[MAX_CHANNELS][MAX_NODES][NET_SLOTS]; /* step + 1 once posted */
    _Atomic uint64_t net_done[MAX_CHANNELS][MAX_NODES];              /* steps a node has finished */
    _Alignas(64) unsigned char net[MAX_CHANNELS][MAX_NODES][NET_SLOTS][NET_BYTES];
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

/* ---- The fake network ---------------------------------------------------------------------- */

typedef struct fake_net {
    int node, nnodes;
    int channel;                    /* the channel this member leads, or -1 */
    uint64_t steps;                 /* started by this leader */
    const shmcoll_net_coll_t *coll; /* in flight */
} fake_net_t;

static uint64_t *net_lengths(int ch, int node, uint64_t step) {
    shared_t *sh = team_harness_shared();
    return (uint64_t *)(void *)sh->net[ch][node][step % NET_SLOTS];
}

static unsigned char *net_data(int ch, int node, uint64_t step) {
    shared_t *sh = team_harness_shared();
    return sh->net[ch][node][step % NET_SLOTS] + NET_HEADER;
}

/* Bytes of an element vector of `count` elements. */
static size_t span(const shmcoll_reduce_op_t *op, size_t count) {
    return shmcoll_reduce_op_span(op, count);
}

static size_t sum_of(const size_t *v, int n) {
    size_t total = 0;
    for (int i = 0; i < n; i++) total += v[i];
    return total;
}

/* Posts this leader's contribution: lens[m] bytes for each destination m (lens[0] alone when
 * there is one), packed from `parts`. */
static shmcoll_status_t post(fake_net_t *net, const uint64_t *lens, const void *const *parts,
                             int nparts) {
    uint64_t *header = net_lengths(net->channel, net->node, net->steps);
    unsigned char *data = net_data(net->channel, net->node, net->steps);
    size_t at = 0;
    for (int m = 0; m < MAX_NODES; m++) header[m] = m < nparts ? lens[m] : 0;
    for (int m = 0; m < nparts; m++) {
        if (at + lens[m] > NET_BYTES - NET_HEADER) return SHMCOLL_ERR_INVALID;
        if (lens[m]) memcpy(data + at, parts[m], lens[m]);
        at += lens[m];
    }
    return SHMCOLL_OK;
}

static shmcoll_status_t net_start(void *ctx, const shmcoll_net_coll_t *coll, void **request) {
    fake_net_t *net = ctx;
    shared_t *sh = team_harness_shared();
    const shmcoll_coll_args_t *a = &coll->args;
    const int me = net->node, nn = net->nnodes, ch = net->channel;
    if (coll->channel != ch) return SHMCOLL_ERR_INVALID;
    /* The slot is free once every node finished the step that used it last. */
    const double deadline = team_harness_now() + 60;
    for (int n = 0; n < nn; n++)
        while (atomic_load_explicit(&sh->net_done[ch][n], memory_order_acquire) + NET_SLOTS <=
               net->steps) {
            if (team_harness_now() > deadline) return SHMCOLL_ERR_TIMEOUT;
            sched_yield();
        }
    uint64_t lens[MAX_NODES] = {0};
    const void *parts[MAX_NODES] = {0};
    int nparts = 0;
    const void *input = a->sendbuf ? a->sendbuf : a->recvbuf;
    switch (a->kind) {
    case SHMCOLL_KIND_BARRIER:
        break;
    case SHMCOLL_KIND_BCAST:
        if (me == a->root) lens[0] = a->count, parts[0] = a->recvbuf, nparts = 1;
        break;
    case SHMCOLL_KIND_REDUCE:
    case SHMCOLL_KIND_ALLREDUCE:
    case SHMCOLL_KIND_EXSCAN:
        lens[0] = span(a->op, a->count), parts[0] = input, nparts = 1;
        break;
    case SHMCOLL_KIND_REDUCE_SCATTER:
        lens[0] = span(a->op, sum_of(a->recvcounts, nn)), parts[0] = input, nparts = 1;
        break;
    case SHMCOLL_KIND_ALLGATHERV:
        lens[0] = a->sendbuf ? a->sendbytes : a->recvcounts[me];
        parts[0] = a->sendbuf ? a->sendbuf : (const char *)a->recvbuf + a->rdispls[me];
        nparts = 1;
        break;
    case SHMCOLL_KIND_GATHERV:
        if (a->sendbuf) lens[0] = a->sendbytes, parts[0] = a->sendbuf, nparts = 1;
        break;
    case SHMCOLL_KIND_SCATTERV:
        if (me == a->root)
            for (int m = 0; m < nn; m++, nparts++)
                lens[m] = a->sendcounts[m], parts[m] = (const char *)a->sendbuf + a->sdispls[m];
        break;
    case SHMCOLL_KIND_ALLTOALLV: {
        const size_t *sc = a->sendbuf ? a->sendcounts : a->recvcounts;
        const size_t *sd = a->sendbuf ? a->sdispls : a->rdispls;
        for (int m = 0; m < nn; m++, nparts++)
            lens[m] = sc[m], parts[m] = (const char *)input + sd[m];
        break;
    }
    default:
        return SHMCOLL_ERR_NOT_SUPPORTED;
    }
    if (post(net, lens, parts, nparts) != SHMCOLL_OK) return SHMCOLL_ERR_INVALID;
    atomic_store_explicit(&sh->net_posted[ch][me][net->steps % NET_SLOTS], net->steps + 1,
                          memory_order_release);
    net->coll = coll;
    *request = net;
    return SHMCOLL_OK;
}

/* out = x(lo) op ... op x(hi - 1) of the nodes' posted vectors, folded from the right (the
 * canonical order with MPI's in/inout shape). */
static void fold(int ch, const shmcoll_reduce_op_t *op, size_t count, uint64_t step, int lo, int hi,
                 void *out) {
    const size_t bytes = span(op, count);
    unsigned char *acc = malloc(bytes ? bytes : 1);
    memcpy(acc, net_data(ch, hi - 1, step), bytes);
    for (int n = hi - 2; n >= lo; n--) {
        if (op->kernel)
            op->kernel(net_data(ch, n, step), acc, acc, count);
        else
            op->user_fn(net_data(ch, n, step), acc, count, op->user_ctx);
    }
    memcpy(out, acc, bytes);
    free(acc);
}

static shmcoll_status_t net_test(void *ctx, void *request, char *error, size_t error_len);

/* The blocking form: start, then test until done (a leader in it runs nothing else, as in a
 * blocking MPI collective). */
static shmcoll_status_t net_run(void *ctx, const shmcoll_net_coll_t *coll, char *error,
                                size_t error_len) {
    void *request = NULL;
    shmcoll_status_t status = net_start(ctx, coll, &request);
    if (status != SHMCOLL_OK) return status;
    while ((status = net_test(ctx, request, error, error_len)) == SHMCOLL_IN_PROGRESS)
        sched_yield();
    return status;
}

/* Done once every node posted the step: this leader's part of the result. */
static shmcoll_status_t net_test(void *ctx, void *request, char *error, size_t error_len) {
    fake_net_t *net = ctx;
    shared_t *sh = team_harness_shared();
    const shmcoll_coll_args_t *a = &net->coll->args;
    const uint64_t k = net->steps;
    const int me = net->node, nn = net->nnodes, ch = net->channel;
    for (int n = 0; n < nn; n++)
        if (atomic_load_explicit(&sh->net_posted[ch][n][k % NET_SLOTS], memory_order_acquire) !=
            k + 1)
            return SHMCOLL_IN_PROGRESS;
    shmcoll_status_t status = SHMCOLL_OK;
    switch (a->kind) {
    case SHMCOLL_KIND_BCAST:
        if (me != a->root) {
            if (net_lengths(ch, a->root, k)[0] != a->count) goto mismatch;
            memcpy(a->recvbuf, net_data(ch, a->root, k), a->count);
        }
        break;
    case SHMCOLL_KIND_REDUCE:
        if (me == a->root) fold(ch, a->op, a->count, k, 0, nn, a->recvbuf);
        break;
    case SHMCOLL_KIND_ALLREDUCE:
        fold(ch, a->op, a->count, k, 0, nn, a->recvbuf);
        break;
    case SHMCOLL_KIND_EXSCAN:
        if (me > 0) fold(ch, a->op, a->count, k, 0, me, a->recvbuf);
        break;
    case SHMCOLL_KIND_REDUCE_SCATTER: {
        const size_t total = sum_of(a->recvcounts, nn), before = sum_of(a->recvcounts, me);
        char *whole = malloc(span(a->op, total));
        fold(ch, a->op, total, k, 0, nn, whole);
        memcpy(a->recvbuf, whole + before * a->op->extent, span(a->op, a->recvcounts[me]));
        free(whole);
        break;
    }
    case SHMCOLL_KIND_ALLGATHERV:
        for (int n = 0; n < nn; n++) {
            if (net_lengths(ch, n, k)[0] != a->recvcounts[n]) goto mismatch;
            if (n != me || a->sendbuf)
                memcpy((char *)a->recvbuf + a->rdispls[n], net_data(ch, n, k), a->recvcounts[n]);
        }
        break;
    case SHMCOLL_KIND_GATHERV:
        if (me == a->root)
            for (int n = 0; n < nn; n++) {
                if (n == me && !a->sendbuf) continue;
                if (net_lengths(ch, n, k)[0] != a->recvcounts[n]) goto mismatch;
                memcpy((char *)a->recvbuf + a->rdispls[n], net_data(ch, n, k), a->recvcounts[n]);
            }
        break;
    case SHMCOLL_KIND_SCATTERV:
        if (a->recvbuf) {
            const uint64_t *lens = net_lengths(ch, a->root, k);
            size_t at = 0;
            for (int m = 0; m < me; m++) at += lens[m];
            if (lens[me] != a->recvbytes) goto mismatch;
            memcpy(a->recvbuf, net_data(ch, a->root, k) + at, a->recvbytes);
        }
        break;
    case SHMCOLL_KIND_ALLTOALLV:
        for (int n = 0; n < nn; n++) {
            const uint64_t *lens = net_lengths(ch, n, k);
            size_t at = 0;
            for (int m = 0; m < me; m++) at += lens[m];
            if (lens[me] != a->recvcounts[n]) goto mismatch;
            memcpy((char *)a->recvbuf + a->rdispls[n], net_data(ch, n, k) + at, a->recvcounts[n]);
        }
        break;
    default:
        break;
    }
    goto done;
mismatch:
    snprintf(error, error_len,
             "fake network: %s step %llu: sizes of node %d's leader and its "
             "peers disagree",
             shmcoll_coll_kind_name(a->kind), (unsigned long long)k, me);
    status = SHMCOLL_ERR_INVALID;
done:
    atomic_store_explicit(&sh->net_done[ch][me], k + 1, memory_order_release);
    net->steps++;
    return status;
}

/* ---- Data and expectations ----------------------------------------------------------------- */

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

/* The reduction of ranks lo .. hi-1 (hi > lo), computed locally in rank order. */
static void expected(int64_t *want, size_t elems, int lo, int hi, long call, int matrices) {
    int64_t *x = malloc(elems * sizeof *x + 8);
    input(want, elems, hi - 1, call, matrices);
    for (int r = hi - 2; r >= lo; r--) {
        input(x, elems, r, call, matrices);
        if (matrices)
            matmul(x, want, elems / 4, NULL);
        else
            for (size_t j = 0; j < elems; j++) want[j] += x[j];
    }
    free(x);
}

/* The bytes of a data-movement block: from `who` (a rank, or a pair), in call `call`. */
static unsigned char byte_at(int who, long call, size_t j) {
    return (unsigned char)(who * 59 + call * 13 + (long)j * 7 + (long)(j >> 9) + 1);
}

static void fill(void *buf, size_t bytes, int who, long call) {
    unsigned char *b = buf;
    for (size_t j = 0; j < bytes; j++) b[j] = byte_at(who, call, j);
}

#define UNTOUCHED 0xEE /* receive buffers start so: what no block covers must stay so */

/* ---- The run of one shape ------------------------------------------------------------------ */

typedef struct shape {
    const char *name;
    int p;
    int labels[MAX_MEMBERS]; /* node label of each member */
    int leaders;             /* per node (0: 1) */
    int blocking;            /* the network has a blocking form (shmcoll_net_t.run) */
    size_t block_max;        /* with it: the largest call whose steps block (0: any) */
} shape_t;

typedef struct run {
    shmcoll_group_t *g;
    const shape_t *shape;
    long call; /* advances with every collective that runs, the same on every member */
    int blocks;
    int failed; /* a check failed: the cases go on, so every member calls the same ones */
    int fatal;  /* a collective failed: the group cannot go on */
    int reported;
    int ran, declined; /* collectives run and checked, and declined as expected */
    const shmcoll_reduce_op_t *sum, *product;
    int64_t net_mine; /* >= 0: the bytes this member hands to the network in the next call */
} run_t;

static void failf(run_t *r, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void failf(run_t *r, const char *what, const char *fmt, ...) {
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (r->reported++ < 8) team_harness_log("%s: %s: %s", r->shape->name, what, text);
    r->failed = 1;
}

/* Runs one collective: 1 if it ran (results to check), 0 if declined as expected or failed. */
static int run_one(run_t *r, const shmcoll_coll_args_t *args, int declined, uint64_t net_want,
                   const char *what) {
    shmcoll_group_t *g = r->g;
    const uint64_t before = g->net.bytes;
    const int64_t mine = r->net_mine; /* for this call only */
    r->net_mine = -1;
    const shmcoll_status_t status = shmcoll_group_run(g, args);
    if (declined) {
        if (status != SHMCOLL_ERR_NOT_SUPPORTED) {
            failf(r, what, "must be declined (every member alike), got %s",
                  shmcoll_status_string(status));
            r->fatal = 1;
        }
        r->declined++;
        return 0;
    }
    r->call++;
    r->ran++;
    if (status != SHMCOLL_OK) {
        failf(r, what, "%s (%s)", shmcoll_status_string(status), g->team->error);
        r->fatal = 1;
        return 0;
    }
    const uint64_t sent = g->net.bytes - before;
    const uint64_t want = mine >= 0                        ? (uint64_t)mine
                          : g->map.node_rank[g->rank] == 0 ? net_want
                                                           : 0;
    if (sent != want)
        failf(r, what, "%llu bytes to the network, want %llu", (unsigned long long)sent,
              (unsigned long long)want);
    return 1;
}

static int check_bytes(run_t *r, const char *what, const unsigned char *got,
                       const unsigned char *want, size_t bytes) {
    for (size_t j = 0; j < bytes; j++)
        if (got[j] != want[j]) {
            failf(r, what, "byte %zu of %zu is %u, want %u", j, bytes, got[j], want[j]);
            return 1;
        }
    return 0;
}

static int check_elems(run_t *r, const char *what, const int64_t *got, const int64_t *want,
                       size_t elems) {
    for (size_t j = 0; j < elems; j++)
        if (got[j] != want[j]) {
            failf(r, what, "element %zu of %zu is %lld, want %lld", j, elems, (long long)got[j],
                  (long long)want[j]);
            return 1;
        }
    return 0;
}

/* Per-node sums of per-member values, and the sum over the members of one node. */
static size_t node_sum(const shmcoll_group_map_t *map, int n, const size_t *v) {
    size_t total = 0;
    for (int k = map->node_first[n]; k < map->node_first[n + 1]; k++) total += v[map->members[k]];
    return total;
}

/* Block sizes of the v-variants: pattern 0 uneven, pattern 1 uneven with zeros, pattern 2 the
 * last rank's block alone (whole nodes without data). */
#define PATTERNS 3
static const char *const pattern_names[PATTERNS] = {"", " with zeros", " last only"};
static size_t vcount(int pattern, int q, int p, size_t base) {
    switch (pattern) {
    case 0:
        return base * (size_t)(1 + q % 3);
    case 1:
        return q % 3 == 1 ? 0 : base + 3 * (size_t)q;
    default:
        return q == p - 1 ? base : 0;
    }
}

/* The variants of a data-movement case: in place or not, a count pattern, a layout. */
#define VARIANTS(varying) ((varying) ? 2 * PATTERNS * 2 : 2)
static int variant_in_place(int v) {
    return v % 2;
}
static int variant_pattern(int v) {
    return v / 2 % PATTERNS;
}
static int variant_layout(int v) {
    return v / (2 * PATTERNS);
}

/* Displacements of blocks cnt[]: layout 0 back to back in rank order, layout 1 in reverse rank
 * order with gaps. Returns the buffer size. */
static size_t layout(int p, const size_t *cnt, int reversed, size_t *displ) {
    size_t at = reversed ? 8 : 0;
    for (int k = 0; k < p; k++) {
        const int q = reversed ? p - 1 - k : k;
        displ[q] = at;
        at += cnt[q] + (reversed ? 16 : 0);
    }
    return at;
}

/* ---- Barrier and bcast ----------------------------------------------------------------------- */

static void test_barrier(run_t *r) {
    shared_t *sh = team_harness_shared();
    const int p = r->g->size;
    for (int i = 0; i < MAX_BARRIERS && !r->fatal; i++) {
        if (r->g->rank == i % p) { /* a late arrival, on a node of its own choosing */
            const double until = team_harness_now() + 0.02;
            while (team_harness_now() < until) sched_yield();
        }
        atomic_fetch_add(&sh->arrived[i], 1);
        const shmcoll_coll_args_t args = {.kind = SHMCOLL_KIND_BARRIER};
        if (!run_one(r, &args, 0, 0, "barrier")) continue;
        const int seen = atomic_load(&sh->arrived[i]);
        if (seen != p) failf(r, "barrier", "left with %d of %d members arrived", seen, p);
    }
}

static void test_bcast(run_t *r) {
    shmcoll_group_t *g = r->g;
    const size_t sizes[] = {1, 1000, 300000 / (size_t)team_harness_scale_down() + 5};
    for (size_t c = 0; c < NELEMS(sizes) && !r->fatal; c++)
        for (int root = 0; root < g->size && !r->fatal; root++) {
            const size_t bytes = sizes[c];
            unsigned char *buf = malloc(bytes), *want = malloc(bytes);
            fill(want, bytes, root, r->call);
            if (g->rank == root)
                memcpy(buf, want, bytes);
            else
                memset(buf, UNTOUCHED, bytes);
            const shmcoll_coll_args_t args = {
                .kind = SHMCOLL_KIND_BCAST, .recvbuf = buf, .count = bytes, .root = root};
            char what[96];
            snprintf(what, sizeof what, "bcast of %zu from %d", bytes, root);
            /* The root's node hands the vector; on three nodes or more from SHMCOLL_NET_SPLIT
             * bytes (a scatter then an allgather of N pieces) every other node its piece. */
            const int nn = g->map.nnodes, n = g->node;
            const int pieces = nn >= 3 && bytes >= shmcoll_config()->net_split;
            const uint64_t net =
                g->map.node_of[root] == n ? bytes
                : pieces ? bytes * (size_t)(n + 1) / (size_t)nn - bytes * (size_t)n / (size_t)nn
                         : 0;
            if (run_one(r, &args, 0, net, what)) check_bytes(r, what, buf, want, bytes);
            free(buf), free(want);
        }
}

/* ---- Reductions ------------------------------------------------------------------------------ */

static const size_t reduce_counts[] = {1, 7, 1000, 40000}; /* elements of 8 bytes (matrices: / 4) */

/* What this member hands to the network in an allreduce of `bytes` (elements of `size` bytes):
 * leader c its share by the plan (group/allreduce_plan.h; its own unit test checks the plan),
 * the leader of channel 0 all of it in the one-leader form. */
static uint64_t allreduce_net_bytes(const shmcoll_group_t *g, size_t bytes, size_t size) {
    shmcoll_allreduce_plan_t plan;
    const int steps_block =
        g->net.run && !shmcoll_config()->net_bounded && bytes <= g->net.block_max;
    shmcoll_allreduce_plan(bytes / size, size, g->net.nchannels, steps_block, 0, &plan);
    const int c = g->map.node_rank[g->rank];
    return (uint64_t)shmcoll_allreduce_plan_channel(&plan, bytes / size, c) * size;
}

static void test_allreduce(run_t *r) {
    shmcoll_group_t *g = r->g;
    for (size_t c = 0; c < NELEMS(reduce_counts) && !r->fatal; c++)
        for (int variant = 0; variant < 4 && !r->fatal; variant++) {
            const int matrices = variant >= 2, in_place = variant & 1;
            const size_t elems = matrices ? (reduce_counts[c] + 3) / 4 * 4 : reduce_counts[c];
            int64_t *send = malloc(elems * 8), *recv = malloc(elems * 8), *want = malloc(elems * 8);
            input(in_place ? recv : send, elems, g->rank, r->call, matrices);
            const shmcoll_coll_args_t args = {.kind = SHMCOLL_KIND_ALLREDUCE,
                                              .sendbuf = in_place ? NULL : send,
                                              .recvbuf = recv,
                                              .count = matrices ? elems / 4 : elems,
                                              .op = matrices ? r->product : r->sum};
            char what[96];
            snprintf(what, sizeof what, "allreduce of %zu%s%s", elems, matrices ? " matrices" : "",
                     in_place ? " in place" : "");
            const long call = r->call;
            r->net_mine = (int64_t)allreduce_net_bytes(g, elems * 8, matrices ? 32 : 8);
            if (run_one(r, &args, matrices && !r->blocks, elems * 8, what)) {
                expected(want, elems, 0, g->size, call, matrices);
                check_elems(r, what, recv, want, elems);
            }
            free(send), free(recv), free(want);
        }
}

static void test_reduce(run_t *r) {
    shmcoll_group_t *g = r->g;
    for (size_t c = 0; c < NELEMS(reduce_counts) && !r->fatal; c++)
        for (int root = 0; root < g->size && !r->fatal; root++)
            for (int variant = 0; variant < 4 && !r->fatal; variant++) {
                const int matrices = variant >= 2, in_place = (variant & 1) && g->rank == root;
                const size_t elems = matrices ? (reduce_counts[c] + 3) / 4 * 4 : reduce_counts[c];
                int64_t *send = malloc(elems * 8), *recv = malloc(elems * 8);
                int64_t *want = malloc(elems * 8);
                input(in_place ? recv : send, elems, g->rank, r->call, matrices);
                const shmcoll_coll_args_t args = {
                    .kind = SHMCOLL_KIND_REDUCE,
                    .sendbuf = in_place ? NULL : send,
                    .recvbuf = g->rank == root ? recv : NULL, /* not significant elsewhere */
                    .count = matrices ? elems / 4 : elems,
                    .op = matrices ? r->product : r->sum,
                    .root = root};
                char what[96];
                snprintf(what, sizeof what, "reduce of %zu%s%s to %d", elems,
                         matrices ? " matrices" : "", variant & 1 ? " in place" : "", root);
                const long call = r->call;
                const uint64_t net = g->map.node_of[root] != g->node ? elems * 8 : 0;
                if (run_one(r, &args, matrices && !r->blocks, net, what) && g->rank == root) {
                    expected(want, elems, 0, g->size, call, matrices);
                    check_elems(r, what, recv, want, elems);
                }
                free(send), free(recv), free(want);
            }
}

static void test_reduce_scatter(run_t *r, int varying) {
    shmcoll_group_t *g = r->g;
    const shmcoll_group_map_t *map = &g->map;
    const int p = g->size;
    const size_t bases[] = {1, 100, 7000};
    for (size_t c = 0; c < NELEMS(bases) && !r->fatal; c++)
        for (int variant = 0; variant < 4 && !r->fatal; variant++) {
            const int matrices = variant >= 2, in_place = variant & 1;
            const int unit = matrices ? 4 : 1;                 /* int64s per element */
            size_t counts[MAX_MEMBERS], total = 0, before = 0; /* elements */
            for (int q = 0; q < p; q++) {
                counts[q] = varying ? vcount(1, q, p, bases[c]) : bases[c];
                if (q == g->rank) before = total;
                total += counts[q];
            }
            const size_t ints = total * unit, mine = counts[g->rank] * unit;
            int64_t *send = malloc(ints * 8 + 8), *recv = malloc(ints * 8 + 8);
            int64_t *want = malloc(ints * 8 + 8);
            input(in_place ? recv : send, ints, g->rank, r->call, matrices);
            const shmcoll_coll_args_t args = {.kind = varying ? SHMCOLL_KIND_REDUCE_SCATTER
                                                              : SHMCOLL_KIND_REDUCE_SCATTER_BLOCK,
                                              .sendbuf = in_place ? NULL : send,
                                              .recvbuf = recv,
                                              .count = counts[0],
                                              .recvcounts = varying ? counts : NULL,
                                              .op = matrices ? r->product : r->sum};
            char what[96];
            snprintf(what, sizeof what, "%s of %zu%s%s", shmcoll_coll_kind_name(args.kind), total,
                     matrices ? " matrices" : "", in_place ? " in place" : "");
            uint64_t net = 0; /* the other nodes' parts */
            for (int n = 0; n < map->nnodes; n++)
                if (n != g->node) net += node_sum(map, n, counts) * unit * 8;
            const long call = r->call;
            if (run_one(r, &args, matrices && !r->blocks, net, what)) {
                expected(want, ints, 0, p, call, matrices);
                check_elems(r, what, recv, want + before * unit, mine);
            }
            free(send), free(recv), free(want);
        }
}

static void test_scan(run_t *r, int exclusive) {
    shmcoll_group_t *g = r->g;
    const int me = g->rank;
    for (size_t c = 0; c < NELEMS(reduce_counts) && !r->fatal; c++)
        for (int variant = 0; variant < 4 && !r->fatal; variant++) {
            const int matrices = variant >= 2, in_place = variant & 1;
            const size_t elems = matrices ? (reduce_counts[c] + 3) / 4 * 4 : reduce_counts[c];
            int64_t *send = malloc(elems * 8), *recv = malloc(elems * 8), *want = malloc(elems * 8);
            input(in_place ? recv : send, elems, me, r->call, matrices);
            if (!in_place) memset(recv, UNTOUCHED, elems * 8);
            if (exclusive && me == 0) memcpy(want, recv, elems * 8); /* untouched */
            const shmcoll_coll_args_t args = {.kind = exclusive ? SHMCOLL_KIND_EXSCAN
                                                                : SHMCOLL_KIND_SCAN,
                                              .sendbuf = in_place ? NULL : send,
                                              .recvbuf = recv,
                                              .count = matrices ? elems / 4 : elems,
                                              .op = matrices ? r->product : r->sum};
            char what[96];
            snprintf(what, sizeof what, "%s of %zu%s%s", exclusive ? "exscan" : "scan", elems,
                     matrices ? " matrices" : "", in_place ? " in place" : "");
            const long call = r->call;
            const uint64_t net = g->node < g->map.nnodes - 1 ? elems * 8 : 0;
            if (run_one(r, &args, !r->blocks, net, what)) {
                if (!exclusive || me > 0)
                    expected(want, elems, 0, exclusive ? me : me + 1, call, matrices);
                check_elems(r, what, recv, want, elems);
            }
            free(send), free(recv), free(want);
        }
}

/* ---- Data movement --------------------------------------------------------------------------- */

/* The bytes of member q's block in call `call`: the block of q (gather family), or of the pair
 * (q, r) (alltoall). */
static void block_of(unsigned char *out, size_t bytes, int who, long call) {
    fill(out, bytes, who, call);
}

static void test_allgather(run_t *r, int varying) {
    shmcoll_group_t *g = r->g;
    const shmcoll_group_map_t *map = &g->map;
    const int p = g->size, me = g->rank;
    const size_t bases[] = {8, 1000, 300000 / (size_t)team_harness_scale_down() + 3};
    for (size_t c = 0; c < NELEMS(bases) && !r->fatal; c++)
        for (int variant = 0; variant < VARIANTS(varying) && !r->fatal; variant++) {
            const int in_place = variant_in_place(variant), pattern = variant_pattern(variant);
            /* layouts: every member in rank order, or odd members reversed with gaps */
            const int reversed = varying && variant_layout(variant) && me % 2;
            size_t cnt[MAX_MEMBERS], displ[MAX_MEMBERS];
            for (int q = 0; q < p; q++)
                cnt[q] = varying ? vcount(pattern, q, p, bases[c] / 4 + 1) : bases[c];
            const size_t bytes = layout(p, cnt, reversed, displ);
            unsigned char *send = malloc(cnt[me] + 1), *recv = malloc(bytes + 1);
            unsigned char *want = malloc(bytes + 1);
            memset(recv, UNTOUCHED, bytes);
            memset(want, UNTOUCHED, bytes);
            for (int q = 0; q < p; q++) block_of(want + displ[q], cnt[q], q, r->call);
            if (in_place)
                memcpy(recv + displ[me], want + displ[me], cnt[me]);
            else
                memcpy(send, want + displ[me], cnt[me]);
            const shmcoll_coll_args_t args = {.kind = varying ? SHMCOLL_KIND_ALLGATHERV
                                                              : SHMCOLL_KIND_ALLGATHER,
                                              .sendbuf = in_place ? NULL : send,
                                              .sendbytes = cnt[me],
                                              .recvbuf = recv,
                                              .count = bases[c],
                                              .recvcounts = varying ? cnt : NULL,
                                              .rdispls = varying ? displ : NULL};
            char what[128];
            snprintf(what, sizeof what, "%s of %zu%s%s%s", shmcoll_coll_kind_name(args.kind),
                     bases[c], in_place ? " in place" : "", pattern_names[pattern],
                     variant_layout(variant) ? " mixed layouts" : "");
            if (run_one(r, &args, 0, node_sum(map, g->node, cnt), what))
                check_bytes(r, what, recv, want, bytes);
            free(send), free(recv), free(want);
        }
}

static void test_gather(run_t *r, int varying) {
    shmcoll_group_t *g = r->g;
    const shmcoll_group_map_t *map = &g->map;
    const int p = g->size, me = g->rank;
    const size_t bases[] = {8, 1000, 300000 / (size_t)team_harness_scale_down() + 3};
    for (size_t c = 0; c < NELEMS(bases) && !r->fatal; c++)
        for (int root = 0; root < p && !r->fatal; root++)
            for (int variant = 0; variant < VARIANTS(varying) && !r->fatal; variant++) {
                const int is_root = me == root, in_place = variant_in_place(variant) && is_root;
                const int pattern = variant_pattern(variant);
                const int reversed = varying && variant_layout(variant);
                size_t cnt[MAX_MEMBERS], displ[MAX_MEMBERS];
                for (int q = 0; q < p; q++)
                    cnt[q] = varying ? vcount(pattern, q, p, bases[c] / 4 + 1) : bases[c];
                const size_t bytes = layout(p, cnt, reversed, displ);
                unsigned char *send = malloc(cnt[me] + 1), *recv = malloc(bytes + 1);
                unsigned char *want = malloc(bytes + 1);
                memset(recv, UNTOUCHED, bytes);
                memset(want, UNTOUCHED, bytes);
                for (int q = 0; q < p; q++) block_of(want + displ[q], cnt[q], q, r->call);
                if (in_place)
                    memcpy(recv + displ[me], want + displ[me], cnt[me]);
                else
                    memcpy(send, want + displ[me], cnt[me]);
                /* As the MPI layer passes them: the receive side at the root only, no send
                 * size at an in-place root. */
                const shmcoll_coll_args_t args = {.kind = varying ? SHMCOLL_KIND_GATHERV
                                                                  : SHMCOLL_KIND_GATHER,
                                                  .sendbuf = in_place ? NULL : send,
                                                  .sendbytes = in_place ? 0 : cnt[me],
                                                  .recvbuf = is_root ? recv : NULL,
                                                  .count = bases[c],
                                                  .recvcounts = is_root && varying ? cnt : NULL,
                                                  .rdispls = is_root && varying ? displ : NULL,
                                                  .root = root};
                char what[128];
                snprintf(what, sizeof what, "%s of %zu to %d%s%s%s",
                         shmcoll_coll_kind_name(args.kind), bases[c], root,
                         variant_in_place(variant) ? " in place" : "", pattern_names[pattern],
                         reversed ? " reversed" : "");
                const uint64_t net =
                    map->node_of[root] != g->node ? node_sum(map, g->node, cnt) : 0;
                if (run_one(r, &args, 0, net, what) && is_root)
                    check_bytes(r, what, recv, want, bytes);
                free(send), free(recv), free(want);
            }
}

static void test_scatter(run_t *r, int varying) {
    shmcoll_group_t *g = r->g;
    const shmcoll_group_map_t *map = &g->map;
    const int p = g->size, me = g->rank;
    const size_t bases[] = {8, 1000, 300000 / (size_t)team_harness_scale_down() + 3};
    for (size_t c = 0; c < NELEMS(bases) && !r->fatal; c++)
        for (int root = 0; root < p && !r->fatal; root++)
            for (int variant = 0; variant < VARIANTS(varying) && !r->fatal; variant++) {
                const int is_root = me == root, in_place = variant_in_place(variant) && is_root;
                const int pattern = variant_pattern(variant);
                const int reversed = varying && variant_layout(variant);
                size_t cnt[MAX_MEMBERS], displ[MAX_MEMBERS];
                for (int q = 0; q < p; q++)
                    cnt[q] = varying ? vcount(pattern, q, p, bases[c] / 4 + 1) : bases[c];
                const size_t bytes = layout(p, cnt, reversed, displ);
                unsigned char *send = malloc(bytes + 1), *recv = malloc(cnt[me] + 1);
                unsigned char *want = malloc(cnt[me] + 1);
                memset(send, UNTOUCHED, bytes);
                for (int q = 0; q < p; q++) block_of(send + displ[q], cnt[q], q, r->call);
                block_of(want, cnt[me], me, r->call);
                memset(recv, UNTOUCHED, cnt[me]);
                const shmcoll_coll_args_t args = {.kind = varying ? SHMCOLL_KIND_SCATTERV
                                                                  : SHMCOLL_KIND_SCATTER,
                                                  .sendbuf = is_root ? send : NULL,
                                                  .sendcounts = is_root && varying ? cnt : NULL,
                                                  .sdispls = is_root && varying ? displ : NULL,
                                                  .recvbuf = in_place ? NULL : recv,
                                                  .recvbytes = in_place ? 0 : cnt[me],
                                                  .count = bases[c],
                                                  .root = root};
                char what[128];
                snprintf(what, sizeof what, "%s of %zu from %d%s%s%s",
                         shmcoll_coll_kind_name(args.kind), bases[c], root,
                         variant_in_place(variant) ? " in place" : "", pattern_names[pattern],
                         reversed ? " reversed" : "");
                size_t total = 0;
                for (int q = 0; q < p; q++) total += cnt[q];
                const int root_node = map->node_of[root];
                const uint64_t net =
                    root_node == g->node ? total - node_sum(map, root_node, cnt) : 0;
                if (run_one(r, &args, 0, net, what)) {
                    if (!in_place) check_bytes(r, what, recv, want, cnt[me]);
                    /* the root's send buffer is never written */
                    unsigned char *orig = malloc(bytes + 1);
                    memset(orig, UNTOUCHED, bytes);
                    for (int q = 0; q < p; q++) block_of(orig + displ[q], cnt[q], q, r->call - 1);
                    if (is_root) check_bytes(r, what, send, orig, bytes);
                    free(orig);
                }
                free(send), free(recv), free(want);
            }
}

/* What q sends r in an alltoallv of pattern `pattern` (1: some pairs send nothing; 2: one pair
 * alone sends), and in place, where the send side is the receive side so the counts must be
 * symmetric. */
static size_t pair_count(int pattern, int q, int r, int p, long call, size_t base, int in_place) {
    switch (pattern) {
    case 0:
        return base * (size_t)(1 + (in_place ? q + r : q + 2 * r) % 3);
    case 1:
        return base * (size_t)((in_place ? q + r + call : q + 2 * r + call) % 4);
    default:
        return in_place ? (q + r == p - 1 ? base : 0) : (q == 0 && r == p - 1 ? base : 0);
    }
}

static void test_alltoall(run_t *r, int varying) {
    shmcoll_group_t *g = r->g;
    const shmcoll_group_map_t *map = &g->map;
    const int p = g->size, me = g->rank;
    int largest = 0;
    for (int n = 0; n < map->nnodes; n++)
        largest = map->node_size[n] > largest ? map->node_size[n] : largest;
    /* alltoall: served up to SHMCOLL_NET_ALLTOALL_MAX per node send side; the last size
     * is declined */
    const size_t most = shmcoll_config()->net_alltoall_max / ((size_t)largest * p);
    const size_t bases[] = {8, 1000, most, most + 1};
    for (size_t c = 0; c < NELEMS(bases) - (varying ? 1 : 0) && !r->fatal; c++)
        for (int variant = 0; variant < VARIANTS(varying) && !r->fatal; variant++) {
            const int in_place = variant_in_place(variant), pattern = variant_pattern(variant);
            const int mixed = varying && variant_layout(variant), reversed = mixed && me % 2;
            const size_t base = varying ? bases[c] / 8 + 1 : bases[c];
            const long call = r->call;
            size_t sc[MAX_MEMBERS], rc[MAX_MEMBERS], sd[MAX_MEMBERS], rd[MAX_MEMBERS];
            for (int q = 0; q < p; q++) {
                sc[q] = varying ? pair_count(pattern, me, q, p, call, base, in_place) : base;
                rc[q] = varying ? pair_count(pattern, q, me, p, call, base, in_place) : base;
            }
            const size_t sbytes = layout(p, sc, reversed, sd);
            /* in place, the send side is the receive side */
            const size_t rbytes = layout(p, rc, in_place ? reversed : mixed && !reversed, rd);
            unsigned char *send = malloc(sbytes + 1), *recv = malloc(rbytes + 1);
            unsigned char *want = malloc(rbytes + 1);
            memset(send, UNTOUCHED, sbytes);
            memset(recv, UNTOUCHED, rbytes);
            memset(want, UNTOUCHED, rbytes);
            for (int q = 0; q < p; q++) {
                block_of((in_place ? recv + rd[q] : send + sd[q]), sc[q], me * 16 + q, call);
                block_of(want + rd[q], rc[q], q * 16 + me, call);
            }
            const shmcoll_coll_args_t args = {.kind = varying ? SHMCOLL_KIND_ALLTOALLV
                                                              : SHMCOLL_KIND_ALLTOALL,
                                              .sendbuf = in_place ? NULL : send,
                                              .sendcounts = varying && !in_place ? sc : NULL,
                                              .sdispls = varying && !in_place ? sd : NULL,
                                              .recvbuf = recv,
                                              .recvcounts = varying ? rc : NULL,
                                              .rdispls = varying ? rd : NULL,
                                              .count = base};
            char what[128];
            snprintf(what, sizeof what, "%s of %zu%s%s%s", shmcoll_coll_kind_name(args.kind), base,
                     in_place ? " in place" : "", pattern_names[varying ? pattern : 0],
                     mixed ? " mixed layouts" : "");
            uint64_t net = 0; /* from this node's members to other nodes' */
            for (int k = map->node_first[g->node]; k < map->node_first[g->node + 1]; k++)
                for (int q = 0; q < p; q++) {
                    const int from = map->members[k];
                    if (map->node_of[q] == g->node) continue;
                    net += varying ? pair_count(pattern, from, q, p, call, base, in_place) : base;
                }
            const int declined = !varying && c == NELEMS(bases) - 1;
            if (run_one(r, &args, declined, net, what)) check_bytes(r, what, recv, want, rbytes);
            free(send), free(recv), free(want);
        }
}

static int run_group(shmcoll_group_t *g, const shape_t *shape) {
    const shmcoll_reduce_op_t sum = {.kernel =
                                         shmcoll_kernel_reduce(SHMCOLL_DT_INT64, SHMCOLL_OP_SUM),
                                     .size = 8,
                                     .extent = 8,
                                     .commutative = 1,
                                     .name = "sum"};
    const shmcoll_reduce_op_t product = {
        .user_fn = matmul, .size = 32, .extent = 32, .commutative = 0, .name = "matmul"};
    run_t r = {.g = g, .shape = shape, .sum = &sum, .product = &product, .net_mine = -1};
    r.blocks = shmcoll_compose_all_blocks(&g->map);
    test_barrier(&r);
    test_bcast(&r);
    test_allreduce(&r);
    test_reduce(&r);
    test_reduce_scatter(&r, 0);
    test_reduce_scatter(&r, 1);
    test_scan(&r, 0);
    test_scan(&r, 1);
    test_allgather(&r, 0);
    test_allgather(&r, 1);
    test_gather(&r, 0);
    test_gather(&r, 1);
    test_scatter(&r, 0);
    test_scatter(&r, 1);
    test_alltoall(&r, 0);
    test_alltoall(&r, 1);
    if (g->rank == 0)
        printf("test_group %s: %d collectives checked, %d declined as expected\n", shape->name,
               r.ran, r.declined);
    return r.failed;
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
    const int leaders = shape->leaders ? shape->leaders : 1, node_rank = g.map.node_rank[me];
    fake_net_t net = {
        .node = g.node, .nnodes = g.map.nnodes, .channel = node_rank < leaders ? node_rank : -1};
    g.net = (shmcoll_net_t){.nchannels = leaders,
                            .start = net_start,
                            .test = net_test,
                            .run = shape->blocking ? net_run : NULL,
                            .ctx = &net,
                            .block_max = shape->block_max ? shape->block_max : SIZE_MAX};
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
        {"2 nodes x 2 (blocks)", 4, {0, 0, 1, 1}, 1, 0, 0},
        {"3 + 2 (uneven blocks)", 5, {7, 7, 7, 3, 3}, 1, 0, 0},
        {"3 nodes round-robin", 6, {0, 1, 2, 0, 1, 2}, 1, 0, 0},
        {"1 member per node", 4, {0, 1, 2, 3}, 1, 0, 0},
        {"2 nodes x 3 (blocks)", 6, {5, 5, 5, 9, 9, 9}, 1, 0, 0},
        /* Several leaders (the allreduce's shares; the other kinds use the first) and segments
         * of 64 KiB, so the largest calls go through a pipeline of several segments. */
        {"2 nodes x 3, 2 leaders", 6, {5, 5, 5, 9, 9, 9}, 2, 0, 0},
        {"3 nodes round-robin, 2 leaders", 6, {0, 1, 2, 0, 1, 2}, 2, 0, 0},
        /* A network with blocking steps (as the MPI library's blocking collectives): the plans
         * that choose by it (compose.h: shmcoll_compose_net_may_block) take their other form. */
        {"2 nodes x 3, 2 leaders, blocking steps", 6, {5, 5, 5, 9, 9, 9}, 2, 1, 0},
        {"3 + 2 (uneven blocks), blocking steps", 5, {7, 7, 7, 3, 3}, 1, 1, 0},
        /* Steps that block only for calls up to 16 KiB (as MPICH's network, mpi/net.c): both
         * forms within one shape, chosen alike on every member. */
        {"2 nodes x 3, 2 leaders, blocking steps to 16 KiB", 6, {5, 5, 5, 9, 9, 9}, 2, 1, 16384},
    };
    int failed = 0;
    for (size_t s = 0; s < NELEMS(shapes); s++) {
        if (argc > 1 && !strstr(shapes[s].name, argv[1])) continue;
        static const char *const env[] = {"SHMCOLL_TIMEOUT=30", NULL}; /* a hang fails soon */
        static const char *const env_leaders[] = {"SHMCOLL_TIMEOUT=30", "SHMCOLL_NET_SEGMENT=64k",
                                                  NULL};
        team_harness_spec_t spec = {.p = shapes[s].p,
                                    .env = shapes[s].leaders ? env_leaders : env,
                                    .body = body,
                                    .arg = (void *)&shapes[s],
                                    .timeout_s = 600,
                                    .shared_bytes = sizeof(shared_t)};
        const double t0 = team_harness_now();
        const int result = team_harness_run_spec(&spec);
        printf("test_group %s: %s (%.2f s)\n", shapes[s].name, result ? "FAILED" : "ok",
               team_harness_now() - t0);
        fflush(stdout);
        failed |= result != 0;
    }
    return failed;
}
