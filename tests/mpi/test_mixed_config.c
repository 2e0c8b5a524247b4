/* Ranks configured differently: the same program, every rank with its own environment (an MPMD
 * launch, or nodes set up differently), must complete with right results.
 *
 * shmcoll decides per call which way serves a collective — its own algorithm (which one), the
 * MPI library's, shared heap or copies, a hierarchy, virtual nodes — from knobs each process reads
 * from its environment. Ranks that decide differently would wait in different protocols for each
 * other: every knob that decides a path must be agreed per communicator (or per job), and where
 * ranks differ the MPI library serves. The tests register one run per knob in which some ranks
 * (rank 0, or the last) have a value that changes a path and the others do not; this program
 * gives every path those knobs steer a chance to differ:
 *   - the blocking collectives (allreduce, bcast, alltoall, allgather, reduce, gather, scatter,
 *     the v-variants gatherv, scatterv, allgatherv and alltoallv, barrier) at sizes from 8 B to
 *     1 MiB, each repeated REPEAT times per size on a communicator (past SHMCOLL_COLLS_THRESHOLD,
 *     through the calibration's turns of four calls), roots moving; the v-variants' blocks differ
 *     from rank to rank (some empty) and lie in reverse rank order with a gap after each, which
 *     must stay untouched, and their key (the ranks' mean share) is agreed among the ranks;
 *   - their non-blocking forms, all in flight at once, and a persistent allreduce;
 *   - on MPI_COMM_WORLD and on two duplicates;
 *   - buffers of 64 KiB and more from MPI_Alloc_mem (the shared heap's paths), smaller ones from
 *     malloc.
 * Every result is checked against values computed locally. */
#include "mpi_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Open MPI 4 has the persistent collectives as an extension, named MPIX_*_init. */
#if MPI_VERSION < 4 && defined(OPEN_MPI)
#include <mpi-ext.h>
#define MPI_Allreduce_init MPIX_Allreduce_init
#endif

#define NB_ROUND 3 /* rounds of the non-blocking ones per size and communicator */
#define HEAP_MIN (64 * 1024)

enum coll {
    ALLREDUCE,
    BCAST,
    ALLTOALL,
    ALLGATHER,
    REDUCE,
    GATHER,
    SCATTER,
    GATHERV,
    SCATTERV,
    ALLGATHERV,
    ALLTOALLV,
    BARRIER,
    COLLS
};
static const char *const coll_names[COLLS] = {"allreduce", "bcast",      "alltoall",  "allgather",
                                              "reduce",    "gather",     "scatter",   "gatherv",
                                              "scatterv",  "allgatherv", "alltoallv", "barrier"};

typedef struct bufs {
    size_t bytes;    /* the message */
    size_t capacity; /* each buffer: the message and two ints per rank (v-variants, see vblock) */
    int *send, *recv;
    int heap; /* from MPI_Alloc_mem */
} bufs_t;

/* Input element i of `rank` for salt s. */
static int val(int rank, size_t i, int s) {
    return (int)(check_hash(rank, i, s) % 100000);
}

static void bufs_make(bufs_t *b, size_t bytes) {
    b->bytes = bytes;
    b->capacity = bytes + 2 * (size_t)check_size * sizeof(int);
    b->heap = bytes >= HEAP_MIN;
    if (b->heap) {
        MPI_Alloc_mem((MPI_Aint)b->capacity, MPI_INFO_NULL, &b->send);
        MPI_Alloc_mem((MPI_Aint)b->capacity, MPI_INFO_NULL, &b->recv);
    } else {
        b->send = check_alloc(b->capacity), b->recv = check_alloc(b->capacity);
    }
}

static void bufs_free(bufs_t *b) {
    if (b->heap) {
        MPI_Free_mem(b->send);
        MPI_Free_mem(b->recv);
    } else {
        free(b->send), free(b->recv);
    }
}

/* One operation: its counts (in ints) for a message of `bytes` on `size` ranks, salt, root. */
typedef struct call {
    enum coll coll;
    MPI_Comm comm;
    int size, rank, root, salt;
    int count; /* allreduce, bcast, reduce: the vector; the others: the block of one rank */
    /* The v-variants' counts and displacements (in ints) of this rank's send and receive side,
     * per rank; NULL for the others. */
    int *scounts, *sdispls, *rcounts, *rdispls;
} call_t;

/* The v-variants' blocks: rank q's block of gatherv, scatterv and allgatherv has vblock(c, q)
 * ints, alltoallv's block from rank `from` to rank `to` vpair(c, from, to): the block of the
 * collective's even form, one less, or one more, so that some are empty where that one has one
 * int. */
