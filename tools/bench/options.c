/* The command line of shmcoll-bench. Every rank parses the same argv, so every rank reaches the
 * same decision (run, help or error) without communicating; only rank 0 prints. */
#include "bench.h"
#include "shmcoll_mpi.h"

#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const coll_names[SHMCOLL_BENCH_NCOLL] = {
    "barrier",        "bcast",   "reduce",  "allreduce", "reduce_scatter_block",
    "reduce_scatter", "scan",    "exscan",  "allgather", "allgatherv",
    "gather",         "gatherv", "scatter", "scatterv",  "alltoall",
    "alltoallv"};

const char *shmcoll_bench_coll_name(shmcoll_bench_coll_t coll) {
    return coll_names[coll];
}

double shmcoll_bench_options_target(const shmcoll_bench_options_t *o, shmcoll_bench_coll_t coll) {
    if (o->target > 0) return o->target;
    return coll <= SHMCOLL_BENCH_ALLREDUCE ? 0.03 : 0.015;
}

int shmcoll_bench_coll_reduces(shmcoll_bench_coll_t coll) {
    switch (coll) {
    case SHMCOLL_BENCH_REDUCE:
    case SHMCOLL_BENCH_ALLREDUCE:
    case SHMCOLL_BENCH_REDUCE_SCATTER_BLOCK:
    case SHMCOLL_BENCH_REDUCE_SCATTER:
    case SHMCOLL_BENCH_SCAN:
    case SHMCOLL_BENCH_EXSCAN:
        return 1;
    default:
        return 0;
    }
}

int shmcoll_bench_coll_rooted(shmcoll_bench_coll_t coll) {
    switch (coll) {
    case SHMCOLL_BENCH_BCAST:
    case SHMCOLL_BENCH_REDUCE:
    case SHMCOLL_BENCH_GATHER:
    case SHMCOLL_BENCH_GATHERV:
    case SHMCOLL_BENCH_SCATTER:
    case SHMCOLL_BENCH_SCATTERV:
        return 1;
    default:
        return 0;
    }
}

const char *shmcoll_bench_type_name(shmcoll_bench_type_t type) {
    switch (type) {
    case SHMCOLL_BENCH_DOUBLE:
        return "double";
    case SHMCOLL_BENCH_INT:
        return "int";
    case SHMCOLL_BENCH_BYTE:
        return "byte";
    }
    return "?";
}

const char *shmcoll_bench_impl_name(shmcoll_bench_impl_t impl) {
    return impl == SHMCOLL_BENCH_IMPL_MPI ? "MPI" : "shmcoll";
}

