/* shmcoll-bench: for each selected collective and size, time the MPI library and shmcoll side by
 * side (measure.c) and print one row (report.c); from --cache-bust-from up, a second row with the
 * send buffer rewritten before every call. Runs on MPI_COMM_WORLD.
 *
 * The buffers are allocated once, as large as the largest case needs (a first pass over the
 * cases computes their layouts), and touched once, so no timed loop pays for page faults. The
 * memcpy bandwidth is measured once per size, the first time a row of that size is printed. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Page-aligned (or MPI_Alloc_mem's, --alloc-mem), and touched once here so no timed loop pays
 * for first-touch page faults. */
static void *alloc_buffer(size_t bytes, int alloc_mem) {
    void *buf = NULL;
    if (bytes == 0) bytes = 1;
    if (alloc_mem) {
        if (MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &buf) != MPI_SUCCESS) return NULL;
    } else if (posix_memalign(&buf, 4096, bytes) != 0) {
        return NULL;
    }
    memset(buf, 0, bytes);
    return buf;
}

static void free_buffer(void *buf, int alloc_mem) {
    if (alloc_mem)
        MPI_Free_mem(buf);
    else
        free(buf);
}

/* The sizes of a run: min_size, min_size * factor, ..., then max_size itself if the steps jump
 * over it. Returns 0 after the last. */
static size_t next_size(const shmcoll_bench_options_t *o, size_t size) {
    if (size >= o->max_size) return 0;
    return size > o->max_size / o->factor ? o->max_size : size * o->factor;
}

/* memcpy bandwidth per row size, measured once: every rank asks for the same sizes in the same
 * order, so every rank measures (collectively) at the same points. */
typedef struct copy_cache {
    size_t bytes[256];
    double gbs[256];
    int used;
} copy_cache_t;

static double copy_gbs(copy_cache_t *cache, const shmcoll_bench_case_t *c,
                       const shmcoll_bench_options_t *o) {
    for (int i = 0; i < cache->used; i++)
        if (cache->bytes[i] == c->bytes) return cache->gbs[i];
    double gbs = shmcoll_bench_copy_measure(c->recvbuf, c->sendbuf, c->bytes, c->comm, o);
    if (cache->used < 256) {
        cache->bytes[cache->used] = c->bytes;
        cache->gbs[cache->used++] = gbs;
    }
    return gbs;
}

static void run_row(shmcoll_bench_case_t *c, const shmcoll_bench_options_t *o, int cache_bust,
                    copy_cache_t *cache) {
    shmcoll_bench_result_t result;
    c->cache_bust = cache_bust;
    c->own_barrier = o->own_barrier;
    shmcoll_bench_measure_run(c, o, &result);
    if (o->copy && c->bytes) result.copy_gbs = copy_gbs(cache, c, o);
    if (c->rank == 0) shmcoll_bench_report_row(o, c, &result);
}

/* The bytes this rank's send and receive buffers need over all cases, and the largest row size
 * (the memcpy bandwidth copies that much from one to the other). -1 when a case does not fit
 * MPI's int counts. */
static int plan(shmcoll_bench_case_t *c, const shmcoll_bench_options_t *o, size_t *send_cap,
                size_t *recv_cap) {
    const size_t elem = shmcoll_bench_data_elem_size(o->type);
    *send_cap = *recv_cap = 0;
    for (int coll = 0; coll < SHMCOLL_BENCH_NCOLL; coll++) {
        if (!o->run[coll]) continue;
        c->coll = (shmcoll_bench_coll_t)coll;
        for (size_t size = o->min_size; size; size = next_size(o, size)) {
            if (shmcoll_bench_layout_fill(c, size) != 0) return -1;
            /* bcast receives into its one buffer, the send buffer. */
            size_t send = c->send_elems, recv = c->recv_elems;
            if (coll == SHMCOLL_BENCH_BCAST) send = send > recv ? send : recv;
            if (send * elem > *send_cap) *send_cap = send * elem;
            if (recv * elem > *recv_cap) *recv_cap = recv * elem;
            if (c->bytes > *send_cap) *send_cap = c->bytes;
            if (c->bytes > *recv_cap) *recv_cap = c->bytes;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    int rank, nprocs;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    shmcoll_bench_options_t o;
    int parsed = shmcoll_bench_options_parse(argc, argv, rank, nprocs, &o);
    /* As an application's first collectives would: a communicator is set up (its shared memory,
     * SHMCOLL_COLLS_THRESHOLD) only in blocking collectives, so a run of the non-blocking or
     * persistent forms alone would measure the MPI library's on both sides. */
    for (int i = 0; i < 8; i++) MPI_Barrier(MPI_COMM_WORLD);
    int *counts = malloc(5 * (size_t)nprocs * sizeof(int));
    if (!counts) {
        fprintf(stderr, "shmcoll-bench: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    shmcoll_bench_case_t c = {.type = o.type,
                              .root = o.root,
                              .rank = rank,
                              .nprocs = nprocs,
                              .comm = MPI_COMM_WORLD,
                              .form = o.form,
                              .waitall = o.waitall,
                              .sendcounts = counts,
                              .sdispls = counts + nprocs,
                              .recvcounts = counts + 2 * nprocs,
                              .rdispls = counts + 3 * nprocs,
                              .shares = counts + 4 * nprocs};
    size_t send_cap = 0, recv_cap = 0;
    if (parsed == 0 && plan(&c, &o, &send_cap, &recv_cap) != 0) {
        if (rank == 0)
            fprintf(stderr,
                    "shmcoll-bench: --max-size needs counts beyond INT_MAX elements at "
                    "p=%d\n",
                    nprocs);
        parsed = 2;
    }
    if (parsed != 0) {
        free(counts);
        MPI_Finalize();
        return parsed == 1 ? 0 : 2;
    }

    c.sendbuf = alloc_buffer(send_cap, o.alloc_mem);
    c.recvbuf = alloc_buffer(recv_cap, o.alloc_mem);
    if (!c.sendbuf || !c.recvbuf) {
        fprintf(stderr, "shmcoll-bench: rank %d cannot allocate %zu + %zu bytes\n", rank, send_cap,
                recv_cap);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    copy_cache_t cache = {.used = 0};
    if (rank == 0) shmcoll_bench_report_header(&o, nprocs);
    const shmcoll_bench_state_t state_start = shmcoll_bench_state(MPI_COMM_WORLD, &o);
    for (int coll = 0; coll < SHMCOLL_BENCH_NCOLL; coll++) {
        if (!o.run[coll]) continue;
        c.coll = (shmcoll_bench_coll_t)coll;
        for (size_t size = o.min_size; size; size = next_size(&o, size)) {
            shmcoll_bench_layout_fill(&c, size);
            run_row(&c, &o, o.bust == SHMCOLL_BENCH_BUST_ALL, &cache);
            if (o.bust == SHMCOLL_BENCH_BUST_EXTRA && c.bytes >= o.bust_min)
                run_row(&c, &o, 1, &cache);
            if (coll == SHMCOLL_BENCH_BARRIER) break; /* no data: one row */
        }
    }

    const shmcoll_bench_state_t state_end = shmcoll_bench_state(MPI_COMM_WORLD, &o);
    if (rank == 0) shmcoll_bench_report_summary(&o, &state_start, &state_end);
    free_buffer(c.sendbuf, o.alloc_mem);
    free_buffer(c.recvbuf, o.alloc_mem);
    free(counts);
    MPI_Finalize();
    return 0;
}
