/* Times MPI_Allreduce (doubles, MPI_SUM, MPI_COMM_WORLD), or with --bcast MPI_Bcast from rank 0,
 * through whatever the program resolves them to (the MPI library itself unless shmcoll is
 * preloaded), and counts the bytes each host's network interfaces sent and received meanwhile
 * (read from /proc/net/dev, which inside a node of the simulated cluster shows that node's own
 * interfaces).
 *
 *     mpi_allreduce_time [--bcast] [--seconds S] [--min-iters N] SIZE...   (SIZE: 8, 64k, 16M)
 *
 * Per size: 2 warm-up calls (the first checks the result), one timed call to pick the number of
 * iterations that lasts about S seconds (default 1, at least N = 3 iterations), a barrier, the
 * timed loop, a barrier. Reports the maximum over ranks of each rank's mean time per call, and per
 * host the bytes sent and received per call (all interfaces but loopback; the barriers around the
 * loop add a few hundred bytes per host, spread over the iterations). Every rank prints
 * "allreduce_time: rank R done" before MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct host_bytes {
    char name[MPI_MAX_PROCESSOR_NAME];
    int leader; /* rank 0 of its shared communicator: the one that reports for the host */
    unsigned long long tx, rx;
} host_bytes_t;

/* Bytes sent and received on every interface but loopback, or zeros when unreadable. */
static void net_counters(unsigned long long *tx, unsigned long long *rx) {
    *tx = *rx = 0;
    FILE *f = fopen("/proc/net/dev", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon) continue; /* the two header lines */
        *colon = '\0';
        char *name = line + strspn(line, " ");
        if (!strcmp(name, "lo")) continue;
        unsigned long long v[16];
        if (sscanf(colon + 1, "%llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                   &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]) == 9) {
            *rx += v[0];
            *tx += v[8];
        }
    }
    fclose(f);
}

static int bcast; /* time MPI_Bcast from rank 0 instead */

static void collective(double *send, double *recv, size_t n) {
    if (bcast)
        MPI_Bcast(recv, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    else
        MPI_Allreduce(send, recv, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

/* Bytes from "8", "64k", "1M", "2G" (powers of 1024). */
static size_t parse_size(const char *text) {
    char *end;
    double v = strtod(text, &end);
    const char *units = "kmg";
    const char *unit = *end ? strchr(units, *end | 0x20) : NULL;
    for (const char *u = units; unit && u <= unit; u++) v *= 1024;
    return (size_t)v;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int node_rank;
    MPI_Comm_rank(node, &node_rank);

    double seconds = 1.0;
    int min_iters = 3, failures = 0;
    host_bytes_t mine, *all = rank == 0 ? malloc(sizeof(host_bytes_t) * (size_t)p) : NULL;
    memset(&mine, 0, sizeof mine);
    int len;
    MPI_Get_processor_name(mine.name, &len);
    mine.leader = node_rank == 0;

    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--seconds") && a + 1 < argc) {
            seconds = atof(argv[++a]);
            continue;
        }
        if (!strcmp(argv[a], "--min-iters") && a + 1 < argc) {
            min_iters = atoi(argv[++a]);
            continue;
        }
        if (!strcmp(argv[a], "--bcast")) {
            bcast = 1;
            continue;
        }
        const size_t bytes = parse_size(argv[a]);
        const size_t n = bytes / sizeof(double) ? bytes / sizeof(double) : 1;
        double *send = malloc(n * sizeof(double)), *recv = malloc(n * sizeof(double));
        if (!send || !recv) MPI_Abort(MPI_COMM_WORLD, 2);
        for (size_t i = 0; i < n; i++) {
            send[i] = (double)(rank + (int)(i % 7));
            recv[i] = bcast && rank == 0 ? (double)(i % 7) : -1;
        }

        for (int warm = 0; warm < 2; warm++) collective(send, recv, n);
        for (size_t i = 0; i < n; i++)
            if (recv[i] !=
                (bcast ? 0 : (double)p * (p - 1) / 2) + (bcast ? 1 : p) * (double)(i % 7)) {
                failures++;
                break;
            }

        /* One timed call (the slowest rank's) decides the iterations, the same on every rank. */
        double t = MPI_Wtime();
        collective(send, recv, n);
        t = MPI_Wtime() - t;
        double tmax;
        MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        int iters = tmax > 0 ? (int)(seconds / tmax) : 100000;
        if (iters < min_iters) iters = min_iters;
        if (iters > 100000) iters = 100000;

        MPI_Barrier(MPI_COMM_WORLD);
        unsigned long long tx0, rx0, tx1, rx1;
        net_counters(&tx0, &rx0);
        double start = MPI_Wtime();
        for (int it = 0; it < iters; it++) collective(send, recv, n);
        double per_call = (MPI_Wtime() - start) / iters;
        MPI_Barrier(MPI_COMM_WORLD);
        net_counters(&tx1, &rx1);
        mine.tx = tx1 - tx0;
        mine.rx = rx1 - rx0;

        double slowest;
        MPI_Reduce(&per_call, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0,
                   MPI_COMM_WORLD);
        if (rank == 0) {
            printf("%s bytes=%zu ranks=%d iters=%d usec_per_call=%.1f\n",
                   bcast ? "bcast" : "allreduce", n * sizeof(double), p, iters, slowest * 1e6);
            for (int r = 0; r < p; r++)
                if (all[r].leader)
                    printf("  host %s: sent %.0f B/call, received %.0f B/call\n", all[r].name,
                           (double)all[r].tx / iters, (double)all[r].rx / iters);
            fflush(stdout);
        }
        free(send);
        free(recv);
    }
    int total = 0;
    MPI_Reduce(&failures, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s allreduce_time: %d wrong result(s)\n", total ? "FAIL" : "PASS", total);
    printf("allreduce_time: rank %d done\n", rank);
    fflush(stdout);
    free(all);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return total != 0;
}
