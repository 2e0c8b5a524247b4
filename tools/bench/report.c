/* The output of shmcoll-bench, on rank 0: a header naming what was compared and how (and what a
 * size and each bandwidth mean), then one row per case as soon as it is measured. As a table for
 * people, or as CSV (header lines start with '#'; cache-busted rows have cache_bust=1, DAV and
 * copy columns are empty where there is no value) for scripts; with --csv-file, both: the table
 * (or CSV) on standard output and CSV in the file, from the same values. */
#include "bench.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* "host: CPU model, N CPUs": what the machine is, for people and plots. */
static void machine_line(char *out, size_t cap) {
    char host[128] = "?", model[160] = "unknown CPU", line[512];
    if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "?");
    host[sizeof host - 1] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon || (strncmp(line, "model name", 10) != 0 && strncmp(line, "Model", 5) != 0))
            continue;
        const char *value = colon + 1 + strspn(colon + 1, " \t");
        snprintf(model, sizeof model, "%.*s", (int)strcspn(value, "\n"), value);
        break;
    }
    if (f) fclose(f);
    snprintf(out, cap, "%s: %s, %ld CPUs", host, model, sysconf(_SC_NPROCESSORS_ONLN));
}

/* --csv-file, open on rank 0 from the header to the summary. */
static FILE *csv_file;

static void header(FILE *out, int csv, const shmcoll_bench_options_t *o, int nprocs) {
    char library[256], load[64], machine[320];
    mpi_library_line(library, sizeof library);
    load_average(load, sizeof load);
    machine_line(machine, sizeof machine);
    const char *lead = csv ? "# " : "";
    const char *disabled = getenv("SHMCOLL_DISABLE");
    fprintf(out, "%sshmcoll-bench: p=%d, MPI library: %s, shmcoll %s; load average %s\n", lead,
            nprocs, library, shmcoll_version(), load);
    fprintf(out, "%smachine: %s\n", lead, machine);
    char loops[160];
    if (o->first_calls)
        snprintf(loops, sizeof loops,
                 "first %ld calls (after %ld untimed) of fresh communicators, each after %s",
                 o->first_calls, o->first_calls / 10,
                 o->own_barrier ? "its implementation's own barrier" : "PMPI_Barrier");
    else if (o->iters)
        snprintf(loops, sizeof loops, "%ld iterations per loop", o->iters);
    else if (o->target > 0)
        snprintf(loops, sizeof loops, "loops calibrated to %g s", o->target);
    else
        snprintf(loops, sizeof loops,
                 "loops calibrated to 0.03 s (barrier to allreduce), 0.015 s (others)");
    fprintf(
        out,
        "%stime per call in microseconds: each loop's mean %s, the median over "
        "the loops; %s; %d round%s alternating MPI (PMPI_*) and shmcoll (MPI_*), more where that "
        "makes fewer than %d calls; type %s, op sum, root %d; buffers from %s\n",
        lead, o->rank_mean ? "averaged over the ranks" : "on its slowest rank", loops, o->rounds,
        o->rounds == 1 ? "" : "s", SHMCOLL_BENCH_MIN_CALLS, shmcoll_bench_type_name(o->type),
        o->root, o->alloc_mem ? "MPI_Alloc_mem" : "malloc");
    fprintf(out,
            "%ssize: the vector (bcast, reduce, allreduce, scan, exscan; reduce_scatter_block and "
            "reduce_scatter: the whole vector, p blocks, uneven 1:2:..:p for reduce_scatter); one "
            "rank's block (allgather, gather, scatter, alltoall: buffers of p blocks); the mean "
            "block (allgatherv, gatherv, scatterv, alltoallv: uneven blocks 1:2:..:p)\n",
            lead);
    if (o->bust == SHMCOLL_BENCH_BUST_ALL)
        fprintf(out,
                "%scache-bust on: send buffer rewritten before every call, then a barrier; "
                "neither timed\n",
                lead);
    else if (o->bust == SHMCOLL_BENCH_BUST_EXTRA)
        fprintf(out,
                "%s+cb rows (sizes from %zu bytes): the same case with the send buffer rewritten "
                "before every call, then a barrier; neither timed\n",
                lead, o->bust_min);
    fprintf(out,
            "%sDAV GB/s: bytes shmcoll's kernels loaded + stored per call, all ranks, / shmcoll "
            "time (\"-\": not reported, or none: the call went to the MPI library); copy GB/s: "
            "every rank memcpy's size bytes at once, repeated, 2 x size / time summed over ranks "
            "(from memory once the ranks' buffers exceed the last-level cache)\n",
            lead);
    if (o->form == SHMCOLL_BENCH_FORM_NONBLOCKING)
        fprintf(out, "%sform: non-blocking, timed from MPI_I* to the end of MPI_Wait%s%s\n", lead,
                o->waitall ? "all" : "",
                o->overlap ? "; overlap rows: percent of the call hidden behind computation "
                             "(OSU style: post, compute for the call's time, wait)"
                           : "");
    else if (o->form == SHMCOLL_BENCH_FORM_PERSISTENT)
        fprintf(out,
                "%sform: persistent, MPI_*_init once per row (not timed), timed from MPI_Start to "
                "the end of MPI_Wait%s\n",
                lead, o->waitall ? "all" : "");
    if (disabled && strcmp(disabled, "0") != 0) {
        fprintf(out, "%sSHMCOLL_DISABLE is set: both columns measure the MPI library\n", lead);
    }
    if (csv) {
        fprintf(out,
                "collective,cache_bust,bytes,count,type,p,iters,rounds,mpi_us,shmcoll_us,speedup,"
                "dav_bytes,dav_gbs,copy_gbs\n");
    } else {
        fprintf(out, "%-23s %6s %8s %12s %12s %8s %9s %9s\n", "collective", "size", "iters",
                "MPI us", "shmcoll us", "speedup", "DAV GB/s", "copy GB/s");
    }
    fflush(out);
}

