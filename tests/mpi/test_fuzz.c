/* A random program of collectives, as an application would mix them: every collective, blocking,
 * non-blocking and persistent, on several communicators (the world, a duplicate, two splits, one
 * of them in reverse rank order, and duplicates made and freed along the way), of sizes drawn
 * log-uniformly from empty to --max-bytes, in place where MPI allows it, in runs of the same call
 * (so the measurement, the loop check, the repeat and express paths all serve) whose values change
 * from call to call or stay, and whose count arrays (v-variants) change in place under the same
 * pointers now and then. Non-blocking calls are started in batches of up to three, with blocking
 * ones between them, and each rank completes them in an order and a way of its own: one by one
 * (MPI_Wait), or the batch at once by MPI_Waitall, -any, -some, MPI_Testall, -any or -some, in
 * about half the batches with a ring of point-to-point messages among them. Ranks pause at random
 * now and then, so they arrive skewed. With --threads 2 (MPI_THREAD_MULTIPLE) a second thread runs
 * its own program on communicators of its own at the same time. With --handoff N
 * (MPI_THREAD_SERIALIZED) one program runs, but each of its MPI calls (a collective's start, a
 * request's start, wait or free) is made by one of N threads or the main one, drawn by each rank
 * on its own, as in a hybrid program whose collectives come from whichever thread enters an
 * OpenMP `single` region: the calls of one communicator and of one request come from different
 * threads, one at a time, and the ranks' threads differ.
 *
 * Every rank draws the program from the same seed, so the calls match; each rank's inputs are a
 * function of (its rank, index, call), so every result is checked against a local reference,
 * the gaps between blocks of the v-variants included (nothing may be written there). Run at the
 * shipped defaults, preloaded: a hang fails the test through run_mpi.py's timeout. */
#include "mpi_check.h"
#include "persistent_names.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The kinds in the order the program draws them (an index into this table), as check_coll_t. */
static const check_coll_t kinds[] = {CHECK_BARRIER,
                                     CHECK_BCAST,
                                     CHECK_REDUCE,
                                     CHECK_ALLREDUCE,
                                     CHECK_SCAN,
                                     CHECK_EXSCAN,
                                     CHECK_REDUCE_SCATTER_BLOCK,
                                     CHECK_REDUCE_SCATTER,
                                     CHECK_ALLGATHER,
                                     CHECK_ALLGATHERV,
                                     CHECK_GATHER,
                                     CHECK_GATHERV,
                                     CHECK_SCATTER,
                                     CHECK_SCATTERV,
                                     CHECK_ALLTOALL,
                                     CHECK_ALLTOALLV};
#define KINDS ((uint32_t)(sizeof kinds / sizeof *kinds))

enum form { BLOCKING, NONBLOCKING, PERSISTENT };
static const char *const form_names[] = {"blocking", "non-blocking", "persistent"};

#define COMMS     4
#define BATCH     3    /* operations started before the batch's waits */
#define POISON    -1.0 /* what a receive buffer holds before the call */
#define SLACK     2    /* v-variants: a block's count is n .. n + SLACK, or 0 */
#define MAX_RANKS 64

static long max_bytes = 1 << 20; /* a call's largest buffer on any rank */
static long total_calls = 3000;  /* per thread */
static unsigned seed = 1;

/* xorshift64*: every rank draws the same program from the same seed. */
typedef struct rng {
    uint64_t s;
} rng_t;

static uint32_t draw(rng_t *g) {
    g->s ^= g->s >> 12;
    g->s ^= g->s << 25;
    g->s ^= g->s >> 27;
    return (uint32_t)((g->s * 0x2545F4914F6CDD1Dull) >> 32);
}

static uint32_t below(rng_t *g, uint32_t n) {
    return n ? draw(g) % n : 0;
}

static double val(int src, size_t i, int salt) {
    return (double)(check_hash(src, i, salt) % 1024);
}

/* One collective call's arguments and buffers; counts and displacements in elements. */
typedef struct op {
    check_coll_t kind;
    enum form form;
    MPI_Comm comm;
    int p, r, root, n, in_place, salt, shape;
    int scounts[MAX_RANKS], sdispls[MAX_RANKS], rcounts[MAX_RANKS], rdispls[MAX_RANKS];
    double *send, *recv;
    size_t send_elems, recv_elems;
    MPI_Request request;
    int thread;
    long call;
} op_t;

/* The v-variants' count of the block from `src` to `dst` (one of them fixed for the rooted and
 * gathering kinds): n .. n + SLACK, or none now and then. */
