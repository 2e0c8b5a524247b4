/* Odd and prime team sizes across the size range: allreduce, reduce (rotating roots) and bcast of
 * doubles from 8 B to 4 MiB, checked against values every rank computes locally. Run at p = 3, 7
 * and 13 (oversubscribed), where every algorithm's partitioning meets uneven splits. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double input(int rank, size_t i) {
    return rank * 3 + (double)(i % 1000);
}

static double sum(int p, size_t i) {
    return 3.0 * p * (p - 1) / 2 + p * (double)(i % 1000);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    long bad = 0;
    for (size_t bytes = 8; bytes <= ((size_t)4 << 20); bytes *= 4) {
        const size_t n = bytes / sizeof(double);
        double *send = malloc(bytes), *recv = malloc(bytes);
        if (!send || !recv) MPI_Abort(MPI_COMM_WORLD, 2);
        for (size_t i = 0; i < n; i++) send[i] = input(rank, i);
        MPI_Allreduce(send, recv, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (size_t i = 0; i < n; i++) bad += recv[i] != sum(p, i);
        const int root = (int)((bytes / 8) % (size_t)p);
        MPI_Reduce(send, recv, (int)n, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
        if (rank == root)
            for (size_t i = 0; i < n; i++) bad += recv[i] != sum(p, i);
        for (size_t i = 0; i < n; i++) recv[i] = rank == root ? (double)i * 7 : -1;
        MPI_Bcast(recv, (int)n, MPI_DOUBLE, root, MPI_COMM_WORLD);
        for (size_t i = 0; i < n; i++) bad += recv[i] != (double)i * 7;
        free(send);
        free(recv);
    }
    long total = 0;
    PMPI_Reduce(&bad, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("%s sizes p=%d: %ld wrong elements\n", total ? "FAIL" : "PASS", p, total);
    MPI_Finalize();
    return total != 0;
}