void shmcoll_bench_report_header(const shmcoll_bench_options_t *o, int nprocs) {
    if (o->csv_file) {
        csv_file = fopen(o->csv_file, "w");
        if (!csv_file) {
            fprintf(stderr, "shmcoll-bench: cannot write %s: %s\n", o->csv_file, strerror(errno));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        header(csv_file, 1, o, nprocs);
    }
    header(stdout, o->csv, o, nprocs);
}

/* Speedups kept over the rows: the worst (its row) and how many fell below 1 and below 0.95. */
typedef struct speedups {
    double worst;
    char row[128];
    int rows, below, below_noise;
} speedups_t;

/* The promise, shmcoll against the MPI library; and the noise floor, the MPI library against
 * itself in the same loops (measure.c): how many rows of this run fall below 0.95x when both
 * columns are the MPI library's, to read the promise's count against. */
static speedups_t summary = {.worst = -1}, noise = {.worst = -1};

static void speedups_add(speedups_t *s, double speedup, const char *label, const char *size) {
    s->rows++;
    s->below += speedup < 1.0;
    s->below_noise += speedup < 0.95;
    if (s->worst < 0 || speedup < s->worst) {
        s->worst = speedup;
        snprintf(s->row, sizeof s->row, "%s %s", label, size);
    }
}

/* The machine's state at the start and the end of the run (0: not measured). */
#define COPY_DRIFT       0.2 /* of the copy bandwidth */
#define ROUND_TRIP_DRIFT 0.5 /* of a line's round trip */

/* One measure of the machine's state at the start and the end, and a warning naming the `rows` it
 * moves when it changed by more than `limit` (a fraction). */
static void state_line(FILE *out, const char *lead, const char *what, int digits, const char *unit,
                       double start, double end, double limit, const char *rows) {
    if (start <= 0 || end <= 0) return;
    fprintf(out, "%smachine: %s: %.*f %s at the start, %.*f %s at the end\n", lead, what, digits,
            start, unit, digits, end, unit);
    const double change = (end - start) / start;
    if (change > limit || change < -limit)
        fprintf(out,
                "%swarning: it changed by %+.0f%% during the run: %s were measured in different "
                "states of the machine\n",
                lead, 100 * change, rows);
}

static void state_lines(FILE *out, int csv, const shmcoll_bench_state_t *start,
                        const shmcoll_bench_state_t *end) {
    const char *lead = csv ? "# " : "";
    state_line(out, lead, "copy bandwidth of all ranks at once, 16 MiB each", 1, "GB/s",
               start->copy_gbs, end->copy_gbs, COPY_DRIFT, "its rows");
    state_line(out, lead, "a cache line's round trip between two ranks", 0, "ns",
               start->round_trip_ns, end->round_trip_ns, ROUND_TRIP_DRIFT, "its small rows");
}

static void summary_lines(FILE *out, int csv, const shmcoll_bench_state_t *start,
                          const shmcoll_bench_state_t *end) {
    const char *lead = csv ? "# " : "";
    state_lines(out, csv, start, end);
    fprintf(out, "%sworst speedup: %.2fx (%s)\n", lead, summary.worst, summary.row);
    fprintf(out, "%srows below 0.95x: %d of %d\n", lead, summary.below_noise, summary.rows);
    fprintf(out, "%srows below 1.0x: %d of %d\n", lead, summary.below, summary.rows);
    if (noise.rows)
        fprintf(out,
                "%snoise floor, the MPI library against itself (half its loops against the other "
                "half): %d of %d rows below 0.95x, worst %.2fx (%s)\n",
                lead, noise.below_noise, noise.rows, noise.worst, noise.row);
    fflush(out);
}

void shmcoll_bench_report_summary(const shmcoll_bench_options_t *o,
                                  const shmcoll_bench_state_t *start,
                                  const shmcoll_bench_state_t *end) {
    if (summary.rows) {
        if (csv_file) summary_lines(csv_file, 1, start, end);
        summary_lines(stdout, o->csv, start, end);
    }
    if (csv_file && fclose(csv_file) != 0) {
        fprintf(stderr, "shmcoll-bench: cannot write %s: %s\n", o->csv_file, strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    csv_file = NULL;
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
    /* The form in the name, as the statistics print it: iallreduce, allreduce_init. */
    char name[48];
    snprintf(name, sizeof name, "%s%s%s", c->form == SHMCOLL_BENCH_FORM_NONBLOCKING ? "i" : "",
             shmcoll_bench_coll_name(c->coll),
             c->form == SHMCOLL_BENCH_FORM_PERSISTENT ? "_init" : "");
    char dav[32], copy[32];
    gbs_text(dav_gbs, r->dav_known, 0, dav, sizeof dav);
    gbs_text(r->copy_gbs, 1, 0, copy, sizeof copy);
    char size[32], label[64];
    if (c->coll == SHMCOLL_BENCH_BARRIER)
        snprintf(size, sizeof size, "-");
    else
        size_text(c->bytes, size, sizeof size);
    /* Marked only where cache-busted rows sit next to plain ones. */
    const int mark = c->cache_bust && o->bust == SHMCOLL_BENCH_BUST_EXTRA;
    snprintf(label, sizeof label, "%s%s", name, mark ? "+cb" : "");
    /* A row whose MPI column computed a wrong result has no reference to keep a promise to. */
    if (!r->mpi_wrong) {
        speedups_add(&summary, speedup, label, size);
        if (r->mpi_self > 0) speedups_add(&noise, r->mpi_self, label, size); /* 4 rounds or more */
    }
    char dav_bytes[32] = "", dav_csv[32], copy_csv[32];
    if (r->dav_known) snprintf(dav_bytes, sizeof dav_bytes, "%.0f", r->dav);
    gbs_text(dav_gbs, r->dav_known, 1, dav_csv, sizeof dav_csv);
    gbs_text(r->copy_gbs, 1, 1, copy_csv, sizeof copy_csv);
    FILE *csv_out[2] = {o->csv ? stdout : NULL, csv_file};
    for (int i = 0; i < 2; i++) {
        if (!csv_out[i]) continue;
        fprintf(csv_out[i], "%s,%d,%zu,%zu,%s,%d,%ld,%d,%.3f,%.3f,%.3f,%s,%s,%s\n", name,
                c->cache_bust, c->bytes, c->count, shmcoll_bench_type_name(c->type), c->nprocs,
                r->iters, r->rounds, mpi, shm, speedup, dav_bytes, dav_csv, copy_csv);
        fflush(csv_out[i]);
    }
    if (!o->csv) {
        printf("%-23s %6s %8ld %12.2f %12.2f %7.2fx %9s %9s%s\n", label, size, r->iters, mpi, shm,
               speedup, dav, copy, r->mpi_wrong ? "  (the MPI library's result was wrong)" : "");
        if (r->overlap[0] >= 0)
            printf("%-23s %6s %8s %11.1f%% %11.1f%%\n", "  overlap", "", "",
                   r->overlap[SHMCOLL_BENCH_IMPL_MPI], r->overlap[SHMCOLL_BENCH_IMPL_SHMCOLL]);
        fflush(stdout);
    }
}
