/* The shape of one case: the count arguments of this rank's call and how much of each buffer it
 * uses, derived from the row's size by a formula every rank evaluates alike.
 *
 * What the size of a row is (n = size / element size, at least 1):
 *   bcast, reduce, allreduce, scan, exscan   the vector: count n
 *   reduce_scatter_block                     the whole vector each rank contributes: p blocks
 *                                            of n / p elements (at least 1)
 *   reduce_scatter                           the whole vector: n elements in uneven blocks
 *   allgather, gather, scatter, alltoall     one rank's block: count n, buffers of p * n
 *   allgatherv, gatherv, scatterv, alltoallv the mean block: p * n elements in uneven blocks
 * Uneven blocks split a total in the proportions 1 : 2 : ... : p (rounded down at the block
 * boundaries, so they add up exactly and small totals give empty blocks too). alltoallv rotates
 * the split by the sender's rank: rank q sends shares[(r - q) mod p] elements to rank r, so every
 * rank sends and receives p * n elements in all and every block size occurs. Blocks lie back to
 * back in rank order. */
#include "bench.h"

#include <limits.h>

/* shares[j] = B(j + 1) - B(j) with B(j) = floor(total * j (j + 1) / p (p + 1)). */
static void split_uneven(size_t total, int p, int *shares) {
    unsigned long long weights = (unsigned long long)p * (unsigned long long)(p + 1);
    size_t prev = 0;
    for (int j = 0; j < p; j++) {
        unsigned long long upto = (unsigned long long)(j + 1) * (unsigned long long)(j + 2);
        size_t next = (size_t)((unsigned long long)total * upto / weights);
        shares[j] = (int)(next - prev);
        prev = next;
    }
}

/* displs[j] = counts[0] + ... + counts[j - 1]; returns the total. */
static size_t prefix(const int *counts, int *displs, int p) {
    size_t sum = 0;
    for (int j = 0; j < p; j++) {
        displs[j] = (int)sum;
        sum += (size_t)counts[j];
    }
    return sum;
}

static void fill(int *array, int p, size_t value) {
    for (int j = 0; j < p; j++) array[j] = (int)value;
}

int shmcoll_bench_layout_fill(shmcoll_bench_case_t *c, size_t size) {
    const int p = c->nprocs, r = c->rank;
    const size_t elem = shmcoll_bench_data_elem_size(c->type);
    size_t n = size / elem ? size / elem : 1;
    /* Every count and displacement below is at most p * n (alltoallv, v totals), or n * p for
     * reduce_scatter_block: check once that it fits MPI's int. */
    if (n > (size_t)INT_MAX / (size_t)p) return -1;
    const int is_root = r == c->root;
    c->count = n;
    c->send_elems = c->recv_elems = 0;
    fill(c->sendcounts, p, 0);
    fill(c->sdispls, p, 0);
    fill(c->recvcounts, p, 0);
    fill(c->rdispls, p, 0);
    split_uneven(p * n, p, c->shares);

    switch (c->coll) {
    case SHMCOLL_BENCH_BARRIER:
        c->count = 0;
        break;
    case SHMCOLL_BENCH_BCAST:
        c->send_elems = is_root ? n : 0;
        c->recv_elems = is_root ? 0 : n;
        break;
    case SHMCOLL_BENCH_REDUCE:
        c->send_elems = n;
        c->recv_elems = is_root ? n : 0;
        break;
    case SHMCOLL_BENCH_ALLREDUCE:
    case SHMCOLL_BENCH_SCAN:
    case SHMCOLL_BENCH_EXSCAN:
        c->send_elems = c->recv_elems = n;
        break;
    case SHMCOLL_BENCH_REDUCE_SCATTER_BLOCK:
        c->count = n / (size_t)p ? n / (size_t)p : 1;
        fill(c->recvcounts, p, c->count);
        c->send_elems = prefix(c->recvcounts, c->sdispls, p);
        c->recv_elems = c->count;
        break;
    case SHMCOLL_BENCH_REDUCE_SCATTER:
        /* recvcounts: the blocks of the vector; sdispls: where each starts in it. */
        split_uneven(n, p, c->recvcounts);
        c->send_elems = prefix(c->recvcounts, c->sdispls, p);
        c->recv_elems = (size_t)c->recvcounts[r];
        break;
    case SHMCOLL_BENCH_ALLGATHER:
    case SHMCOLL_BENCH_GATHER:
        c->send_elems = n;
        fill(c->recvcounts, p, n);
        c->recv_elems = prefix(c->recvcounts, c->rdispls, p);
        if (c->coll == SHMCOLL_BENCH_GATHER && !is_root) c->recv_elems = 0;
        break;
    case SHMCOLL_BENCH_ALLGATHERV:
    case SHMCOLL_BENCH_GATHERV:
        c->send_elems = (size_t)c->shares[r];
        for (int j = 0; j < p; j++) c->recvcounts[j] = c->shares[j];
        c->recv_elems = prefix(c->recvcounts, c->rdispls, p);
        if (c->coll == SHMCOLL_BENCH_GATHERV && !is_root) c->recv_elems = 0;
        break;
    case SHMCOLL_BENCH_SCATTER:
        fill(c->sendcounts, p, n);
        c->send_elems = prefix(c->sendcounts, c->sdispls, p);
        if (!is_root) c->send_elems = 0;
        c->recv_elems = n;
        break;
    case SHMCOLL_BENCH_SCATTERV:
        for (int j = 0; j < p; j++) c->sendcounts[j] = c->shares[j];
        c->send_elems = prefix(c->sendcounts, c->sdispls, p);
        if (!is_root) c->send_elems = 0;
        c->recv_elems = (size_t)c->shares[r];
        break;
    case SHMCOLL_BENCH_ALLTOALL:
        fill(c->sendcounts, p, n);
        fill(c->recvcounts, p, n);
        c->send_elems = prefix(c->sendcounts, c->sdispls, p);
        c->recv_elems = prefix(c->recvcounts, c->rdispls, p);
        break;
    case SHMCOLL_BENCH_ALLTOALLV:
        for (int j = 0; j < p; j++) {
            c->sendcounts[j] = c->shares[(j - r + p) % p];
            c->recvcounts[j] = c->shares[(r - j + p) % p];
        }
        c->send_elems = prefix(c->sendcounts, c->sdispls, p);
        c->recv_elems = prefix(c->recvcounts, c->rdispls, p);
        break;
    default:
        return -1;
    }
    if (c->coll == SHMCOLL_BENCH_REDUCE_SCATTER_BLOCK)
        c->bytes = c->send_elems * elem;
    else if (c->coll == SHMCOLL_BENCH_BARRIER)
        c->bytes = 0;
    else
        c->bytes = c->count * elem;
    return 0;
}

size_t shmcoll_bench_layout_send_offset(const shmcoll_bench_case_t *c, int from, int to) {
    const int p = c->nprocs;
    switch (c->coll) {
    case SHMCOLL_BENCH_SCATTER:
    case SHMCOLL_BENCH_ALLTOALL:
        return (size_t)to * c->count;
    case SHMCOLL_BENCH_SCATTERV: {
        size_t offset = 0;
        for (int j = 0; j < to; j++) offset += (size_t)c->shares[j];
        return offset;
    }
    case SHMCOLL_BENCH_ALLTOALLV: {
        /* The sender's sdispls: its blocks for ranks 0 .. to-1, rotated by its rank. */
        size_t offset = 0;
        for (int j = 0; j < to; j++) offset += (size_t)c->shares[(j - from + p) % p];
        return offset;
    }
    default:
        return 0;
    }
}
