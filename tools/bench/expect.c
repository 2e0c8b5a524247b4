/* The expected result of every collective, checked after each timed loop.
 *
 * With the inputs of data.c (rank q's send element i is (q + 1) + (i + t) mod 61), every block of
 * a result is base + scale * ((first + k + t) mod 61) for its element k:
 *   bcast, scatter(v)          base root + 1, scale 1, first = the block's offset at the root
 *   gathers, all-to-alls       block from rank q: base q + 1, scale 1, first = its offset at q
 *   reduce, allreduce          base p (p + 1) / 2, scale p
 *   reduce_scatter(_block)     the same, first = the offset of this rank's block in the vector
 *   scan at rank r             base (r + 1)(r + 2) / 2, scale r + 1 (ranks 0..r)
 *   exscan at rank r > 0       base r (r + 1) / 2, scale r (rank 0's result is undefined)
 * A rank checks every block it receives, so a block from the wrong rank, at the wrong offset or
 * not written at all (the destination is poisoned before each loop) is caught. */
#include "bench.h"

#include <stdio.h>

typedef struct segment {
    const void *buf; /* first element of the block */
    size_t count;
    size_t first; /* index of its first element in the sender's buffer (or the vector) */
    long long base, scale;
    int from; /* origin of the block, -1 for a reduction of all ranks */
} segment_t;

/* Prints the wrong element; aborts where it is shmcoll's. */
static int fail(const shmcoll_bench_case_t *c, shmcoll_bench_impl_t impl, const segment_t *s,
                size_t index, double got, double want) {
    char root[32] = "", origin[48] = "";
    if (shmcoll_bench_coll_rooted(c->coll)) snprintf(root, sizeof root, ", root %d", c->root);
    if (s->from >= 0) snprintf(origin, sizeof origin, " of the block from rank %d", s->from);
    fprintf(stderr,
            "shmcoll-bench: WRONG RESULT of %s (%s implementation), size %zu bytes of %s%s, "
            "rank %d of %d: element %zu%s is %.17g, expected %.17g\n",
            shmcoll_bench_coll_name(c->coll), shmcoll_bench_impl_name(impl), c->bytes,
            shmcoll_bench_type_name(c->type), root, c->rank, c->nprocs, index, origin, got, want);
    fflush(stderr);
    if (impl != SHMCOLL_BENCH_IMPL_MPI) MPI_Abort(MPI_COMM_WORLD, 3);
    fprintf(stderr, "shmcoll-bench: the MPI library's own result, not shmcoll's: the run goes on, "
                    "the row is marked and left out of the worst speedup\n");
    return 1;
}

static int check(const shmcoll_bench_case_t *c, shmcoll_bench_impl_t impl, unsigned long tag,
                 const segment_t *s) {
    double got, want;
    size_t bad = shmcoll_bench_data_check(c->type, s->buf, s->count, s->first, s->base, s->scale,
                                          tag, &got, &want);
    return bad != (size_t)-1 ? fail(c, impl, s, bad, got, want) : 0;
}

/* The blocks of recvbuf at rdispls, block q from rank q at offset first(q) of its sender. */
static int check_blocks(const shmcoll_bench_case_t *c, shmcoll_bench_impl_t impl, unsigned long tag,
                        int all_to_all) {
    const size_t elem = shmcoll_bench_data_elem_size(c->type);
    for (int q = 0; q < c->nprocs; q++) {
        segment_t s = {.buf = (const char *)c->recvbuf + (size_t)c->rdispls[q] * elem,
                       .count = (size_t)c->recvcounts[q],
                       .first = all_to_all ? shmcoll_bench_layout_send_offset(c, q, c->rank) : 0,
                       .base = q + 1,
                       .scale = 1,
                       .from = q};
        if (check(c, impl, tag, &s)) return 1;
    }
    return 0;
}

int shmcoll_bench_expect_check(const shmcoll_bench_case_t *c, shmcoll_bench_impl_t impl,
                               unsigned long tag) {
    const long long p = c->nprocs, r = c->rank;
    segment_t s = {
        .buf = c->recvbuf, .count = c->recv_elems, .base = p * (p + 1) / 2, .scale = p, .from = -1};
    switch (c->coll) {
    case SHMCOLL_BENCH_BARRIER:
        return 0;
    case SHMCOLL_BENCH_BCAST:
        s = (segment_t){
            .buf = c->sendbuf, .count = c->count, .base = c->root + 1, .scale = 1, .from = c->root};
        break;
    case SHMCOLL_BENCH_REDUCE:
        if (c->rank != c->root) return 0;
        break;
    case SHMCOLL_BENCH_ALLREDUCE:
        break;
    case SHMCOLL_BENCH_REDUCE_SCATTER_BLOCK:
    case SHMCOLL_BENCH_REDUCE_SCATTER:
        s.first = (size_t)c->sdispls[c->rank];
        break;
    case SHMCOLL_BENCH_SCAN:
        s.base = (r + 1) * (r + 2) / 2;
        s.scale = r + 1;
        break;
    case SHMCOLL_BENCH_EXSCAN:
        if (r == 0) return 0;
        s.base = r * (r + 1) / 2;
        s.scale = r;
        break;
    case SHMCOLL_BENCH_GATHER:
    case SHMCOLL_BENCH_GATHERV:
        if (c->rank != c->root) return 0;
        return check_blocks(c, impl, tag, 0);
    case SHMCOLL_BENCH_ALLGATHER:
    case SHMCOLL_BENCH_ALLGATHERV:
        return check_blocks(c, impl, tag, 0);
    case SHMCOLL_BENCH_ALLTOALL:
    case SHMCOLL_BENCH_ALLTOALLV:
        return check_blocks(c, impl, tag, 1);
    case SHMCOLL_BENCH_SCATTER:
    case SHMCOLL_BENCH_SCATTERV:
        s = (segment_t){.buf = c->recvbuf,
                        .count = c->recv_elems,
                        .first = shmcoll_bench_layout_send_offset(c, c->root, c->rank),
                        .base = c->root + 1,
                        .scale = 1,
                        .from = c->root};
        break;
    default:
        return 0;
    }
    return check(c, impl, tag, &s);
}
