/* Collectives on buffers from shmcoll's shared heap, under the MPI libraries.
 *
 * Where the buffers come from (SHMCOLL_TEST_BUFFERS):
 *   alloc_mem (default)  MPI_Alloc_mem on every rank
 *   malloc               malloc on every rank (the heap's with SHMCOLL_HEAP=malloc)
 *   mixed                MPI_Alloc_mem everywhere but on rank 0, which uses malloc
 * Every collective the heap rows serve runs at two sizes above SHMCOLL_HEAP_MIN, against local
 * references; the program tallies which calls must take the heap path ("expect: heap calls="):
 * all of them when every buffer lies in a heap, and with rank 0's outside only the rooted ones
 * whose root (the last rank) has its buffers in its heap. The DAV of the allreduces must be their
 * heap path's s(5p-5) each, below the movement-avoiding s(5p-1) (with SHMCOLL_TEST_HEAP_DAV=1).
 * Gatherv, scatterv and alltoallv run too (their single-copy rows map heap buffers themselves).
 * Every arena of the heap is a memory file, never a file of a file system. */
#include "mpi_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CMA_MAX ((size_t)1 << 20) /* SHMCOLL_CMA_MAX, as the tests run this program */

static int heap_buffers; /* 1: this rank's buffers come from a heap */

static void *buffer(size_t bytes) {
    const char *how = getenv("SHMCOLL_TEST_BUFFERS");
    void *p = NULL;
    if (!how || !strcmp(how, "alloc_mem") || (!strcmp(how, "mixed") && check_rank != 0)) {
        MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &p);
        return p;
    }
    return check_alloc(bytes);
}

static void release(void *p) {
    const char *how = getenv("SHMCOLL_TEST_BUFFERS");
    if (!how || !strcmp(how, "alloc_mem") || (!strcmp(how, "mixed") && check_rank != 0))
        MPI_Free_mem(p);
    else
        free(p);
}

static double value(int rank, size_t i) {
    return (double)(check_hash(rank, i, 3) % 2001) - 1000.0;
}

static unsigned char byte(int src, int dst, size_t i) {
    return (unsigned char)check_hash(src, i, 100 + dst);
}

/* Whether every rank's buffers lie in heaps, and whether rank `root`'s do. */
static int all_heap, root_heap;

/* Whether the ranks may map each other's heaps (pidfd_getfd, as the library probes it). */
static int heap_possible;

/* One call that must take the heap path when its buffers (the root's: `rooted`) lie in heaps and
 * `row`: the heap row is the one that serves it (allgather and alltoall blocks up to
 * SHMCOLL_CMA_MAX take their single-copy rows, which map heap buffers by themselves). */
static void expect_heap(int rooted, int row) {
    check_expect_heap(MPI_COMM_WORLD,
                      heap_possible && check_size > 1 && row && (rooted ? root_heap : all_heap));
}

