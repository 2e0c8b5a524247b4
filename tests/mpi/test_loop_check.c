/* The loop check (src/mpi/calibrate.c, check_begin): after a small band's measurement its verdict
 * and the rival serve stretches of calls in a row on their settled paths, the MPI library's on
 * the express path with each call stamped, and the stretches' times decide the band's way, on
 * every rank alike. Every rank counts every call of the band once, whichever path a call takes:
 * a rank whose stretch runs on the express path counts its calls when the band's next call comes
 * through the sequence, and one whose calls cannot take it (the root of a gatherv, whose count
 * arrays matter there) counts each as it comes; a stretch whose calls change arguments midway
 * gives the express path's calls back.
 *
 * Phases of calls in a row with the same arguments (gathers and gathervs of one double,
 * scattervs: where the verdicts of the measurements and the checks go is the machine's), then
 * gathers of two doubles (a band of their own, measured and checked in this phase) whose send
 * buffer moves between two every few calls (the stretch's express run cut short, its calls given
 * back), and on rank 0 only a third buffer now and then (the ranks' paths differ), then
 * reduce_scatters of one double a block, which the repeat path does not keep (their counts are not
 * recorded): shmcoll's stretch is stamped on the sequence; last, barriers
 * (measured and checked as a band of 0 bytes; no DAV tells their way, the verdict's log line
 * does). Every result is checked, and every rank must have taken the same way (shmcoll's or the
 * MPI library's, seen in its DAV) on every call. A count that went apart on one rank would hang the
 * measurement's agreements (the test's timeout) or part the ranks' ways. Registered with every
 * verdict the MPI library's (then every small band is checked, against shmcoll's fastest way, and
 * the line of a check is asked for) and at the shipped defaults. */
#include "mpi_check.h"

#include <stdio.h>
#include <stdlib.h>

#define PHASE_CALLS 1200 /* a measurement, its check's two stretches of 128, and more */

static double value(int from, int to, int call) {
    return (double)from * 1e6 + to * 1e4 + call;
}

enum { GATHER, GATHERV, SCATTERV, MOVING, REDUCE_SCATTER, KINDS };

/* One call of `kind` (MOVING: a gather of two doubles from one of three send buffers), checked;
 * returns 1 when it took one of shmcoll's ways (this rank's DAV grew). */
static int call_one(int kind, int call, double *send, double *recv, const int *counts,
                    const int *displs) {
    const int p = check_size, me = check_rank, root = 0;
    const int scatter = kind == SCATTERV;
    const unsigned long long before = check_dav();
    if (kind == REDUCE_SCATTER) { /* block j: the sum over the ranks of value(rank, j, call) */
        for (int j = 0; j < p; j++) send[j] = value(me, j, call);
        MPI_Reduce_scatter(send, recv, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        double sum = 0;
        for (int r = 0; r < p; r++) sum += value(r, me, call);
        CHECK(recv[0] == sum, "reduce_scatter call %d: %g, not %g", call, recv[0], sum);
        return check_dav() > before;
    }
    if (scatter) {
        for (int j = 0; j < p; j++) send[j] = value(root, j, call);
        MPI_Scatterv(send, counts, displs, MPI_DOUBLE, recv, 1, MPI_DOUBLE, root, MPI_COMM_WORLD);
    } else {
        /* MOVING: two buffers taking turns every 7 calls, and on rank 0 a third every 50th call */
        const int n = kind == MOVING ? 2 : 1;
        double *from = kind != MOVING ? send : send + 2 + 2 * ((call / 7) % 2);
        if (kind == MOVING && me == 0 && call % 50 == 49) from = send + 6;
        for (int i = 0; i < n; i++) from[i] = value(me, root, call) + i;
        if (kind == GATHERV)
            MPI_Gatherv(from, 1, MPI_DOUBLE, recv, counts, displs, MPI_DOUBLE, root,
                        MPI_COMM_WORLD);
        else
            MPI_Gather(from, n, MPI_DOUBLE, recv, n, MPI_DOUBLE, root, MPI_COMM_WORLD);
    }
    const int ours = check_dav() > before;
    const int n = kind == MOVING ? 2 : 1;
    if (scatter)
        CHECK(recv[0] == value(root, me, call), "scatterv call %d: %g", call, recv[0]);
    else if (me == root)
        for (int j = 0; j < p * n; j++)
            if (!CHECK(recv[j] == value(j / n, root, call) + j % n, "kind %d call %d: [%d] is %g",
                       kind, call, j, recv[j]))
                break;
    return ours;
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    const int p = check_size, calls = KINDS * PHASE_CALLS;
    double *send = malloc(((size_t)p + 8) * sizeof(double));
    double *recv = malloc(2 * (size_t)p * sizeof(double));
    int *counts = malloc(2 * (size_t)p * sizeof(int));
    char *ours = calloc((size_t)calls, 1);
    if (!CHECK(send && recv && counts && ours, "no memory")) return check_finish(argv[0]);
    int *displs = counts + p;
    for (int j = 0; j < p; j++) {
        counts[j] = 1;
        displs[j] = j;
    }
    for (int n = 0; n < calls; n++)
        ours[n] = (char)call_one(n / PHASE_CALLS, n, send, recv, counts, displs);
    for (int n = 0; n < PHASE_CALLS; n++) MPI_Barrier(MPI_COMM_WORLD);
    const int took = check_same_ways(ours, calls);
    if (check_rank == 0) printf("%d of %d calls on shmcoll's ways\n", took, calls);
    free(send);
    free(recv);
    free(counts);
    free(ours);
    return check_finish(argv[0]);
}
