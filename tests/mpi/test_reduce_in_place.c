/* MPI_Reduce with MPI_IN_PLACE at every root, and MPI_Reduce_scatter in place with uneven blocks,
 * at the shipped defaults: runs of the same call, so that a communicator's first calls, the
 * measurement's turns, the verdict (shmcoll's way or the MPI library's) and the express path all
 * serve some of them. MPICH before 4.1.2 crashes in its own blocking MPI_Reduce in place at a
 * root other than 0 from 512 doubles on, and MPICH 4.0.2 aborts in its own MPI_Reduce_scatter in
 * place with uneven blocks from some 800 KB on (src/mpi/library_faults.h); shmcoll handed it
 * such calls on the MPI library's way, and the job failed on some calls.
 *
 * reduce: vectors of 8, 512, 4096 and 65536 doubles, the root changing every RUN calls (rank
 * p - 1 first), the non-roots' receive buffer NULL, as MPI allows. reduce_scatter: rank j's block
 * (j + 1) x b doubles, b of 8, 1024 and 100000. Every result is checked against the sum of the
 * ranks' inputs, which change with the call. */
#include "mpi_check.h"

#include <stdlib.h>

#define RUN   160 /* calls in a row at one root and size */
#define ROUND 2   /* times every root comes */

static const int counts[] = {8, 512, 4096, 65536};
#define NCOUNTS ((int)(sizeof counts / sizeof *counts))

static double input(int rank, int i, int call) {
    return (double)(rank * 7 + i % 1000 + call % 13);
}

/* One run of RUN calls at `root` of n doubles. */
static void run(int root, int n, double *buf, double *mine) {
    const int p = check_size, me = check_rank;
    for (int call = 0; call < RUN; call++) {
        for (int i = 0; i < n; i++) mine[i] = input(me, i, call);
        int rc;
        if (me == root) {
            for (int i = 0; i < n; i++) buf[i] = mine[i];
            rc = MPI_Reduce(MPI_IN_PLACE, buf, n, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
        } else {
            rc = MPI_Reduce(mine, NULL, n, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
        }
        if (!CHECK(rc == MPI_SUCCESS, "reduce root %d count %d call %d: rc %d", root, n, call, rc))
            return;
        if (me != root) continue;
        for (int i = 0; i < n; i++) {
            double want = 0;
            for (int r = 0; r < p; r++) want += input(r, i, call);
            if (!CHECK(buf[i] == want, "reduce root %d count %d call %d: element %d is %g, not %g",
                       root, n, call, i, buf[i], want))
                return;
        }
    }
}

/* `calls` calls of MPI_Reduce_scatter in place, rank j's block (j + 1) x b doubles. */
static void run_scatter(int b, int calls, double *buf) {
    const int p = check_size, me = check_rank;
    int *counts = check_alloc(p * sizeof *counts), total = 0, mine = 0;
    for (int j = 0; j < p; j++) {
        counts[j] = (j + 1) * b;
        if (j < me) mine += counts[j];
        total += counts[j];
    }
    for (int call = 0; call < calls; call++) {
        for (int i = 0; i < total; i++) buf[i] = input(me, i, call);
        const int rc =
            MPI_Reduce_scatter(MPI_IN_PLACE, buf, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (!CHECK(rc == MPI_SUCCESS, "reduce_scatter b %d call %d: rc %d", b, call, rc)) break;
        int bad = -1;
        for (int i = 0; i < counts[me] && bad < 0; i++) {
            double want = 0;
            for (int r = 0; r < p; r++) want += input(r, mine + i, call);
            if (buf[i] != want) bad = i;
        }
        if (!CHECK(bad < 0, "reduce_scatter b %d call %d: element %d of rank %d's block differs", b,
                   call, bad, me))
            break;
    }
    free(counts);
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    const int scatter_most = 100000 * check_size * (check_size + 1) / 2;
    const int most = counts[NCOUNTS - 1] > scatter_most ? counts[NCOUNTS - 1] : scatter_most;
    double *buf = check_alloc(most * sizeof *buf), *mine = check_alloc(most * sizeof *mine);
    for (int round = 0; round < ROUND; round++)
        for (int k = 0; k < NCOUNTS; k++)
            for (int j = 0; j < check_size; j++) {
                const int root = check_size - 1 - j;
                run(root, counts[k], buf, mine);
            }
    run_scatter(8, RUN, buf);
    run_scatter(1024, RUN, buf);
    run_scatter(100000, RUN / 4, buf);
    free(buf);
    free(mine);
    return check_finish(argv[0]);
}