static int vcount(const op_t *o, int src, int dst) {
    const uint32_t h = check_hash(src, (size_t)dst, o->shape);
    return h % 7 == 0 ? 0 : o->n + (int)(h % (SLACK + 1));
}

/* Displacements with a gap of one element after each block. */
static size_t place(const int *counts, int *displs, int p) {
    size_t at = 0;
    for (int q = 0; q < p; q++) {
        displs[q] = (int)at;
        at += (size_t)counts[q] + 1;
    }
    return at;
}

/* The counts of this call's shape, and the buffers' lengths they need. */
static void lay_out(op_t *o) {
    const int p = o->p, r = o->r, n = o->n;
    o->send_elems = o->recv_elems = 0;
    switch (o->kind) {
    case CHECK_BARRIER:
        break;
    case CHECK_BCAST:
        o->recv_elems = (size_t)n;
        break;
    case CHECK_REDUCE:
    case CHECK_ALLREDUCE:
    case CHECK_SCAN:
    case CHECK_EXSCAN:
        o->send_elems = o->recv_elems = (size_t)n;
        break;
    case CHECK_REDUCE_SCATTER_BLOCK:
        o->send_elems = (size_t)p * n;
        o->recv_elems = o->in_place ? o->send_elems : (size_t)n;
        break;
    case CHECK_REDUCE_SCATTER: {
        size_t all = 0;
        for (int q = 0; q < p; q++) all += (size_t)(o->rcounts[q] = vcount(o, 0, q));
        o->send_elems = all;
        o->recv_elems = (size_t)o->rcounts[r];
        break;
    }
    case CHECK_ALLGATHER:
    case CHECK_GATHER:
        o->send_elems = (size_t)n;
        o->recv_elems = (size_t)p * n;
        break;
    case CHECK_SCATTER:
        o->send_elems = (size_t)p * n;
        o->recv_elems = (size_t)n;
        break;
    case CHECK_ALLTOALL:
        o->send_elems = o->recv_elems = (size_t)p * n;
        break;
    case CHECK_ALLGATHERV:
    case CHECK_GATHERV:
        for (int q = 0; q < p; q++) o->rcounts[q] = vcount(o, q, 0);
        o->recv_elems = place(o->rcounts, o->rdispls, p);
        o->send_elems = (size_t)o->rcounts[r];
        break;
    case CHECK_SCATTERV:
        for (int q = 0; q < p; q++) o->scounts[q] = vcount(o, 0, q);
        o->send_elems = place(o->scounts, o->sdispls, p);
        o->recv_elems = (size_t)o->scounts[r];
        break;
    case CHECK_ALLTOALLV:
        for (int q = 0; q < p; q++) {
            o->scounts[q] = vcount(o, r, q);
            o->rcounts[q] = vcount(o, q, r);
        }
        o->send_elems = place(o->scounts, o->sdispls, p);
        o->recv_elems = place(o->rcounts, o->rdispls, p);
        break;
    case CHECK_COLL_COUNT:
        break;
    }
}

/* The value this rank sends at element i of its send buffer (the reductions, bcast's root) or in
 * the block to `dst` (data movement). */
static double sent(const op_t *o, int dst, size_t i) {
    switch (o->kind) {
    case CHECK_SCATTER:
    case CHECK_SCATTERV:
        return val(dst, i, o->salt);
    case CHECK_ALLTOALL:
    case CHECK_ALLTOALLV:
        return val(o->r * o->p + dst, i, o->salt);
    default:
        return val(o->r, i, o->salt);
    }
}

/* What this rank must find in the block from `src` at element i. */
static double received(const op_t *o, int src, size_t i) {
    switch (o->kind) {
    case CHECK_SCATTER:
    case CHECK_SCATTERV:
        return val(o->r, i, o->salt);
    case CHECK_ALLTOALL:
    case CHECK_ALLTOALLV:
        return val(src * o->p + o->r, i, o->salt);
    default:
        return val(src, i, o->salt);
    }
}

/* The block of the send buffer for `dst` and its length, per kind (NULL: none). */
static double *send_block(op_t *o, double *buf, int dst, size_t *len) {
    switch (o->kind) {
    case CHECK_SCATTER:
    case CHECK_ALLTOALL:
        *len = (size_t)o->n;
        return buf + (size_t)dst * o->n;
    case CHECK_SCATTERV:
    case CHECK_ALLTOALLV:
        *len = (size_t)o->scounts[dst];
        return buf + o->sdispls[dst];
    default:
        *len = 0;
        return NULL;
    }
}

static int rooted_sender(const op_t *o) {
    return (o->kind != CHECK_SCATTER && o->kind != CHECK_SCATTERV) || o->r == o->root;
}

