/* SHMCOLL_CHECK=1. Without SHMCOLL_TEST_MISMATCH: every collective with matching arguments (in
 * place and not, rooted at another rank, v-variants with uneven counts, a derived datatype
 * against its signature in bytes) must pass the check and give the right result. With
 * SHMCOLL_TEST_MISMATCH=count: rank r passes count 4 << r to MPI_Allreduce, which the check must
 * stop with an error naming MPI_Allreduce, the count and two ranks, and end the job. */
#include "mpi_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void mismatch(void) {
    double in[64] = {0}, out[64];
    const int count = 4 << (check_rank < 4 ? check_rank : 4);
    MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    /* Not reached: the check ends the job. */
    printf("rank %d: the mismatched MPI_Allreduce returned\n", check_rank);
}

static void matched(void) {
    const int p = check_size, me = check_rank, root = p - 1;
    long in[4] = {me, me, me, me}, out[4];
    MPI_Allreduce(in, out, 4, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(out[3] == (long)p * (p - 1) / 2, "allreduce %ld", out[3]);
    out[0] = 1;
    MPI_Allreduce(MPI_IN_PLACE, out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(out[0] == p, "allreduce in place %ld", out[0]);
    MPI_Reduce(me == root ? MPI_IN_PLACE : in, in, 4, MPI_LONG, MPI_MAX, root, MPI_COMM_WORLD);
    MPI_Scan(in, out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);

    /* bcast: the root sends 2 pairs of ints as MPI_INT x 4, the others receive 1 x 16 bytes */
    int ints[4] = {1, 2, 3, 4};
    MPI_Datatype bytes16;
    MPI_Type_contiguous(16, MPI_BYTE, &bytes16);
    MPI_Type_commit(&bytes16);
    if (me == 0)
        MPI_Bcast(ints, 4, MPI_INT, 0, MPI_COMM_WORLD);
    else
        MPI_Bcast(ints, 1, bytes16, 0, MPI_COMM_WORLD);
    MPI_Type_free(&bytes16);
    CHECK(ints[3] == 4, "bcast %d", ints[3]);

    int *all = check_alloc((size_t)p * p * sizeof *all), *counts = check_alloc(p * sizeof *counts);
    int *displs = check_alloc(p * sizeof *displs), mine[64];
    for (int j = 0, at = 0; j < p; j++) counts[j] = j + 1, displs[j] = at, at += j + 1;
    for (int k = 0; k < 64; k++) mine[k] = me;
    MPI_Gather(mine, 1, MPI_INT, all, 1, MPI_INT, root, MPI_COMM_WORLD);
    MPI_Gatherv(mine, me + 1, MPI_INT, all, counts, displs, MPI_INT, root, MPI_COMM_WORLD);
    MPI_Scatter(all, 1, MPI_INT, mine, 1, MPI_INT, root, MPI_COMM_WORLD);
    MPI_Scatterv(all, counts, displs, MPI_INT, mine, me + 1, MPI_INT, root, MPI_COMM_WORLD);
    MPI_Allgather(mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgatherv(mine, me + 1, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoall(all, 1, MPI_INT, all + p, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Reduce_scatter(all, mine, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(all, mine, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    free(all);
    free(counts);
    free(displs);
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    const char *mode = getenv("SHMCOLL_TEST_MISMATCH");
    if (mode && !strcmp(mode, "count"))
        mismatch();
    else
        matched();
    return check_finish("test_check");
}
