/* SHMCOLL_STATS=1 reports what the program did: a known sequence of calls, whose expected counts
 * (tallied with the library's counting rule, see mpi_check.h) run_mpi.py compares with the
 * printed lines. For the large allreduces the DAV is also bounded: the movement-avoiding
 * allreduce costs (5p - 1) s per operation of s bytes (summed over all ranks); the check allows a
 * factor of two either way. */
#include "mpi_check.h"

#include <stdio.h>
#include <stdlib.h>

#define BIG       (1 << 17) /* doubles: 1 MiB */
#define BIG_CALLS 10

static void pair_sum(void *in_, void *inout_, int *len, MPI_Datatype *type) {
    const int *in = in_;
    int *inout = inout_;
    for (int k = 0; k < *len; k++) inout[3 * k] += in[3 * k], inout[3 * k + 2] += in[3 * k + 2];
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    const int p = check_size;

    double *in = malloc(BIG * sizeof(double)), *out = malloc(BIG * sizeof(double));
    for (int i = 0; i < BIG; i++) in[i] = (double)(check_rank + i % 7);
    for (int call = 0; call < BIG_CALLS; call++) {
        int rc = MPI_Allreduce(in, out, BIG, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        check_expect(CHECK_ALLREDUCE, MPI_COMM_WORLD, 1, BIG, MPI_DOUBLE);
        CHECK(rc == MPI_SUCCESS, "allreduce rc %d", rc);
    }
    for (int i = 0; i < BIG; i++)
        if (!CHECK(out[i] == (double)p * (p - 1) / 2 + (double)p * (i % 7), "allreduce [%d]", i))
            break;

    char bytes[4096];
    for (int call = 0; call < 5; call++) {
        MPI_Bcast(bytes, sizeof bytes, MPI_BYTE, call % p, MPI_COMM_WORLD);
        check_expect(CHECK_BCAST, MPI_COMM_WORLD, 1, sizeof bytes, MPI_BYTE);
    }
    int ints[1000], sums[1000];
    for (int i = 0; i < 1000; i++) ints[i] = i;
    for (int call = 0; call < 3; call++) {
        MPI_Reduce(ints, sums, 1000, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        check_expect(CHECK_REDUCE, MPI_COMM_WORLD, 1, 1000, MPI_INT);
    }
    for (int call = 0; call < 2; call++) {
        MPI_Barrier(MPI_COMM_WORLD);
        check_expect(CHECK_BARRIER, MPI_COMM_WORLD, 1, 0, MPI_BYTE);
    }

    /* two calls the library passes to MPI: a vector type with gaps */
    MPI_Datatype pair;
    MPI_Op op;
    MPI_Type_vector(2, 1, 2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Op_create(pair_sum, 1, &op);
    int vin[30] = {0}, vout[30];
    for (int call = 0; call < 2; call++) {
        MPI_Allreduce(vin, vout, 10, pair, op, MPI_COMM_WORLD);
        check_expect(CHECK_ALLREDUCE, MPI_COMM_WORLD, 0, 10, pair);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&pair);

    /* one allreduce on each half: two operations */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, check_rank < p / 2, check_rank, &half);
    long one = 1, count = 0;
    MPI_Allreduce(&one, &count, 1, MPI_LONG, MPI_SUM, half);
    check_expect(CHECK_ALLREDUCE, half, 1, 1, MPI_LONG);
    MPI_Comm_free(&half);

    if (check_rank == 0 && p > 1) {
        double s = (double)BIG * sizeof(double), model = BIG_CALLS * (5.0 * p - 1) * s;
        printf("expect: allreduce dav>=%.0f dav<=%.0f\n", model / 2, model * 2);
    }
    free(in);
    free(out);
    return check_finish("test_stats");
}