/* Whether this rank passes MPI_IN_PLACE: the rooted kinds at the root alone. */
static int here_in_place(const op_t *o) {
    if (!o->in_place) return 0;
    switch (o->kind) {
    case CHECK_REDUCE:
    case CHECK_GATHER:
    case CHECK_GATHERV:
    case CHECK_SCATTER:
        return o->r == o->root;
    default:
        return 1;
    }
}

/* Inputs of a call with the op's salt, and poisoned destinations. In place, the input lies
 * where MPI says it does: the whole receive buffer (the reductions, alltoall), this rank's block
 * of it (gather at the root, allgather(v)); scatter's root keeps its blocks in its send buffer
 * and receives nothing. */
static void prepare(op_t *o) {
    for (size_t i = 0; i < o->recv_elems; i++) o->recv[i] = POISON;
    if (o->kind == CHECK_BCAST) {
        if (o->r == o->root)
            for (size_t i = 0; i < o->recv_elems; i++) o->recv[i] = val(o->root, i, o->salt);
        return;
    }
    double *in = here_in_place(o) ? o->recv : o->send;
    switch (o->kind) {
    case CHECK_SCATTER:
    case CHECK_SCATTERV:
    case CHECK_ALLTOALL:
    case CHECK_ALLTOALLV:
        if (!rooted_sender(o)) break;
        if (o->kind == CHECK_SCATTER) in = o->send;
        for (int q = 0; q < o->p; q++) {
            size_t len = 0;
            double *block = send_block(o, in, q, &len);
            for (size_t i = 0; i < len; i++) block[i] = sent(o, q, i);
        }
        break;
    case CHECK_ALLGATHER:
    case CHECK_GATHER:
        if (here_in_place(o)) in = o->recv + (size_t)o->r * o->n;
        for (int i = 0; i < o->n; i++) in[i] = sent(o, 0, (size_t)i);
        break;
    case CHECK_ALLGATHERV:
    case CHECK_GATHERV:
        if (here_in_place(o)) in = o->recv + o->rdispls[o->r];
        for (int i = 0; i < o->rcounts[o->r]; i++) in[i] = sent(o, 0, (size_t)i);
        break;
    default:
        for (size_t i = 0; i < o->send_elems; i++) in[i] = sent(o, 0, i);
        break;
    }
}

static int expect(const op_t *o, size_t at, double want, const char *what) {
    return CHECK(o->recv[at] == want,
                 "thread %d call %ld: %s %s on %d ranks, n %d, root %d%s: %s [%zu] = %g, expected "
                 "%g",
                 o->thread, o->call, form_names[o->form], check_coll_name(o->kind), o->p, o->n,
                 o->root, o->in_place ? ", in place" : "", what, at, o->recv[at], want);
}

/* Element i of the sum over ranks lo..hi-1 of their inputs at `base`. */
static double sum(const op_t *o, int lo, int hi, size_t base, size_t i) {
    double s = 0;
    for (int q = lo; q < hi; q++) s += val(q, base + i, o->salt);
    return s;
}

/* The blocks received from every rank, at `displs` (or every n), and the gaps between them. */
static void verify_blocks(const op_t *o, const int *counts, const int *displs) {
    for (int q = 0; q < o->p; q++) {
        const size_t len = counts ? (size_t)counts[q] : (size_t)o->n;
        const size_t at = displs ? (size_t)displs[q] : (size_t)q * o->n;
        for (size_t i = 0; i < len; i++)
            if (!expect(o, at + i, received(o, q, i), "block")) return;
        if (displs && !expect(o, at + len, POISON, "gap")) return;
    }
}

