/* A loop of one collective with the same arguments, as an application's inner loop calls it: the
 * program scripts/count-instructions.sh runs under callgrind to count the instructions one call
 * costs on each rank, and that prints the time per call of the loop (the maximum over ranks).
 *
 * usage: call_loop <collective> <calls> <bytes> [pmpi]
 *   collective: bcast, reduce, allreduce, gather, scatter, gatherv, scatterv, allgather,
 *               alltoall, scan, exscan, barrier; root 0; reductions sum doubles
 *   pmpi:       1 calls the MPI library's collective (PMPI_*) instead of the interposed one */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct loop {
    const char *coll;
    int pmpi;
    int bytes;
    char *send, *recv;
    int *counts, *displs;
} loop_t;

/* One call of the collective, interposed or the MPI library's own. */
static int call(const loop_t *l) {
    const int n = l->bytes, d = l->bytes / (int)sizeof(double);
    MPI_Comm w = MPI_COMM_WORLD;
#define CALL(Name, ...) (l->pmpi ? PMPI_##Name(__VA_ARGS__) : MPI_##Name(__VA_ARGS__))
    if (!strcmp(l->coll, "bcast")) return CALL(Bcast, l->send, n, MPI_BYTE, 0, w);
    if (!strcmp(l->coll, "reduce"))
        return CALL(Reduce, l->send, l->recv, d, MPI_DOUBLE, MPI_SUM, 0, w);
    if (!strcmp(l->coll, "allreduce"))
        return CALL(Allreduce, l->send, l->recv, d, MPI_DOUBLE, MPI_SUM, w);
    if (!strcmp(l->coll, "scan")) return CALL(Scan, l->send, l->recv, d, MPI_DOUBLE, MPI_SUM, w);
    if (!strcmp(l->coll, "exscan"))
        return CALL(Exscan, l->send, l->recv, d, MPI_DOUBLE, MPI_SUM, w);
    if (!strcmp(l->coll, "gather"))
        return CALL(Gather, l->send, n, MPI_BYTE, l->recv, n, MPI_BYTE, 0, w);
    if (!strcmp(l->coll, "scatter"))
        return CALL(Scatter, l->send, n, MPI_BYTE, l->recv, n, MPI_BYTE, 0, w);
    if (!strcmp(l->coll, "gatherv"))
        return CALL(Gatherv, l->send, n, MPI_BYTE, l->recv, l->counts, l->displs, MPI_BYTE, 0, w);
    if (!strcmp(l->coll, "scatterv"))
        return CALL(Scatterv, l->send, l->counts, l->displs, MPI_BYTE, l->recv, n, MPI_BYTE, 0, w);
    if (!strcmp(l->coll, "allgather"))
        return CALL(Allgather, l->send, n, MPI_BYTE, l->recv, n, MPI_BYTE, w);
    if (!strcmp(l->coll, "alltoall"))
        return CALL(Alltoall, l->send, n, MPI_BYTE, l->recv, n, MPI_BYTE, w);
    if (!strcmp(l->coll, "barrier")) return CALL(Barrier, w);
#undef CALL
    return -1;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 4) {
        if (rank == 0) fprintf(stderr, "usage: %s <collective> <calls> <bytes> [pmpi]\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    loop_t l = {.coll = argv[1], .bytes = atoi(argv[3]), .pmpi = argc > 4 && atoi(argv[4])};
    const long calls = atol(argv[2]);
    const size_t buffer = (size_t)(l.bytes > 8 ? l.bytes : 8) * (size_t)size;
    l.send = calloc(buffer, 1);
    l.recv = calloc(buffer, 1);
    l.counts = calloc((size_t)size, sizeof(int));
    l.displs = calloc((size_t)size, sizeof(int));
    if (!l.send || !l.recv || !l.counts || !l.displs) MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < size; i++) l.counts[i] = l.bytes, l.displs[i] = i * l.bytes;
    if (call(&l) < 0) {
        if (rank == 0) fprintf(stderr, "call_loop: unknown collective %s\n", l.coll);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (long i = 0; i < calls; i++) call(&l);
    double seconds = MPI_Wtime() - start, slowest;
    PMPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s %d B %s: %.3f us per call\n", l.coll, l.bytes, l.pmpi ? "PMPI" : "MPI",
               slowest / (double)calls * 1e6);
    free(l.send), free(l.recv), free(l.counts), free(l.displs);
    MPI_Finalize();
    return 0;
}
