/* The output of shmcoll-bench, on rank 0: a header naming what was compared and how, then one row
 * per case as soon as it is measured. As a table for people, or as CSV (header lines start with
 * '#') for scripts. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmcoll.h"

/* First line of MPI_Get_library_version, with runs of blanks folded into one space. */
static void mpi_library_line(char *out, size_t cap) {
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(text, &len);
    size_t n = 0;
    for (int i = 0; i < len && text[i] && text[i] != '\n' && n + 1 < cap; i++) {
        char ch = text[i] == '\t' ? ' ' : text[i];
        if (ch == ' ' && (n == 0 || out[n - 1] == ' ')) continue;
        out[n++] = ch;
    }
    while (n > 0 && out[n - 1] == ' ') n--;
    out[n] = '\0';
}

/* 8B, 4K, 2M, 1536B: binary multiples, exact (a size that is no whole multiple keeps its unit). */
static const char *size_text(size_t bytes, char *buf, size_t cap) {
    static const char units[] = {'B', 'K', 'M', 'G'};
    int u = 0;
    while (u < 3 && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        u++;
    }
    snprintf(buf, cap, "%zu%c", bytes, units[u]);
    return buf;
}

void shmcoll_bench_report_header(const shmcoll_bench_options_t *o, int nprocs) {
    char library[256];
    mpi_library_line(library, sizeof library);
    const char *lead = o->csv ? "# " : "";
    const char *disabled = getenv("SHMCOLL_DISABLE");
    printf("%sshmcoll-bench: p=%d, MPI library: %s, shmcoll %s\n", lead, nprocs, library,
           shmcoll_version());
    printf("%stime per call in microseconds: per-rank mean over %s, maximum over ranks; %d "
           "round%s alternating MPI (PMPI_*) and shmcoll (MPI_*); type %s, op sum, root %d; "
           "cache-bust %s\n",
           lead, o->iters ? "the timed iterations" : "calibrated iterations", o->rounds,
           o->rounds == 1 ? "" : "s", shmcoll_bench_type_name(o->type), o->root,
           o->cache_bust ? "on (send buffer rewritten before every iteration, rewrite and a "
                           "barrier before each call, not timed)"
                         : "off");
    if (disabled && strcmp(disabled, "0") != 0) {
        printf("%sSHMCOLL_DISABLE is set: both columns measure the MPI library\n", lead);
    }
    if (o->csv) {
        printf("collective,bytes,count,type,p,iters,rounds,mpi_us,shmcoll_us,speedup\n");
    } else {
        printf("%-10s %8s %9s %12s %12s %8s\n", "collective", "size", "iters", "MPI us",
               "shmcoll us", "speedup");
    }
    fflush(stdout);
}

void shmcoll_bench_report_row(const shmcoll_bench_options_t *o, const shmcoll_bench_case_t *c,
                              const shmcoll_bench_result_t *r) {
    double mpi = r->usec[SHMCOLL_BENCH_IMPL_MPI];
    double shm = r->usec[SHMCOLL_BENCH_IMPL_SHMCOLL];
    double speedup = shm > 0 ? mpi / shm : 0;
    const char *name = shmcoll_bench_coll_name(c->coll);
    if (o->csv) {
        printf("%s,%zu,%zu,%s,%d,%ld,%d,%.3f,%.3f,%.3f\n", name, c->bytes, c->count,
               shmcoll_bench_type_name(c->type), c->nprocs, r->iters, r->rounds, mpi, shm, speedup);
    } else {
        char size[32];
        if (c->coll == SHMCOLL_BENCH_BARRIER)
            snprintf(size, sizeof size, "-");
        else
            size_text(c->bytes, size, sizeof size);
        printf("%-10s %8s %9ld %12.2f %12.2f %7.2fx\n", name, size, r->iters, mpi, shm, speedup);
    }
    fflush(stdout);
}