static void verify(const op_t *o) {
    const int p = o->p, r = o->r;
    switch (o->kind) {
    case CHECK_BARRIER:
        break;
    case CHECK_BCAST:
        for (size_t i = 0; i < o->recv_elems; i++)
            if (!expect(o, i, val(o->root, i, o->salt), "element")) return;
        break;
    case CHECK_REDUCE:
        if (r != o->root) break;
        /* fall through */
    case CHECK_ALLREDUCE:
        for (size_t i = 0; i < o->recv_elems; i++)
            if (!expect(o, i, sum(o, 0, p, 0, i), "sum")) return;
        break;
    case CHECK_SCAN:
    case CHECK_EXSCAN:
        if (o->kind == CHECK_EXSCAN && r == 0) break; /* undefined there */
        for (size_t i = 0; i < o->recv_elems; i++)
            if (!expect(o, i, sum(o, 0, o->kind == CHECK_SCAN ? r + 1 : r, 0, i), "prefix")) return;
        break;
    case CHECK_REDUCE_SCATTER_BLOCK:
        for (int i = 0; i < o->n; i++)
            if (!expect(o, (size_t)i, sum(o, 0, p, (size_t)r * o->n, (size_t)i), "share")) return;
        break;
    case CHECK_REDUCE_SCATTER: {
        size_t base = 0;
        for (int q = 0; q < r; q++) base += (size_t)o->rcounts[q];
        for (size_t i = 0; i < o->recv_elems; i++)
            if (!expect(o, i, sum(o, 0, p, base, i), "share")) return;
        break;
    }
    case CHECK_GATHER:
    case CHECK_GATHERV:
        if (r != o->root) break;
        /* fall through */
    case CHECK_ALLGATHER:
    case CHECK_ALLGATHERV:
        if (o->kind == CHECK_ALLGATHER || o->kind == CHECK_GATHER)
            verify_blocks(o, NULL, NULL);
        else
            verify_blocks(o, o->rcounts, o->rdispls);
        break;
    case CHECK_SCATTER:
    case CHECK_SCATTERV:
        if (here_in_place(o)) break; /* the root's block stays in its send buffer */
        for (size_t i = 0; i < o->recv_elems; i++)
            if (!expect(o, i, received(o, o->root, i), "block")) return;
        break;
    case CHECK_ALLTOALL:
        verify_blocks(o, NULL, NULL);
        break;
    case CHECK_ALLTOALLV:
        verify_blocks(o, o->rcounts, o->rdispls);
        break;
    case CHECK_COLL_COUNT:
        break;
    }
}

/* Starts (NONBLOCKING, PERSISTENT: creates) or makes (BLOCKING) the call. */
static int issue(op_t *o) {
    const void *sb = o->in_place ? MPI_IN_PLACE : o->send;
    void *rb = o->recv;
    const MPI_Datatype d = MPI_DOUBLE;
    const MPI_Comm c = o->comm;
    const int n = o->n, root = o->root;
    MPI_Request *q = &o->request;
    const enum form f = o->form;
#define FORMS(args, blocking, nonblocking, persistent)                                             \
    (f == BLOCKING      ? blocking args                                                            \
     : f == NONBLOCKING ? nonblocking(SHMCOLL_TEST_UNPAREN args, q)                                \
                        : persistent(SHMCOLL_TEST_UNPAREN args, MPI_INFO_NULL, q))
#define SHMCOLL_TEST_UNPAREN(...) __VA_ARGS__
    switch (o->kind) {
    case CHECK_BARRIER:
        return FORMS((c), MPI_Barrier, MPI_Ibarrier, MPI_Barrier_init);
    case CHECK_BCAST:
        return FORMS((rb, n, d, root, c), MPI_Bcast, MPI_Ibcast, MPI_Bcast_init);
    case CHECK_REDUCE:
        if (o->in_place && o->r != root) sb = o->send; /* in place only at the root */
        return FORMS((sb, rb, n, d, MPI_SUM, root, c), MPI_Reduce, MPI_Ireduce, MPI_Reduce_init);
    case CHECK_ALLREDUCE:
        return FORMS((sb, rb, n, d, MPI_SUM, c), MPI_Allreduce, MPI_Iallreduce, MPI_Allreduce_init);
    case CHECK_SCAN:
        return FORMS((sb, rb, n, d, MPI_SUM, c), MPI_Scan, MPI_Iscan, MPI_Scan_init);
    case CHECK_EXSCAN:
        return FORMS((sb, rb, n, d, MPI_SUM, c), MPI_Exscan, MPI_Iexscan, MPI_Exscan_init);
    case CHECK_REDUCE_SCATTER_BLOCK:
        return FORMS((sb, rb, n, d, MPI_SUM, c), MPI_Reduce_scatter_block,
                     MPI_Ireduce_scatter_block, MPI_Reduce_scatter_block_init);
    case CHECK_REDUCE_SCATTER:
        return FORMS((sb, rb, o->rcounts, d, MPI_SUM, c), MPI_Reduce_scatter, MPI_Ireduce_scatter,
                     MPI_Reduce_scatter_init);
    case CHECK_ALLGATHER:
        return FORMS((sb, n, d, rb, n, d, c), MPI_Allgather, MPI_Iallgather, MPI_Allgather_init);
    case CHECK_ALLGATHERV:
        return FORMS((sb, o->rcounts[o->r], d, rb, o->rcounts, o->rdispls, d, c), MPI_Allgatherv,
                     MPI_Iallgatherv, MPI_Allgatherv_init);
    case CHECK_GATHER:
        if (o->in_place && o->r != root) sb = o->send;
        return FORMS((sb, n, d, rb, n, d, root, c), MPI_Gather, MPI_Igather, MPI_Gather_init);
    case CHECK_GATHERV:
        if (o->in_place && o->r != root) sb = o->send;
        return FORMS((sb, o->rcounts[o->r], d, rb, o->rcounts, o->rdispls, d, root, c), MPI_Gatherv,
                     MPI_Igatherv, MPI_Gatherv_init);
    case CHECK_SCATTER: {
        void *to = o->in_place && o->r == root ? MPI_IN_PLACE : rb;
        return FORMS((o->send, n, d, to, n, d, root, c), MPI_Scatter, MPI_Iscatter,
                     MPI_Scatter_init);
    }
    case CHECK_SCATTERV:
        return FORMS((o->send, o->scounts, o->sdispls, d, rb, o->scounts[o->r], d, root, c),
                     MPI_Scatterv, MPI_Iscatterv, MPI_Scatterv_init);
    case CHECK_ALLTOALL:
        return FORMS((sb, n, d, rb, n, d, c), MPI_Alltoall, MPI_Ialltoall, MPI_Alltoall_init);
    case CHECK_ALLTOALLV:
        return FORMS((o->send, o->scounts, o->sdispls, d, rb, o->rcounts, o->rdispls, d, c),
                     MPI_Alltoallv, MPI_Ialltoallv, MPI_Alltoallv_init);
    case CHECK_COLL_COUNT:
        break;
    }
#undef FORMS
    return MPI_ERR_OTHER;
}

