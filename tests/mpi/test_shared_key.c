/* The measurement of the collectives whose sizes only some ranks know (gatherv, scatterv,
 * alltoallv; src/mpi/calibrate.c, share_key): their size band is the ranks' mean share, agreed
 * every few calls, so that each size is measured on its own and every rank takes the same way on
 * every call, however differently its own share falls.
 *
 * Rank r's block is (r + 1) x s doubles (alltoallv: r sends blocks of its size, receives rank j's
 * of j's), so the ranks' own shares lie in different size bands. First three phases of one s each
 * (1, 512, 8192 doubles), every collective interleaved, then calls whose s changes at every call
 * (the same sequence on every rank) and where rank 0's block is sometimes empty. Every result is
 * checked, and every rank must have taken the same way (shmcoll's or the MPI library's, seen in
 * its DAV) on every call where every rank moves bytes. Run at the shipped defaults with
 * SHMCOLL_VERBOSE=1, the registration asks for the verdict of the middle phase's own band (p = 2: a
 * mean block of 1.5 x 4 KiB). */
#include "mpi_check.h"

#include <stdio.h>
#include <stdlib.h>

/* Per collective and phase: a measurement at every candidate and more after the key that names the
 * phase's band is agreed, which can come SHARE_EVERY + SHARE_LAG (272) calls into the phase
 * (src/mpi/calibrate.c). With 240 a slow run (MPICH under ASan, the other tiers beside it) now and
 * then ended the middle phase before its band's measurement did. */
#define PHASE_CALLS 512
#define MIXED_CALLS 600
#define MOST        8192 /* doubles: the largest s */

static double *sendbuf, *recvbuf;
static int *sendcounts, *sdispls, *recvcounts, *rdispls;

/* Rank j's block in a call with s: (j + 1) x s doubles, none for rank 0 when `empty0`. */
static int block_of(int j, int s, int empty0) {
    return empty0 && j == 0 ? 0 : (j + 1) * s;
}

static double value(int from, int to, int i, int call) {
    return (double)from * 1e6 + to * 1e4 + i + call;
}

/* One call of collective c (0 gatherv, 1 scatterv, 2 alltoallv) with s, checked; returns 1 when it
 * took one of shmcoll's ways (this rank's DAV grew). */
static int call_one(int c, int s, int empty0, int call) {
    const int p = check_size, me = check_rank, root = p - 1;
    const int mine = block_of(me, s, empty0);
    int at = 0;
    for (int j = 0; j < p; j++) {
        const int other = block_of(j, s, empty0);
        /* gatherv's and scatterv's root side: rank j's block; alltoallv: mine out, j's in */
        sendcounts[j] = c == 2 ? mine : other;
        recvcounts[j] = other;
        sdispls[j] = c == 2 ? j * mine : at;
        rdispls[j] = at;
        at += other;
    }
    if (c == 0) /* my block for the root */
        for (int i = 0; i < mine; i++) sendbuf[i] = value(me, root, i, call);
    else /* the root's block for rank j, my block for rank j */
        for (int j = 0; j < p; j++)
            for (int i = 0; i < sendcounts[j]; i++) sendbuf[sdispls[j] + i] = value(me, j, i, call);
    const unsigned long long before = check_dav();
    if (c == 0)
        MPI_Gatherv(sendbuf, mine, MPI_DOUBLE, recvbuf, recvcounts, rdispls, MPI_DOUBLE, root,
                    MPI_COMM_WORLD);
    else if (c == 1)
        MPI_Scatterv(sendbuf, sendcounts, sdispls, MPI_DOUBLE, recvbuf, mine, MPI_DOUBLE, root,
                     MPI_COMM_WORLD);
    else
        MPI_Alltoallv(sendbuf, sendcounts, sdispls, MPI_DOUBLE, recvbuf, recvcounts, rdispls,
                      MPI_DOUBLE, MPI_COMM_WORLD);
    const int ours = check_dav() > before;
    static const char *const names[3] = {"gatherv", "scatterv", "alltoallv"};
    if (c == 1) { /* my block from the root */
        for (int i = 0; i < mine; i++)
            if (!CHECK(recvbuf[i] == value(root, me, i, call), "%s s=%d call %d [%d]", names[c], s,
                       call, i))
                break;
    } else if (c == 2 || me == root) { /* rank j's block: j's own (gatherv), j's to me */
        for (int j = 0; j < p; j++)
            for (int i = 0; i < recvcounts[j]; i++)
                if (!CHECK(recvbuf[rdispls[j] + i] == value(j, c == 0 ? root : me, i, call),
                           "%s s=%d call %d block %d [%d]", names[c], s, call, j, i))
                    return ours;
    }
    return ours;
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    const int p = check_size;
    const size_t most = (size_t)MOST * p * (p + 1) / 2 * 2;
    sendbuf = malloc(most * sizeof(double));
    recvbuf = malloc(most * sizeof(double));
    sendcounts = malloc(4 * (size_t)p * sizeof(int));
    const int calls = 3 * (3 * PHASE_CALLS + MIXED_CALLS);
    char *ours = calloc((size_t)calls, 1);
    if (!CHECK(sendbuf && recvbuf && sendcounts && ours, "no memory")) return check_finish(argv[0]);
    sdispls = sendcounts + p;
    recvcounts = sendcounts + 2 * p;
    rdispls = sendcounts + 3 * p;
    static const int phase_s[3] = {1, 512, MOST};
    int n = 0;
    for (int phase = 0; phase < 3; phase++)
        for (int call = 0; call < PHASE_CALLS; call++)
            for (int c = 0; c < 3; c++, n++) ours[n] = (char)call_one(c, phase_s[phase], 0, n);
    unsigned seed = 12345; /* the same sequence everywhere */
    for (int call = 0; call < MIXED_CALLS; call++) {
        seed = seed * 1103515245u + 12345u;
        const int s = 1 << (seed >> 16) % 14, empty0 = (seed >> 8) % 5 == 0;
        for (int c = 0; c < 3; c++, n++) {
            ours[n] = (char)call_one(c, s, empty0, n);
            if (empty0 && c < 2) ours[n] = 2; /* rank 0 moves nothing either way: not compared */
        }
    }
    const int took = check_same_ways(ours, calls);
    if (check_rank == 0) printf("%d of %d calls on shmcoll's ways\n", took, calls);
    free(sendbuf);
    free(recvbuf);
    free(sendcounts);
    free(ours);
    return check_finish(argv[0]);
}
