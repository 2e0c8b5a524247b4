/* MPI_Reduce with MPI_IN_PLACE at every root, at the shipped defaults: runs of the same call, so
 * that a communicator's first calls, the measurement's turns, the verdict (shmcoll's way or the
 * MPI library's) and the express path all serve some of them. MPICH before 4.1.2 crashes in its
 * own blocking MPI_Reduce in place at a root other than 0 from 512 doubles on (coll_reduction.c),
 * which shmcoll handed such calls on the MPI library's way: the job crashed on some calls.
 *
 * Vectors of 8, 512, 4096 and 65536 doubles, the root changing every RUN calls (rank p - 1 first),
 * every result checked at the root against the sum of the ranks' inputs, which change with the
 * call, and the non-roots' receive buffer NULL, as MPI allows. */
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

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    const int most = counts[NCOUNTS - 1];
    double *buf = check_alloc(most * sizeof *buf), *mine = check_alloc(most * sizeof *mine);
    for (int round = 0; round < ROUND; round++)
        for (int k = 0; k < NCOUNTS; k++)
            for (int j = 0; j < check_size; j++) {
                const int root = check_size - 1 - j;
                run(root, counts[k], buf, mine);
            }
    free(buf);
    free(mine);
    return check_finish(argv[0]);
}