/* MPI allows MPI_IN_PLACE for these (at the root alone for the rooted ones); a reduce in place at
 * a root other than 0 too, which MPICH before 4.1.2 cannot do itself from 512 doubles on
 * (src/mpi/library_faults.h): shmcoll gives it a copy. */
static int in_place_allowed(check_coll_t k) {
    return k == CHECK_REDUCE || k == CHECK_ALLREDUCE || k == CHECK_SCAN || k == CHECK_EXSCAN ||
           k == CHECK_REDUCE_SCATTER_BLOCK || k == CHECK_ALLGATHER || k == CHECK_ALLGATHERV ||
           k == CHECK_GATHER || k == CHECK_GATHERV || k == CHECK_SCATTER || k == CHECK_ALLTOALL;
}

typedef struct stream {
    MPI_Comm comms[COMMS];
    rng_t program; /* the same on every rank */
    rng_t local;   /* this rank's own: waits' order, pauses */
    int thread;
    long calls, by_form[3];
} stream_t;

/* The elements per block so that the call's largest buffer on `p` ranks stays within max_bytes:
 * log-uniform from 0 to that, in the same number of draws whatever it is. */
static int draw_count(stream_t *s, check_coll_t k, int p) {
    const long blocks = k == CHECK_BCAST || k == CHECK_REDUCE || k == CHECK_ALLREDUCE ||
                                k == CHECK_SCAN || k == CHECK_EXSCAN
                            ? 1
                            : 2L * p; /* the v-variants' slack and gaps */
    long most = max_bytes / (long)sizeof(double) / blocks - SLACK;
    if (most < 1) most = 1;
    int bits = 0;
    while ((1L << (bits + 1)) <= most) bits++;
    const int e = (int)below(&s->program, (uint32_t)bits + 2); /* 0: empty */
    const uint32_t within = draw(&s->program);
    if (!e) return 0;
    const long lo = 1L << (e - 1);
    const long n = lo + (long)(within % (uint32_t)lo);
    return (int)(n < most ? n : most);
}

/* A run of the same call: long for small calls (the measurement and the loop check need hundreds
 * of calls in a row), short for large ones; `bytes` alike on every rank. */
static int draw_run(stream_t *s, size_t bytes) {
    if (below(&s->program, 3)) return 1 + (int)below(&s->program, 3);
    const int most = bytes <= 4096 ? 600 : bytes <= (64 << 10) ? 60 : 8;
    return 1 + (int)below(&s->program, (uint32_t)most);
}

static void op_make(stream_t *s, op_t *o, enum form f) {
    memset(o, 0, sizeof *o);
    o->kind = kinds[below(&s->program, KINDS)];
    o->form = f;
    o->comm = s->comms[below(&s->program, COMMS)];
    MPI_Comm_size(o->comm, &o->p);
    MPI_Comm_rank(o->comm, &o->r);
    /* Drawn alike on every rank, whatever the size of its part of a split: the same number of
     * draws everywhere keeps the program the same. */
    o->root = (int)(draw(&s->program) % (uint32_t)o->p);
    o->n = draw_count(s, o->kind, check_size);
    o->in_place = below(&s->program, 4) == 0 && in_place_allowed(o->kind);
    o->shape = (int)below(&s->program, 1 << 20);
    o->salt = (int)below(&s->program, 1 << 20);
    o->thread = s->thread;
    lay_out(o);
    /* room for every shape of the same n (the counts change in place) */
    const size_t room = (size_t)o->p * (size_t)(o->n + SLACK + 1) + 1;
    o->send = check_alloc(room * sizeof(double));
    o->recv = check_alloc(room * sizeof(double));
}