static int vblock(const call_t *c, int q) {
    return c->count + q % 3 - 1;
}
static int vpair(const call_t *c, int from, int to) {
    return c->count + (from + 2 * to) % 3 - 1;
}

/* Where alltoallv's sender `from` puts its block for `to`: in rank order, a gap of one int after
 * each block. */
static int vpair_sdispl(const call_t *c, int from, int to) {
    int at = 0;
    for (int q = 0; q < to; q++) at += vpair(c, from, q) + 1;
    return at;
}

/* The displacements of `counts` laid out in reverse rank order, a gap of one int after each
 * block: the ranks' blocks in an order of their own, and the gaps must stay untouched. */
static void reverse_displs(int p, const int *counts, int *displs) {
    int at = 0;
    for (int q = p - 1; q >= 0; q--) displs[q] = at, at += counts[q] + 1;
}

static void call_make(call_t *c, enum coll coll, MPI_Comm comm, size_t bytes, int salt) {
    c->coll = coll, c->comm = comm, c->salt = salt;
    MPI_Comm_size(comm, &c->size);
    MPI_Comm_rank(comm, &c->rank);
    c->root = salt % c->size;
    const int ints = (int)(bytes / sizeof(int));
    const int blocked = coll != ALLREDUCE && coll != BCAST && coll != REDUCE && coll != BARRIER;
    c->count = blocked ? (ints / c->size > 0 ? ints / c->size : 1) : ints;
    c->scounts = c->sdispls = c->rcounts = c->rdispls = NULL;
    if (coll < GATHERV || coll > ALLTOALLV) return;
    const int p = c->size, me = c->rank;
    c->scounts = check_alloc(4 * (size_t)p * sizeof(int));
    c->sdispls = c->scounts + p, c->rcounts = c->scounts + 2 * p, c->rdispls = c->scounts + 3 * p;
    for (int q = 0; q < p; q++) {
        c->scounts[q] = coll == ALLTOALLV ? vpair(c, me, q) : vblock(c, coll == SCATTERV ? q : me);
        c->rcounts[q] = coll == ALLTOALLV ? vpair(c, q, me) : vblock(c, coll == SCATTERV ? me : q);
        c->sdispls[q] = coll == ALLTOALLV ? vpair_sdispl(c, me, q) : 0;
    }
    if (coll == SCATTERV) reverse_displs(p, c->scounts, c->sdispls);
    reverse_displs(p, c->rcounts, c->rdispls);
}

static void call_free(call_t *c) {
    free(c->scounts);
}

/* Fills the send side (and bcast's buffer at its root) and clears the receive side. */
static void call_fill(const call_t *c, bufs_t *b) {
    const size_t n = b->capacity / sizeof(int);
    for (size_t i = 0; i < n; i++) b->send[i] = val(c->rank, i, c->salt), b->recv[i] = -1;
    if (c->coll == BCAST && c->rank == c->root) memcpy(b->recv, b->send, c->count * sizeof(int));
}

static void call_blocking(const call_t *c, bufs_t *b) {
    const int n = c->count, root = c->root;
    MPI_Comm comm = c->comm;
    switch (c->coll) {
    case ALLREDUCE:
        MPI_Allreduce(b->send, b->recv, n, MPI_INT, MPI_SUM, comm);
        break;
    case BCAST:
        MPI_Bcast(b->recv, n, MPI_INT, root, comm);
        break;
    case ALLTOALL:
        MPI_Alltoall(b->send, n, MPI_INT, b->recv, n, MPI_INT, comm);
        break;
    case ALLGATHER:
        MPI_Allgather(b->send, n, MPI_INT, b->recv, n, MPI_INT, comm);
        break;
    case REDUCE:
        MPI_Reduce(b->send, b->recv, n, MPI_INT, MPI_SUM, root, comm);
        break;
    case GATHER:
        MPI_Gather(b->send, n, MPI_INT, b->recv, n, MPI_INT, root, comm);
        break;
    case SCATTER:
        MPI_Scatter(b->send, n, MPI_INT, b->recv, n, MPI_INT, root, comm);
        break;
    case GATHERV:
        MPI_Gatherv(b->send, c->scounts[0], MPI_INT, b->recv, c->rcounts, c->rdispls, MPI_INT, root,
                    comm);
        break;
    case SCATTERV:
        MPI_Scatterv(b->send, c->scounts, c->sdispls, MPI_INT, b->recv, c->rcounts[0], MPI_INT,
                     root, comm);
        break;
    case ALLGATHERV:
        MPI_Allgatherv(b->send, c->scounts[0], MPI_INT, b->recv, c->rcounts, c->rdispls, MPI_INT,
                       comm);
        break;
    case ALLTOALLV:
        MPI_Alltoallv(b->send, c->scounts, c->sdispls, MPI_INT, b->recv, c->rcounts, c->rdispls,
                      MPI_INT, comm);
        break;
    default:
        MPI_Barrier(comm);
    }
}

