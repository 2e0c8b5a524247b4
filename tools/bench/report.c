/* The output of shmcoll-bench, on rank 0: a header naming what was compared and how (and what a
 * size and each bandwidth mean), then one row per case as soon as it is measured. As a table for
 * people, or as CSV (header lines start with '#'; cache-busted rows have cache_bust=1, DAV and
 * copy columns are empty where there is no value) for scripts. */
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

/* The load of the machine when the run starts ("-" where /proc/loadavg does not exist): other
 * work on the cores shows in every time, and is worth knowing when reading them. */
static void load_average(char *out, size_t cap) {
    snprintf(out, cap, "-");
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f) return;
    double one, five, fifteen;
    if (fscanf(f, "%lf %lf %lf", &one, &five, &fifteen) == 3)
        snprintf(out, cap, "%.2f %.2f %.2f", one, five, fifteen);
    fclose(f);
}

void shmcoll_bench_report_header(const shmcoll_bench_options_t *o, int nprocs) {
    char library[256], load[64];
    mpi_library_line(library, sizeof library);
    load_average(load, sizeof load);
    const char *lead = o->csv ? "# " : "";
    const char *disabled = getenv("SHMCOLL_DISABLE");
    printf("%sshmcoll-bench: p=%d, MPI library: %s, shmcoll %s; load average %s\n", lead, nprocs,
           library, shmcoll_version(), load);
    char loops[96];
    if (o->iters)
        snprintf(loops, sizeof loops, "%ld iterations per loop", o->iters);
    else if (o->target > 0)
        snprintf(loops, sizeof loops, "loops calibrated to %g s", o->target);
    else
        snprintf(loops, sizeof loops,
                 "loops calibrated to 0.1 s (barrier to allreduce), 0.05 s (others)");
    printf("%stime per call in microseconds: per-rank mean, maximum over ranks; %s; %d round%s "
           "alternating MPI (PMPI_*) and shmcoll (MPI_*); type %s, op sum, root %d\n",
           lead, loops, o->rounds, o->rounds == 1 ? "" : "s", shmcoll_bench_type_name(o->type),
           o->root);
    printf("%ssize: the vector (bcast, reduce, allreduce, scan, exscan; reduce_scatter_block and "
           "reduce_scatter: the whole vector, p blocks, uneven 1:2:..:p for reduce_scatter); one "
           "rank's block (allgather, gather, scatter, alltoall: buffers of p blocks); the mean "
           "block (allgatherv, gatherv, scatterv, alltoallv: uneven blocks 1:2:..:p)\n",
           lead);
    if (o->bust == SHMCOLL_BENCH_BUST_ALL)
        printf("%scache-bust on: send buffer rewritten before every call, then a barrier; "
               "neither timed\n",
               lead);
    else if (o->bust == SHMCOLL_BENCH_BUST_EXTRA)
        printf("%s+cb rows (sizes from %zu bytes): the same case with the send buffer rewritten "
               "before every call, then a barrier; neither timed\n",
               lead, o->bust_min);
    printf("%sDAV GB/s: bytes shmcoll's kernels loaded + stored per call, all ranks, / shmcoll "
           "time (\"-\": not reported, or none: the call went to the MPI library); copy GB/s: "
           "every rank memcpy's size bytes at once, repeated, 2 x size / time summed over ranks "
           "(from memory once the ranks' buffers exceed the last-level cache)\n",
           lead);
    if (disabled && strcmp(disabled, "0") != 0) {
        printf("%sSHMCOLL_DISABLE is set: both columns measure the MPI library\n", lead);
    }
    if (o->csv) {
        printf("collective,cache_bust,bytes,count,type,p,iters,rounds,mpi_us,shmcoll_us,speedup,"
               "dav_bytes,dav_gbs,copy_gbs\n");
    } else {
        printf("%-23s %6s %8s %12s %12s %8s %9s %9s\n", "collective", "size", "iters", "MPI us",
               "shmcoll us", "speedup", "DAV GB/s", "copy GB/s");
    }
    fflush(stdout);
}

/* "%.2f" of a bandwidth, or "-" (table) / "" (CSV) when there is none. */
static const char *gbs_text(double gbs, int known, int csv, char *buf, size_t cap) {
    if (known && gbs > 0)
        snprintf(buf, cap, "%.2f", gbs);
    else
        snprintf(buf, cap, "%s", csv ? "" : "-");
    return buf;
}

void shmcoll_bench_report_row(const shmcoll_bench_options_t *o, const shmcoll_bench_case_t *c,
                              const shmcoll_bench_result_t *r) {
    double mpi = r->usec[SHMCOLL_BENCH_IMPL_MPI];
    double shm = r->usec[SHMCOLL_BENCH_IMPL_SHMCOLL];
    double speedup = shm > 0 ? mpi / shm : 0;
    /* bytes per ns = GB/s */
    double dav_gbs = shm > 0 ? r->dav / (shm * 1e3) : 0;
    const char *name = shmcoll_bench_coll_name(c->coll);
    char dav[32], copy[32];
    gbs_text(dav_gbs, r->dav_known, o->csv, dav, sizeof dav);
    gbs_text(r->copy_gbs, 1, o->csv, copy, sizeof copy);
    if (o->csv) {
        char dav_bytes[32] = "";
        if (r->dav_known) snprintf(dav_bytes, sizeof dav_bytes, "%.0f", r->dav);
        printf("%s,%d,%zu,%zu,%s,%d,%ld,%d,%.3f,%.3f,%.3f,%s,%s,%s\n", name, c->cache_bust,
               c->bytes, c->count, shmcoll_bench_type_name(c->type), c->nprocs, r->iters, r->rounds,
               mpi, shm, speedup, dav_bytes, dav, copy);
    } else {
        char size[32], label[40];
        if (c->coll == SHMCOLL_BENCH_BARRIER)
            snprintf(size, sizeof size, "-");
        else
            size_text(c->bytes, size, sizeof size);
        /* Marked only where cache-busted rows sit next to plain ones. */
        int mark = c->cache_bust && o->bust == SHMCOLL_BENCH_BUST_EXTRA;
        snprintf(label, sizeof label, "%s%s", name, mark ? "+cb" : "");
        printf("%-23s %6s %8ld %12.2f %12.2f %7.2fx %9s %9s\n", label, size, r->iters, mpi, shm,
               speedup, dav, copy);
    }
    fflush(stdout);
}
