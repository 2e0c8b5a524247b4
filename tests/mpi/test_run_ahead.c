/* Runs ahead on the MPI library's way (src/mpi/repeat.c, run_ahead): a kept call whose band's
 * verdict is the MPI library's counts the band's calls up to its next measurement at once, and
 * the same arguments then go straight to the MPI library; a call with other arguments gives back
 * what was not used. Every rank must count every call of a band alike, whichever of its calls ran
 * ahead, or the ranks part at the band's next measurement (one in a barrier or on shmcoll's way,
 * the other in the MPI library's collective): a hang.
 *
 * Run with SHMCOLL_CALIBRATE_MARGIN=-100000 (every measured band's verdict the MPI library's) and
 * SHMCOLL_CALIBRATE=4 (measurements every few hundred calls). The ranks' calls differ in what
 * runs ahead: rank 0 repeats its arguments, rank 1 changes its gather's send buffer every 7
 * calls and its bcast's every 13 (its runs end there, rank 0's do not); every 50 calls a
 * collective on another communicator comes between (a run met from there); alltoallv's band
 * follows its shared key (the ranks' mean share, agreed every few calls); allgatherv's key reads
 * its count array, so it never runs ahead; bcast's band changes every 600 calls. Every result is
 * checked, and every rank must have taken the same way on every call (shmcoll's ways move bytes
 * on every rank, the MPI library's none: this rank's DAV). */
#include "mpi_check.h"

#include <stdio.h>
#include <stdlib.h>

#define CALLS 4000
#define KINDS 4 /* gather, bcast, alltoallv, allgatherv */

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    const int p = check_size, me = check_rank;
    MPI_Comm other;
    MPI_Comm_dup(MPI_COMM_WORLD, &other);
    double send[2][64], recv[64 * 64], bcast[2][64], one = 1, sum;
    int counts[64], displs[64];
    for (int j = 0; j < p; j++) {
        counts[j] = 1;
        displs[j] = j;
    }
    char *ours = calloc((size_t)CALLS * KINDS, 1);
    if (!CHECK(p <= 64 && ours, "no memory or too many ranks")) return check_finish(argv[0]);
    for (int call = 0; call < CALLS; call++) {
        char *took = ours + (size_t)call * KINDS;
        /* gather of one double: rank 1 switches buffers every 7 calls */
        double *mine = send[me == 1 ? call / 7 % 2 : 0];
        mine[0] = me * 1000.0 + call;
        unsigned long long before = check_dav();
        MPI_Gather(mine, 1, MPI_DOUBLE, recv, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        took[0] = check_dav() > before;
        for (int j = 0; me == 0 && j < p; j++)
            if (!CHECK(recv[j] == j * 1000.0 + call, "gather call %d block %d", call, j)) break;
        /* bcast from the last rank, 1 or 8 doubles by phase; rank 1 switches buffers */
        const int n = call / 600 % 2 ? 8 : 1;
        double *b = bcast[me == 1 ? call / 13 % 2 : 0];
        for (int i = 0; i < n; i++) b[i] = me == p - 1 ? call + i : -1;
        before = check_dav();
        MPI_Bcast(b, n, MPI_DOUBLE, p - 1, MPI_COMM_WORLD);
        took[1] = check_dav() > before;
        for (int i = 0; i < n; i++)
            if (!CHECK(b[i] == call + i, "bcast call %d [%d]", call, i)) break;
        /* alltoallv of one double per pair */
        for (int j = 0; j < p; j++) send[0][j] = me * 100.0 + j + call;
        before = check_dav();
        MPI_Alltoallv(send[0], counts, displs, MPI_DOUBLE, recv, counts, displs, MPI_DOUBLE,
                      MPI_COMM_WORLD);
        took[2] = check_dav() > before;
        for (int j = 0; j < p; j++)
            if (!CHECK(recv[j] == j * 100.0 + me + call, "alltoallv call %d block %d", call, j))
                break;
        /* allgatherv of one double each */
        send[1][0] = me + call;
        before = check_dav();
        MPI_Allgatherv(send[1], 1, MPI_DOUBLE, recv, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
        took[3] = check_dav() > before;
        for (int j = 0; j < p; j++)
            if (!CHECK(recv[j] == j + call, "allgatherv call %d block %d", call, j)) break;
        if (call % 50 == 49) { /* another communicator's call between */
            MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, other);
            CHECK(sum == p, "allreduce on the other communicator, call %d", call);
        }
    }
    /* call i / KINDS of kind i % KINDS */
    const int theirs = CALLS * KINDS - check_same_ways(ours, CALLS * KINDS);
    /* The verdicts are the MPI library's: most calls went there. */
    CHECK(theirs > CALLS * KINDS / 2, "%d of %d calls on the MPI library's way", theirs,
          CALLS * KINDS);
    if (me == 0) printf("%d of %d calls on the MPI library's way\n", theirs, CALLS * KINDS);
    MPI_Comm_free(&other);
    free(ours);
    return check_finish(argv[0]);
}