static void call_start(const call_t *c, bufs_t *b, MPI_Request *req) {
    const int n = c->count, root = c->root;
    MPI_Comm comm = c->comm;
    switch (c->coll) {
    case ALLREDUCE:
        MPI_Iallreduce(b->send, b->recv, n, MPI_INT, MPI_SUM, comm, req);
        break;
    case BCAST:
        MPI_Ibcast(b->recv, n, MPI_INT, root, comm, req);
        break;
    case ALLTOALL:
        MPI_Ialltoall(b->send, n, MPI_INT, b->recv, n, MPI_INT, comm, req);
        break;
    case ALLGATHER:
        MPI_Iallgather(b->send, n, MPI_INT, b->recv, n, MPI_INT, comm, req);
        break;
    case REDUCE:
        MPI_Ireduce(b->send, b->recv, n, MPI_INT, MPI_SUM, root, comm, req);
        break;
    case GATHER:
        MPI_Igather(b->send, n, MPI_INT, b->recv, n, MPI_INT, root, comm, req);
        break;
    case SCATTER:
        MPI_Iscatter(b->send, n, MPI_INT, b->recv, n, MPI_INT, root, comm, req);
        break;
    case GATHERV:
        MPI_Igatherv(b->send, c->scounts[0], MPI_INT, b->recv, c->rcounts, c->rdispls, MPI_INT,
                     root, comm, req);
        break;
    case SCATTERV:
        MPI_Iscatterv(b->send, c->scounts, c->sdispls, MPI_INT, b->recv, c->rcounts[0], MPI_INT,
                      root, comm, req);
        break;
    case ALLGATHERV:
        MPI_Iallgatherv(b->send, c->scounts[0], MPI_INT, b->recv, c->rcounts, c->rdispls, MPI_INT,
                        comm, req);
        break;
    case ALLTOALLV:
        MPI_Ialltoallv(b->send, c->scounts, c->sdispls, MPI_INT, b->recv, c->rcounts, c->rdispls,
                       MPI_INT, comm, req);
        break;
    default:
        MPI_Ibarrier(comm, req);
    }
}

/* A v-variant's receive buffer against the values computed here, the gaps between its blocks
 * and the rest of the buffer untouched (-1); returns 0 at the first wrong value. */
static int vcall_check(const call_t *c, const bufs_t *b, const char *form) {
    const int p = c->size, me = c->rank, s = c->salt;
    const size_t n = b->capacity / sizeof(int);
    char *covered = check_alloc(n);
    memset(covered, 0, n);
    int right = 1;
    for (int q = 0; q < p && right; q++) {
        /* the block from rank q: where it lands, and where it comes from in q's send buffer */
        int displ = c->rdispls[q], count = c->rcounts[q], from = q, offset = 0;
        if (c->coll == GATHERV && me != c->root) break; /* receives nothing */
        if (c->coll == SCATTERV) {
            if (q != c->root) continue;
            /* the root's layout, which call_make gives every rank */
            displ = 0, count = c->rcounts[0], offset = c->sdispls[me];
        } else if (c->coll == ALLTOALLV) {
            offset = vpair_sdispl(c, q, me);
        }
        for (int j = 0; j < count && right; j++) {
            const int want = val(from, (size_t)(offset + j), s), got = b->recv[displ + j];
            covered[displ + j] = 1;
            right = CHECK(got == want,
                          "%s %s of %d ints a block, root %d, salt %d: [%d] of the block from "
                          "rank %d = %d, expected %d",
                          form, coll_names[c->coll], c->count, c->root, s, j, from, got, want);
        }
    }
    for (size_t k = 0; k < n && right; k++)
        right = covered[k] || CHECK(b->recv[k] == -1,
                                    "%s %s of %d ints a block, root %d, salt %d: [%zu] = %d "
                                    "outside every block, expected it untouched (-1)",
                                    form, coll_names[c->coll], c->count, c->root, s, k, b->recv[k]);
    free(covered);
    return right;
}