static void reductions(size_t n) {
    const int p = check_size, me = check_rank, root = p - 1;
    double *send = buffer(n * 8), *recv = buffer(n * 8), *want = check_alloc(n * 8);
    for (size_t i = 0; i < n; i++) {
        send[i] = value(me, i);
        want[i] = 0;
        for (int r = 0; r < p; r++) want[i] += value(r, i);
    }
    MPI_Allreduce(send, recv, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    check_expect(CHECK_ALLREDUCE, MPI_COMM_WORLD, 1, (MPI_Count)n, MPI_DOUBLE);
    expect_heap(0, 1);
    CHECK(!memcmp(recv, want, n * 8), "allreduce %zu", n);
    memcpy(recv, send, n * 8);
    MPI_Allreduce(MPI_IN_PLACE, recv, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    check_expect(CHECK_ALLREDUCE, MPI_COMM_WORLD, 1, (MPI_Count)n, MPI_DOUBLE);
    expect_heap(0, 1);
    CHECK(!memcmp(recv, want, n * 8), "allreduce in place %zu", n);
    memset(recv, 0, n * 8);
    MPI_Reduce(send, recv, (int)n, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
    check_expect(CHECK_REDUCE, MPI_COMM_WORLD, 1, (MPI_Count)n, MPI_DOUBLE);
    expect_heap(0, 1);
    if (me == root) CHECK(!memcmp(recv, want, n * 8), "reduce %zu", n);
    const size_t block = n / (size_t)p;
    MPI_Reduce_scatter_block(send, recv, (int)block, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    check_expect(CHECK_REDUCE_SCATTER_BLOCK, MPI_COMM_WORLD, 1, (MPI_Count)(block * (size_t)p),
                 MPI_DOUBLE);
    expect_heap(0, 1);
    CHECK(!memcmp(recv, want + (size_t)me * block, block * 8), "reduce_scatter_block %zu", n);
    release(send), release(recv), free(want);
}

static void movement(size_t b) {
    const int p = check_size, me = check_rank, root = p - 1;
    const size_t all = (size_t)p * b;
    unsigned char *send = buffer(all), *recv = buffer(all), *want = check_alloc(all);
    /* bcast from the root */
    for (size_t i = 0; i < b; i++) want[i] = byte(root, 0, i);
    memcpy(recv, me == root ? want : send, b);
    MPI_Bcast(recv, (int)b, MPI_BYTE, root, MPI_COMM_WORLD);
    check_expect(CHECK_BCAST, MPI_COMM_WORLD, 1, (MPI_Count)b, MPI_BYTE);
    expect_heap(1, 1);
    CHECK(!memcmp(recv, want, b), "bcast %zu", b);
    /* allgather, gather, alltoall, scatter */
    for (int q = 0; q < p; q++)
        for (size_t i = 0; i < b; i++) {
            send[(size_t)q * b + i] = byte(me, q, i);
            want[(size_t)q * b + i] = byte(q, me, i);
        }
    MPI_Alltoall(send, (int)b, MPI_BYTE, recv, (int)b, MPI_BYTE, MPI_COMM_WORLD);
    check_expect_bytes(CHECK_ALLTOALL, MPI_COMM_WORLD, 1, (uint64_t)all * (uint64_t)p);
    expect_heap(0, b > CMA_MAX);
    CHECK(!memcmp(recv, want, all), "alltoall %zu", b);
    for (int q = 0; q < p; q++)
        for (size_t i = 0; i < b; i++) want[(size_t)q * b + i] = byte(q, q, i);
    MPI_Allgather(send + (size_t)me * b, (int)b, MPI_BYTE, recv, (int)b, MPI_BYTE, MPI_COMM_WORLD);
    check_expect_bytes(CHECK_ALLGATHER, MPI_COMM_WORLD, 1, (uint64_t)all);
    expect_heap(0, b > CMA_MAX);
    CHECK(!memcmp(recv, want, all), "allgather %zu", b);
    memset(recv, 0, all);
    MPI_Gather(send + (size_t)me * b, (int)b, MPI_BYTE, recv, (int)b, MPI_BYTE, root,
               MPI_COMM_WORLD);
    check_expect_bytes(CHECK_GATHER, MPI_COMM_WORLD, 1, (uint64_t)all);
    /* gather and scatter of these sizes take their single-copy rows, which map heap buffers
     * themselves where cross-memory attach is allowed; the heap row serves them otherwise */
    if (me == root) CHECK(!memcmp(recv, want, all), "gather %zu", b);
    for (size_t i = 0; i < b; i++) want[i] = byte(root, me, i);
    MPI_Scatter(send, (int)b, MPI_BYTE, recv, (int)b, MPI_BYTE, root, MPI_COMM_WORLD);
    check_expect_bytes(CHECK_SCATTER, MPI_COMM_WORLD, 1, (uint64_t)all);
    CHECK(!memcmp(recv, want, b), "scatter %zu", b);
    /* the v-variants: the same blocks */
    int *counts = check_alloc((size_t)p * 4 * sizeof(int)), *displs = counts + p;
    int *rcounts = counts + 2 * p, *rdispls = counts + 3 * p;
    for (int q = 0; q < p; q++)
        counts[q] = rcounts[q] = (int)b, displs[q] = rdispls[q] = q * (int)b;
    for (int q = 0; q < p; q++)
        for (size_t i = 0; i < b; i++) want[(size_t)q * b + i] = byte(q, me, i);
    MPI_Alltoallv(send, counts, displs, MPI_BYTE, recv, rcounts, rdispls, MPI_BYTE, MPI_COMM_WORLD);
    check_expect_share(CHECK_ALLTOALLV, MPI_COMM_WORLD, 1, (uint64_t)all);
    CHECK(!memcmp(recv, want, all), "alltoallv %zu", b);
    for (int q = 0; q < p; q++)
        for (size_t i = 0; i < b; i++) want[(size_t)q * b + i] = byte(q, q, i);
    MPI_Allgatherv(send + (size_t)me * b, (int)b, MPI_BYTE, recv, rcounts, rdispls, MPI_BYTE,
                   MPI_COMM_WORLD);
    check_expect_bytes(CHECK_ALLGATHERV, MPI_COMM_WORLD, 1, (uint64_t)all);
    expect_heap(0, b > CMA_MAX);
    CHECK(!memcmp(recv, want, all), "allgatherv %zu", b);
    memset(recv, 0, all);
    MPI_Gatherv(send + (size_t)me * b, (int)b, MPI_BYTE, recv, rcounts, rdispls, MPI_BYTE, root,
                MPI_COMM_WORLD);
    check_expect_share(CHECK_GATHERV, MPI_COMM_WORLD, 1, (uint64_t)b);
    if (me == root) CHECK(!memcmp(recv, want, all), "gatherv %zu", b);
    free(counts);
    release(send), release(recv), free(want);
}

/* Every descriptor of this process that is a heap arena is a memory file (no path). */
static void arenas_are_memory_files(void) {
    for (int fd = 0; fd < 4096; fd++) {
        char link[64], target[256];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        const ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0) continue;
        target[n] = '\0';
        if (strstr(target, "shmcoll-heap"))
            CHECK(!strncmp(target, "/memfd:", 7), "an arena is the file %s", target);
    }
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    const char *how = getenv("SHMCOLL_TEST_BUFFERS");
    const char *mode = getenv("SHMCOLL_HEAP");
    const int malloc_mode = mode && !strcmp(mode, "malloc");
    const int disabled = check_disabled() || (mode && !strcmp(mode, "off"));
    const int alloc_mem =
        !how || !strcmp(how, "alloc_mem") || (!strcmp(how, "mixed") && check_rank);
    heap_buffers = !disabled && (alloc_mem || malloc_mode);
    const int self = (int)syscall(SYS_pidfd_open, getpid(), 0);
    const int fetched = self < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, self, 0, 0);
    heap_possible = fetched >= 0;
    if (self >= 0) close(self);
    if (fetched >= 0) close(fetched);
    int both[2] = {heap_buffers, heap_buffers}, agreed[2];
    MPI_Allreduce(both, agreed, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    check_expect(CHECK_ALLREDUCE, MPI_COMM_WORLD, 1, 2, MPI_INT);
    check_expect_heap(MPI_COMM_WORLD, 0);
    all_heap = agreed[0];
    int root_has = heap_buffers;
    MPI_Bcast(&root_has, 1, MPI_INT, check_size - 1, MPI_COMM_WORLD);
    check_expect(CHECK_BCAST, MPI_COMM_WORLD, 1, 1, MPI_INT);
    check_expect_heap(MPI_COMM_WORLD, 0);
    root_heap = root_has;

    static const size_t sizes[] = {256 << 10, (1 << 20) + 8};
    for (size_t s = 0; s < 2; s++) {
        reductions(sizes[s] / 8);
        movement(sizes[s]);
    }
    arenas_are_memory_files();
    if (check_rank == 0 && check_size > 1 && all_heap && heap_possible &&
        getenv("SHMCOLL_TEST_HEAP_DAV")) {
        /* two allreduces of each size; the small calls above (2 ints) go through other rows */
        double dav = 0;
        for (size_t s = 0; s < 2; s++)
            dav += 2.0 * (double)(sizes[s] / 8 * 8) * (5.0 * check_size - 5);
        printf("expect: allreduce dav>=%.0f dav<=%.0f\n", dav,
               dav + 64.0 * check_size * check_size);
    }
    return check_finish("test_heap");
}