static void usage(FILE *out) {
    fprintf(
        out,
        "usage: shmcoll-bench [options]\n"
        "Times the MPI library's collectives (PMPI_*) and shmcoll's (MPI_*) side by side.\n"
        "\n"
        "An MPI program: run it under the launcher of the MPI library it was built with, e.g.\n"
        "mpiexec -n 8 shmcoll-bench. For each collective and size it measures both\n"
        "implementations in the same run (warm-up, calibrated loops, alternating rounds, each\n"
        "loop's slowest rank, the median over loops), checks both results, and prints one row\n"
        "on rank 0. A wrong result of shmcoll's stops the run; one of the MPI library's own marks\n"
        "its row and leaves it out of the summary (MPICH 4.0.2's persistent allgather, say).\n"
        "\n"
        "options:\n"
        "  --coll LIST      collectives to run, comma-separated (default all):\n"
        "                   barrier, bcast, reduce, allreduce, reduce_scatter_block,\n"
        "                   reduce_scatter, scan, exscan, allgather, allgatherv, gather,\n"
        "                   gatherv, scatter, scatterv, alltoall, alltoallv\n"
        "  --min-size N     smallest size in bytes, suffixes k/M/G (default 8); per collective\n"
        "                   the vector (reductions, bcast) or one rank's block (gathers,\n"
        "                   scatters, all-to-alls; the mean block for the v variants)\n"
        "  --max-size N     largest message in bytes (default 64M)\n"
        "  --factor F       size step: min, min*F, min*F^2, ..., then max (default 8)\n"
        "  --iters N        timed iterations per loop (default: calibrated to --time)\n"
        "  --time S         seconds per timed loop when calibrating (default 0.03 for\n"
        "                   barrier, bcast, reduce, allreduce; 0.015 for the others)\n"
        "  --rounds R       timed loops per implementation, alternating (default 6; more,\n"
        "                   an even number, where that makes fewer than %d calls, unless\n"
        "                   --iters is given)\n"
        "  --root R         root of bcast, reduce, gather(v), scatter(v) (default 0)\n"
        "  --type T         double, int or byte; reductions use MPI_SUM (default double)\n"
        "  --cache-bust     rewrite the send buffer before every call (not timed), all rows\n"
        "  --cache-bust-from N  sizes from N up get an extra cache-busted row, marked +cb\n"
        "                   (default 64k)\n"
        "  --no-cache-bust-rows  no extra cache-busted rows\n"
        "  --no-copy        do not measure the memcpy bandwidth (copy GB/s column)\n"
        "  --form F         blocking (default), nonblocking (MPI_I* + MPI_Wait) or persistent\n"
        "                   (MPI_*_init once, then MPI_Start + MPI_Wait per call)\n"
        "  --overlap        with --form nonblocking: also the overlap of computation with\n"
        "                   each call, OSU style (post, compute for the call's time, wait;\n"
        "                   overlap = 1 - (total - compute) / call time); "
        "SHMCOLL_PROGRESS_THREAD=1\n"
        "                   lets shmcoll's calls advance during the computation\n"
        "  --waitall        with --form nonblocking or persistent: complete each call with\n"
        "                   MPI_Waitall of its one request instead of MPI_Wait, as programs\n"
        "                   that wait for several requests at once do\n"
        "  --alloc-mem      allocate the buffers with MPI_Alloc_mem (shmcoll serves it from\n"
        "                   its shared heap, where collectives move each block once; both\n"
        "                   columns use the same buffers); default: malloc\n"
        "  --first-calls N  time the first calls on a communicator, as OSU-style benchmarks\n"
        "                   do: every loop on a fresh duplicate of MPI_COMM_WORLD, N/10\n"
        "                   untimed calls, then N calls each timed alone after a barrier\n"
        "                   (shmcoll's measurement of its ways included); no calibration\n"
        "  --own-barrier    calls timed alone (--first-calls, --cache-bust) follow each\n"
        "                   implementation's own barrier, MPI_Barrier before shmcoll's, as\n"
        "                   OSU's loops run preloaded and natively do (default: PMPI_Barrier)\n"
        "  --rank-mean      a loop's time per call is the mean over the ranks (OSU's average\n"
        "                   latency), not the slowest rank's: where a rank leaves a call\n"
        "                   early (a root, eager sends) the two differ\n"
        "  --csv            machine-readable output: CSV instead of the table\n"
        "  --csv-file FILE  also write the results as CSV to FILE (the table, or --csv,\n"
        "                   still goes to standard output); shmcoll-bench-plot draws it\n"
        "  --fingerprint    print what this machine and MPI library are, as tuning files\n"
        "                   record it (shmcoll-tune), and exit\n"
        "  --help           this text\n"
        "\n"
        "output:\n"
        "  Header lines (the MPI library, the machine, how times are taken, what a size\n"
        "  means), then one row per collective and size: iterations, the MPI library's and\n"
        "  shmcoll's time per call in microseconds, the speedup (MPI time / shmcoll time),\n"
        "  DAV GB/s (bytes shmcoll's kernels loaded and stored per second) and copy GB/s\n"
        "  (the memcpy bandwidth of all ranks at that size). Rows marked +cb rewrite the send\n"
        "  buffer before every call. Last, the worst speedup, the rows below 0.95x and\n"
        "  1.0x, and the run's noise floor: the rows below 0.95x when half the MPI library's\n"
        "  loops of each row are set against its other half (4 rounds or more).\n"
        "  CSV: the header lines start with '#', then a line of column names:\n"
        "  collective,cache_bust,bytes,count,type,p,iters,rounds,mpi_us,shmcoll_us,speedup,\n"
        "  dav_bytes,dav_gbs,copy_gbs\n"
        "\n"
        "environment:\n"
        "  The knobs of the library (SHMCOLL_*, see shmcoll-info) apply to the shmcoll column:\n"
        "  SHMCOLL_TUNE=allreduce:@ma times one algorithm, SHMCOLL_DISABLE=1 makes both columns\n"
        "  measure the MPI library.\n"
        "\n"
        "exit status:\n"
        "  0 when every row was measured (or after --help, --fingerprint); 2 for a bad option;\n"
        "  the run aborts (MPI_Abort) with 3 on a wrong result, naming the collective, size\n"
        "  and rank, with 4 when a call fails, and with 1 when memory or the CSV file fails.\n"
        "\n"
        "examples:\n"
        "  mpiexec -n 8 shmcoll-bench --coll allreduce,bcast --max-size 16M\n"
        "  mpiexec -n 8 shmcoll-bench --csv-file bench.csv && shmcoll-bench-plot bench.csv\n",
        SHMCOLL_BENCH_MIN_CALLS);
}