/* The received values against the ones computed here; returns 0 at the first wrong one. */
static int call_check(const call_t *c, const bufs_t *b, const char *form) {
    if (c->scounts) return vcall_check(c, b, form);
    const int n = c->count, p = c->size, me = c->rank, s = c->salt;
    long total = 0;
    switch (c->coll) {
    case ALLREDUCE:
    case BCAST:
    case SCATTER:
        total = n;
        break;
    case REDUCE:
        total = me == c->root ? n : 0;
        break;
    case GATHER:
        total = me == c->root ? (long)n * p : 0;
        break;
    case ALLTOALL:
    case ALLGATHER:
        total = (long)n * p;
        break;
    default:
        total = 0;
    }
    for (long i = 0; i < total; i++) {
        const int r = (int)(i / n), j = (int)(i % n);
        int want = 0;
        switch (c->coll) {
        case ALLREDUCE:
        case REDUCE:
            for (int q = 0; q < p; q++) want += val(q, (size_t)i, s);
            break;
        case BCAST:
            want = val(c->root, (size_t)i, s);
            break;
        case SCATTER:
            want = val(c->root, (size_t)me * n + i, s);
            break;
        case ALLTOALL:
            want = val(r, (size_t)me * n + j, s);
            break;
        default:
            want = val(r, (size_t)j, s); /* allgather, gather */
        }
        if (!CHECK(b->recv[i] == want,
                   "%s %s of %d ints, root %d, salt %d: [%ld] = %d, expected %d", form,
                   coll_names[c->coll], n, c->root, s, i, b->recv[i], want))
            return 0;
    }
    return 1;
}

/* Every collective `repeat` times at this size, blocking. */
static int repeat = 6; /* SHMCOLL_TEST_REPEAT */

static void blocking_round(MPI_Comm comm, bufs_t *b, int salt) {
    for (int coll = 0; coll < COLLS; coll++)
        for (int k = 0; k < repeat; k++) {
            call_t c;
            call_make(&c, (enum coll)coll, comm, b->bytes, salt + 13 * coll + k);
            call_fill(&c, b);
            call_blocking(&c, b);
            const int right = call_check(&c, b, "blocking");
            call_free(&c);
            if (!right) return;
        }
}

/* Every collective started at once (each with buffers of its own), completed with MPI_Waitall;
 * then a persistent allreduce started NB_ROUND times. */
static void nonblocking_round(MPI_Comm comm, bufs_t *each, int salt) {
    for (int round = 0; round < NB_ROUND; round++) {
        call_t c[COLLS];
        MPI_Request req[COLLS];
        MPI_Status status[COLLS];
        for (int coll = 0; coll < COLLS; coll++) {
            call_make(&c[coll], (enum coll)coll, comm, each[coll].bytes, salt + 7 * coll + round);
            call_fill(&c[coll], &each[coll]);
            call_start(&c[coll], &each[coll], &req[coll]);
        }
        MPI_Waitall(COLLS, req, status);
        for (int coll = 0; coll < COLLS; coll++) {
            call_check(&c[coll], &each[coll], "non-blocking");
            call_free(&c[coll]);
        }
    }
    call_t c;
    MPI_Request req;
    call_make(&c, ALLREDUCE, comm, each[0].bytes, salt);
    MPI_Allreduce_init(each[0].send, each[0].recv, c.count, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL,
                       &req);
    for (int round = 0; round < NB_ROUND; round++) {
        c.salt = salt + 100 + round;
        call_fill(&c, &each[0]);
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (!call_check(&c, &each[0], "persistent")) break;
    }
    MPI_Request_free(&req);
}

/* SHMCOLL_TEST_REPEAT (default 6: past the calibration's first turn of four calls) and
 * SHMCOLL_TEST_COMMS (1 to 3, default 3) make runs shorter where every call through the MPI
 * library is slow (an oversubscribed node). */
int main(int argc, char **argv) {
    check_init(&argc, &argv);
    const char *text = getenv("SHMCOLL_TEST_REPEAT");
    repeat = text ? atoi(text) : repeat;
    text = getenv("SHMCOLL_TEST_COMMS");
    const int ncomms = text && atoi(text) >= 1 && atoi(text) <= 3 ? atoi(text) : 3;
    const size_t sizes[] = {8, 256, 4096, 65536, 1 << 20};
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    MPI_Comm comms[3] = {MPI_COMM_WORLD, MPI_COMM_NULL, MPI_COMM_NULL};
    for (int k = 1; k < ncomms; k++) MPI_Comm_dup(MPI_COMM_WORLD, &comms[k]);
    for (int s = 0; s < nsizes; s++) {
        bufs_t each[COLLS];
        for (int coll = 0; coll < COLLS; coll++) bufs_make(&each[coll], sizes[s]);
        for (int k = 0; k < ncomms; k++) {
            const int salt = 1000 * s + 100 * k;
            blocking_round(comms[k], &each[0], salt);
            nonblocking_round(comms[k], each, salt);
        }
        for (int coll = 0; coll < COLLS; coll++) bufs_free(&each[coll]);
    }
    for (int k = 1; k < ncomms; k++) MPI_Comm_free(&comms[k]);
    return check_finish("test_mixed_config");
}
