/* shmcoll-bench: for each selected collective and message size, time the MPI library and shmcoll
 * side by side (measure.c) and print one row (report.c). Runs on MPI_COMM_WORLD. */
#include "bench.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Page-aligned, and touched once here so no timed loop pays for first-touch page faults. */
static void *alloc_buffer(size_t bytes) {
    void *buf = NULL;
    if (bytes == 0) bytes = 1;
    if (posix_memalign(&buf, 4096, bytes) != 0) return NULL;
    memset(buf, 0, bytes);
    return buf;
}

/* Elements for a message of about `size` bytes: at least one. */
static size_t count_for(size_t size, size_t elem) {
    return size / elem ? size / elem : 1;
}

static void run_case(shmcoll_bench_case_t *c, const shmcoll_bench_options_t *o) {
    shmcoll_bench_result_t result;
    shmcoll_bench_measure_run(c, o, &result);
    if (c->rank == 0) shmcoll_bench_report_row(o, c, &result);
}

int main(int argc, char **argv) {
    int rank, nprocs;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    shmcoll_bench_options_t o;
    int parsed = shmcoll_bench_options_parse(argc, argv, rank, nprocs, &o);
    size_t elem = shmcoll_bench_data_elem_size(o.type);
    if (parsed == 0 && count_for(o.max_size, elem) > INT_MAX) {
        if (rank == 0) fprintf(stderr, "shmcoll-bench: --max-size exceeds INT_MAX elements\n");
        parsed = 2;
    }
    if (parsed != 0) {
        MPI_Finalize();
        return parsed == 1 ? 0 : 2;
    }

    size_t cap = count_for(o.max_size, elem) * elem;
    void *sendbuf = alloc_buffer(cap);
    void *recvbuf = alloc_buffer(cap);
    if (!sendbuf || !recvbuf) {
        fprintf(stderr, "shmcoll-bench: rank %d cannot allocate 2 x %zu bytes\n", rank, cap);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    if (rank == 0) shmcoll_bench_report_header(&o, nprocs);
    for (int coll = 0; coll < SHMCOLL_BENCH_NCOLL; coll++) {
        if (!o.run[coll]) continue;
        shmcoll_bench_case_t c = {.coll = (shmcoll_bench_coll_t)coll,
                                  .type = o.type,
                                  .root = o.root,
                                  .rank = rank,
                                  .nprocs = nprocs,
                                  .comm = MPI_COMM_WORLD,
                                  .sendbuf = sendbuf,
                                  .recvbuf = recvbuf,
                                  .cache_bust = o.cache_bust};
        if (coll == SHMCOLL_BENCH_BARRIER) { /* no data: one row */
            run_case(&c, &o);
            continue;
        }
        for (size_t size = o.min_size;;) {
            c.count = count_for(size, elem);
            c.bytes = c.count * elem;
            run_case(&c, &o);
            if (size >= o.max_size) break;
            /* Next step, then the maximum itself if the steps jump over it. */
            size = size > o.max_size / o.factor ? o.max_size : size * o.factor;
        }
    }

    free(sendbuf);
    free(recvbuf);
    MPI_Finalize();
    return 0;
}