/* "64k", "2M", "1g", "4096", "8B", "16MiB" -> bytes (binary multiples); 0 when malformed. */
static size_t parse_size(const char *text) {
    char *end;
    unsigned long long value = strtoull(text, &end, 10);
    if (end == text || text[0] == '-') return 0;
    static const char units[] = "kmg";
    const char *unit = *end ? strchr(units, tolower((unsigned char)*end)) : NULL;
    unsigned shift = unit ? 10 * (unsigned)(unit - units + 1) : 0;
    if (unit) end++;
    if (shift && *end == 'i') end++;
    if (*end == 'b' || *end == 'B') end++;
    if (*end != '\0' || value > (~0ULL >> shift)) return 0;
    return (size_t)(value << shift);
}

static int parse_colls(char *list, int *run) {
    memset(run, 0, sizeof(int) * SHMCOLL_BENCH_NCOLL);
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name;
         name = strtok_r(NULL, ",", &save)) {
        int all = strcasecmp(name, "all") == 0, found = all;
        for (int c = 0; c < SHMCOLL_BENCH_NCOLL; c++) {
            if (all || strcasecmp(name, coll_names[c]) == 0) run[c] = found = 1;
        }
        if (!found) return -1;
    }
    return 0;
}

/* The index of `text` in a NULL-terminated list of names in enum order, or -1. */
static int pick(const char *text, const char *const *names) {
    for (int i = 0; names[i]; i++)
        if (strcmp(text, names[i]) == 0) return i;
    return -1;
}

static const char *const type_names[] = {"double", "int", "byte", NULL};
static const char *const form_names[] = {"blocking", "nonblocking", "persistent", NULL};

static int fail(int rank, const char *what, const char *value) {
    if (rank == 0) {
        fprintf(stderr, "shmcoll-bench: %s%s%s\n", what, value ? ": " : "", value ? value : "");
        usage(stderr);
    }
    return 2;
}