static void op_free(op_t *o) {
    free(o->send);
    free(o->recv);
}

/* --handoff: the threads that make the program's MPI calls, one at a time, each call given to
 * the thread `baton.to` (-1: the main thread's again), which makes it holding the lock. */
#define MAX_HANDOFF 8
static int handoff_threads;
typedef int (*op_fn)(op_t *);
static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    op_fn fn;
    op_t *op;
    int to, rc, quit;
} baton = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL, -1, 0, 0};

static void *handoff_worker(void *arg) {
    const int me = (int)(intptr_t)arg;
    pthread_mutex_lock(&baton.lock);
    for (;;) {
        while (baton.to != me && !baton.quit) pthread_cond_wait(&baton.cond, &baton.lock);
        if (baton.to != me) break;
        baton.rc = baton.fn(baton.op);
        baton.to = -1;
        pthread_cond_broadcast(&baton.cond);
    }
    pthread_mutex_unlock(&baton.lock);
    return NULL;
}

/* fn(o) made by a thread this rank draws (the main one among them), the caller waiting; by the
 * caller itself without --handoff. */
static int on_some_thread(stream_t *s, op_fn fn, op_t *o) {
    if (!handoff_threads) return fn(o);
    const int to = (int)below(&s->local, (uint32_t)handoff_threads + 1);
    if (to == handoff_threads) return fn(o); /* the main thread's turn */
    pthread_mutex_lock(&baton.lock);
    baton.fn = fn;
    baton.op = o;
    baton.to = to;
    pthread_cond_broadcast(&baton.cond);
    while (baton.to != -1) pthread_cond_wait(&baton.cond, &baton.lock);
    const int rc = baton.rc;
    pthread_mutex_unlock(&baton.lock);
    return rc;
}

static int wait_op(op_t *o) {
    return MPI_Wait(&o->request, MPI_STATUS_IGNORE);
}

static int start_op(op_t *o) {
    return MPI_Start(&o->request);
}

static int free_op(op_t *o) {
    return MPI_Request_free(&o->request);
}

static void complete(stream_t *s, op_t *o) {
    CHECK(on_some_thread(s, wait_op, o) == MPI_SUCCESS, "thread %d: %s wait failed", s->thread,
          check_coll_name(o->kind));
    verify(o);
}

/* One call of the op (a run's k-th): new values now and then, and for the v-variants now and then
 * new counts in the same arrays. */
static void op_call(stream_t *s, op_t *o, int k) {
    if (k > 0 && below(&s->program, 2)) o->salt++;
    if (k > 0 && o->form != PERSISTENT && below(&s->program, 16) == 0) { /* bound at init */
        o->shape++;
        lay_out(o);
    }
    o->call = s->calls++;
    prepare(o);
    if (o->form == PERSISTENT) {
        CHECK(on_some_thread(s, start_op, o) == MPI_SUCCESS, "start failed");
        complete(s, o);
        return;
    }
    CHECK(on_some_thread(s, issue, o) == MPI_SUCCESS, "thread %d call %ld: %s %s failed", s->thread,
          o->call, form_names[o->form], check_coll_name(o->kind));
    if (o->form == NONBLOCKING)
        complete(s, o);
    else
        verify(o);
}

/* How a rank completes a batch's non-blocking calls (complete_batch). */
enum completion { ONE_BY_ONE, WAITALL, WAITANY, WAITSOME, TESTALL, TESTANY, TESTSOME, COMPLETIONS };

/* Completes the array `requests` of n by the way `how`, whatever it holds (shmcoll's operations,
 * the MPI library's requests); `done[i]` set for each as it completes (a call of an -any or -some
 * form may complete several over its turns). */
