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
 *     barrier) at sizes from 8 B to 1 MiB, each repeated REPEAT times per size on a communicator
 *     (past SHMCOLL_COLLS_THRESHOLD, through the calibration's turns of four calls), roots moving;
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

enum coll { ALLREDUCE, BCAST, ALLTOALL, ALLGATHER, REDUCE, GATHER, SCATTER, BARRIER, COLLS };
static const char *const coll_names[COLLS] = {"allreduce", "bcast",  "alltoall", "allgather",
                                              "reduce",    "gather", "scatter",  "barrier"};

typedef struct bufs {
    size_t bytes;    /* the message */
    size_t capacity; /* each buffer: the message, at least a block of one int per rank */
    int *send, *recv;
    int heap; /* from MPI_Alloc_mem */
} bufs_t;

/* Input element i of `rank` for salt s. */
static int val(int rank, size_t i, int s) {
    return (int)(check_hash(rank, i, s) % 100000);
}

static void bufs_make(bufs_t *b, size_t bytes) {
    b->bytes = bytes;
    b->capacity = bytes > check_size * sizeof(int) ? bytes : check_size * sizeof(int);
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
} call_t;

static void call_make(call_t *c, enum coll coll, MPI_Comm comm, size_t bytes, int salt) {
    c->coll = coll, c->comm = comm, c->salt = salt;
    MPI_Comm_size(comm, &c->size);
    MPI_Comm_rank(comm, &c->rank);
    c->root = salt % c->size;
    const int ints = (int)(bytes / sizeof(int));
    const int blocked = coll == ALLTOALL || coll == ALLGATHER || coll == GATHER || coll == SCATTER;
    c->count = blocked ? (ints / c->size > 0 ? ints / c->size : 1) : ints;
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
    default:
        MPI_Ibarrier(comm, req);
    }
}

/* The received values against the ones computed here; returns 0 at the first wrong one. */
static int call_check(const call_t *c, const bufs_t *b, const char *form) {
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
            if (!call_check(&c, b, "blocking")) return;
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
        for (int coll = 0; coll < COLLS; coll++) call_check(&c[coll], &each[coll], "non-blocking");
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