int shmcoll_bench_options_parse(int argc, char **argv, int rank, int nprocs,
                                shmcoll_bench_options_t *o) {
    static const struct option longopts[] = {{"coll", required_argument, NULL, 'c'},
                                             {"min-size", required_argument, NULL, 'm'},
                                             {"max-size", required_argument, NULL, 'M'},
                                             {"factor", required_argument, NULL, 'f'},
                                             {"iters", required_argument, NULL, 'i'},
                                             {"time", required_argument, NULL, 't'},
                                             {"rounds", required_argument, NULL, 'r'},
                                             {"root", required_argument, NULL, 'R'},
                                             {"type", required_argument, NULL, 'T'},
                                             {"cache-bust", no_argument, NULL, 'b'},
                                             {"cache-bust-from", required_argument, NULL, 'B'},
                                             {"no-cache-bust-rows", no_argument, NULL, 'N'},
                                             {"no-copy", no_argument, NULL, 'n'},
                                             {"csv", no_argument, NULL, 'C'},
                                             {"csv-file", required_argument, NULL, 'o'},
                                             {"fingerprint", no_argument, NULL, 'F'},
                                             {"form", required_argument, NULL, 'x'},
                                             {"overlap", no_argument, NULL, 'O'},
                                             {"alloc-mem", no_argument, NULL, 'A'},
                                             {"first-calls", required_argument, NULL, 'P'},
                                             {"own-barrier", no_argument, NULL, 'W'},
                                             {"rank-mean", no_argument, NULL, 'a'},
                                             {"waitall", no_argument, NULL, 'w'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    *o = (shmcoll_bench_options_t){.min_size = 8,
                                   .max_size = (size_t)64 << 20,
                                   .factor = 8,
                                   .rounds = 6,
                                   .type = SHMCOLL_BENCH_DOUBLE,
                                   .bust = SHMCOLL_BENCH_BUST_EXTRA,
                                   .bust_min = (size_t)64 << 10,
                                   .copy = 1};
    for (int c = 0; c < SHMCOLL_BENCH_NCOLL; c++) o->run[c] = 1;

    opterr = 0; /* messages come from fail(), on rank 0 only */
    int opt, no_extra = 0, choice;
    char *end;
    while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (opt) {
        case 'c':
            if (parse_colls(optarg, o->run) != 0) return fail(rank, "unknown collective", optarg);
            break;
        case 'm':
            if ((o->min_size = parse_size(optarg)) == 0) return fail(rank, "bad size", optarg);
            break;
        case 'M':
            if ((o->max_size = parse_size(optarg)) == 0) return fail(rank, "bad size", optarg);
            break;
        case 'f':
            o->factor = parse_size(optarg);
            if (o->factor < 2) return fail(rank, "--factor must be at least 2", optarg);
            break;
        case 'i':
            o->iters = strtol(optarg, &end, 10);
            if (*end || o->iters < 1)
                return fail(rank, "--iters must be a positive integer", optarg);
            break;
        case 't':
            o->target = strtod(optarg, &end);
            if (*end || !(o->target > 0)) return fail(rank, "--time must be positive", optarg);
            break;
        case 'r':
            o->rounds = (int)strtol(optarg, &end, 10);
            if (*end || o->rounds < 1) return fail(rank, "--rounds must be at least 1", optarg);
            break;
        case 'R':
            o->root = (int)strtol(optarg, &end, 10);
            if (*end || o->root < 0 || o->root >= nprocs) {
                return fail(rank, "--root must be a rank of MPI_COMM_WORLD", optarg);
            }
            break;
        case 'T':
            if ((choice = pick(optarg, type_names)) < 0)
                return fail(rank, "--type must be double, int or byte", optarg);
            o->type = (shmcoll_bench_type_t)choice;
            break;
        case 'b':
            o->bust = SHMCOLL_BENCH_BUST_ALL;
            break;
        case 'B':
            if ((o->bust_min = parse_size(optarg)) == 0) return fail(rank, "bad size", optarg);
            break;
        case 'N':
            no_extra = 1;
            break;
        case 'n':
            o->copy = 0;
            break;
        case 'C':
            o->csv = 1;
            break;
        case 'o':
            o->csv_file = optarg;
            break;
        case 'x':
            if ((choice = pick(optarg, form_names)) < 0)
                return fail(rank, "--form must be blocking, nonblocking or persistent", optarg);
            o->form = (shmcoll_bench_form_t)choice;
            break;
        case 'O':
            o->overlap = 1;
            break;
        case 'w':
            o->waitall = 1;
            break;
        case 'A':
            o->alloc_mem = 1;
            break;
        case 'P':
            o->first_calls = strtol(optarg, &end, 10);
            if (*end || o->first_calls < 1)
                return fail(rank, "--first-calls must be a positive integer", optarg);
            break;
        case 'W':
            o->own_barrier = 1;
            break;
        case 'a':
            o->rank_mean = 1;
            break;
        case 'F':
            if (rank == 0) {
                char text[512];
                shmcoll_fingerprint(text, (int)sizeof text);
                printf("%s\n", text);
            }
            return 1;
        case 'h':
            if (rank == 0) usage(stdout);
            return 1;
        default:
            return fail(rank, "unknown option", argv[optind - 1]);
        }
    }
    if (optind < argc) return fail(rank, "unexpected argument", argv[optind]);
    /* --cache-bust wins: every row is already cache-busted. */
    if (no_extra && o->bust == SHMCOLL_BENCH_BUST_EXTRA) o->bust = SHMCOLL_BENCH_BUST_NONE;
    if (o->min_size > o->max_size) return fail(rank, "--min-size exceeds --max-size", NULL);
    if (o->overlap && o->form != SHMCOLL_BENCH_FORM_NONBLOCKING)
        return fail(rank, "--overlap needs --form nonblocking", NULL);
    if (o->waitall && o->form == SHMCOLL_BENCH_FORM_BLOCKING)
        return fail(rank, "--waitall needs --form nonblocking or persistent", NULL);
    if (o->first_calls && (o->iters || o->overlap || o->form != SHMCOLL_BENCH_FORM_BLOCKING))
        return fail(rank, "--first-calls goes with none of --iters, --overlap, --form", NULL);
    if (o->own_barrier && !o->first_calls && o->bust != SHMCOLL_BENCH_BUST_ALL)
        return fail(rank, "--own-barrier goes with --first-calls or --cache-bust", NULL);
    return 0;
}