static void complete_array(enum completion how, MPI_Request *requests, int n, char *done) {
    MPI_Status statuses[BATCH + 2];
    int indices[BATCH + 2], left = n, flag = 0, count = 0, index = 0;
    while (left > 0) {
        int rc = MPI_SUCCESS;
        switch (how) {
        case WAITALL:
        case TESTALL:
            rc = how == WAITALL ? MPI_Waitall(n, requests, statuses)
                                : MPI_Testall(n, requests, &flag, statuses);
            count = how == WAITALL || flag ? n : 0; /* all of them or none */
            for (int i = 0; i < count; i++) indices[i] = i;
            break;
        case WAITANY:
        case TESTANY:
            rc = how == WAITANY ? MPI_Waitany(n, requests, &index, statuses)
                                : MPI_Testany(n, requests, &index, &flag, statuses);
            count = how == WAITANY || flag ? 1 : 0;
            if (count && index == MPI_UNDEFINED) count = MPI_UNDEFINED; /* none active */
            indices[0] = index;
            break;
        default:
            rc = how == WAITSOME ? MPI_Waitsome(n, requests, &count, indices, statuses)
                                 : MPI_Testsome(n, requests, &count, indices, statuses);
        }
        CHECK(rc == MPI_SUCCESS, "completion %d failed: %d", (int)how, rc);
        CHECK(count != MPI_UNDEFINED, "completion %d found no active request, %d left", (int)how,
              left);
        if (rc != MPI_SUCCESS || count == MPI_UNDEFINED) return;
        for (int k = 0; k < count; k++) {
            CHECK(!done[indices[k]], "completion %d reported request %d twice", (int)how,
                  indices[k]);
            CHECK(requests[indices[k]] == MPI_REQUEST_NULL, "request %d not freed", indices[k]);
            done[indices[k]] = 1;
            left--;
        }
    }
}

/* The batch's pending non-blocking calls completed in this rank's own way: one by one in its own
 * order (MPI_Wait, through the thread whose turn it is where calls are handed off), or at once
 * through an array call, now and then with a ring exchange of point-to-point messages on the
 * stream's first communicator among them (the MPI library's requests beside shmcoll's). */
static void complete_batch(stream_t *s, op_t *ops, int *pending, int npending) {
    const int exchange = npending > 0 && s->calls % 2 == 0; /* alike on every rank */
    const enum completion how = (enum completion)below(&s->local, COMPLETIONS);
    if (how == ONE_BY_ONE && !exchange) {
        for (int left = npending; left > 0; left--) { /* this rank's order */
            const int j = (int)below(&s->local, (uint32_t)left);
            complete(s, &ops[pending[j]]);
            pending[j] = pending[left - 1];
        }
        return;
    }
    MPI_Request requests[BATCH + 2];
    char done[BATCH + 2] = {0};
    int n = 0, rank = 0, size = 1;
    for (int i = 0; i < npending && n < BATCH; i++) requests[n++] = ops[pending[i]].request;
    long out = 0, in = -1;
    if (exchange) {
        MPI_Comm_rank(s->comms[0], &rank);
        MPI_Comm_size(s->comms[0], &size);
        out = s->calls * 1000 + rank;
        MPI_Irecv(&in, 1, MPI_LONG, (rank + size - 1) % size, 77, s->comms[0], &requests[n++]);
        MPI_Isend(&out, 1, MPI_LONG, (rank + 1) % size, 77, s->comms[0], &requests[n++]);
    }
    complete_array(how == ONE_BY_ONE ? WAITALL : how, requests, n, done);
    for (int i = 0; i < npending; i++) {
        ops[pending[i]].request = requests[i];
        if (done[i]) verify(&ops[pending[i]]);
    }
    if (exchange)
        CHECK(in == s->calls * 1000 + (rank + size - 1) % size,
              "thread %d: the ring exchange got %ld", s->thread, in);
}

/* A batch: up to BATCH non-blocking calls started, blocking runs (and persistent ones) between
 * them, then the non-blocking ones completed in this rank's own order. */
static void batch(stream_t *s) {
    op_t ops[BATCH + 1];
    int pending[BATCH], npending = 0;
    const int nops = 1 + (int)below(&s->program, BATCH + 1);
    for (int i = 0; i < nops; i++) {
        const uint32_t f = below(&s->program, 10);
        op_t *o = &ops[i];
        op_make(s, o, f < 6 ? BLOCKING : f < 9 ? NONBLOCKING : PERSISTENT);
        s->by_form[o->form]++;
        if (o->form == NONBLOCKING && npending < BATCH) {
            o->call = s->calls++;
            prepare(o);
            CHECK(on_some_thread(s, issue, o) == MPI_SUCCESS, "%s start failed",
                  check_coll_name(o->kind));
            pending[npending++] = i;
            continue;
        }
        if (o->form == NONBLOCKING) o->form = BLOCKING;
        if (o->form == PERSISTENT)
            CHECK(on_some_thread(s, issue, o) == MPI_SUCCESS, "%s init failed",
                  check_coll_name(o->kind));
        const int run = draw_run(s, (size_t)o->n * sizeof(double) * (size_t)check_size);
        for (int k = 0; k < run; k++) op_call(s, o, k);
        if (o->form == PERSISTENT) on_some_thread(s, free_op, o);
        if (below(&s->local, 40) == 0) usleep(below(&s->local, 2000)); /* skew */
    }
    complete_batch(s, ops, pending, npending);
    for (int i = 0; i < nops; i++) op_free(&ops[i]);
}

static void *stream_run(void *arg) {
    stream_t *s = arg;
    while (s->calls < total_calls) {
        batch(s);
        if (below(&s->program, 60) == 0) { /* a communicator made again */
            const int k = 1 + (int)below(&s->program, COMMS - 1);
            MPI_Comm fresh;
            MPI_Comm_dup(s->comms[k], &fresh);
            MPI_Comm_free(&s->comms[k]);
            s->comms[k] = fresh;
        }
    }
    return NULL;
}

static void stream_open(stream_t *s, int thread) {
    memset(s, 0, sizeof *s);
    s->thread = thread;
    s->program.s = 0x9E3779B97F4A7C15ull * (seed + 1) + (uint64_t)thread * 7919;
    s->local.s = s->program.s ^ (0xD1B54A32D192ED03ull * (uint64_t)(check_rank + 1));
    s->comms[0] = MPI_COMM_WORLD;
    MPI_Comm_dup(MPI_COMM_WORLD, &s->comms[1]);
    MPI_Comm_split(MPI_COMM_WORLD, check_rank % 2, check_rank, &s->comms[2]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, check_size - check_rank, &s->comms[3]); /* reversed */
    if (thread) MPI_Comm_dup(MPI_COMM_WORLD, &s->comms[0]); /* the world is the main thread's */
}

static void stream_close(stream_t *s) {
    for (int k = 0; k < COMMS; k++)
        if (s->comms[k] != MPI_COMM_WORLD) MPI_Comm_free(&s->comms[k]);
}

int main(int argc, char **argv) {
    int threads = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--calls"))
            total_calls = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed"))
            seed = (unsigned)atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--max-bytes"))
            max_bytes = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads"))
            threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--handoff"))
            handoff_threads = atoi(argv[i + 1]);
    }
    if (handoff_threads > 0) threads = 1; /* one program, its calls handed around */
    const int provided = check_init_thread(&argc, &argv,
                                           threads > 1           ? MPI_THREAD_MULTIPLE
                                           : handoff_threads > 0 ? MPI_THREAD_SERIALIZED
                                                                 : MPI_THREAD_SINGLE);
    if (check_size > MAX_RANKS) {
        if (check_rank == 0) fprintf(stderr, "test_fuzz: at most %d ranks\n", MAX_RANKS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (threads > 1 && provided < MPI_THREAD_MULTIPLE) threads = 1;
    if (handoff_threads > 0 && provided < MPI_THREAD_SERIALIZED) handoff_threads = 0;
    pthread_t workers[MAX_HANDOFF];
    if (handoff_threads > MAX_HANDOFF) handoff_threads = MAX_HANDOFF;
    for (int w = 0; w < handoff_threads; w++)
        if (pthread_create(&workers[w], NULL, handoff_worker, (void *)(intptr_t)w)) {
            CHECK(0, "no thread for the handoff");
            handoff_threads = w;
        }
    stream_t streams[2];
    for (int t = 0; t < threads && t < 2; t++) stream_open(&streams[t], t);
    pthread_t second;
    const int two = threads > 1 && pthread_create(&second, NULL, stream_run, &streams[1]) == 0;
    stream_run(&streams[0]);
    if (two) pthread_join(second, NULL);
    pthread_mutex_lock(&baton.lock);
    baton.quit = 1;
    pthread_cond_broadcast(&baton.cond);
    pthread_mutex_unlock(&baton.lock);
    for (int w = 0; w < handoff_threads; w++) pthread_join(workers[w], NULL);
    for (int t = 0; t < (two ? 2 : 1); t++) {
        if (check_rank == 0)
            printf("fuzz: thread %d: %ld calls (%ld blocking, %ld non-blocking, %ld persistent "
                   "runs), seed %u, up to %ld bytes, handed to %d threads\n",
                   t, streams[t].calls, streams[t].by_form[BLOCKING],
                   streams[t].by_form[NONBLOCKING], streams[t].by_form[PERSISTENT], seed, max_bytes,
                   handoff_threads);
        stream_close(&streams[t]);
    }
    return check_finish("fuzz");
}
