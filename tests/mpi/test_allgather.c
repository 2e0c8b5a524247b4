/* Correctness of the non-rooted data-movement collectives through the MPI interface:
 * MPI_Allgather, MPI_Allgatherv, MPI_Alltoall and MPI_Alltoallv (and their large-count twins under
 * MPI-4, every other call) over counts {0, 1, 7, 1000, 300000} doubles, with and without
 * MPI_IN_PLACE, and uneven v-blocks (some empty, gaps between them, displacements in reverse rank
 * order; alltoallv counts differ per direction, except in place where MPI requires them
 * symmetric). Results are checked against values every rank computes locally, plus one comparison
 * with the MPI library's own PMPI_Alltoallv. Every call is expected to be handled by shmcoll. */
#include "movement_cases.h"
#include "mpi_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t counts[] = {0, 1, 7, 1000, 300000};
#define NCOUNTS (sizeof counts / sizeof counts[0])
#define SALT    61

static int allgather(const void *sendbuf, size_t sendcount, MPI_Datatype sendtype, void *recvbuf,
                     size_t recvcount, int large) {
#if MPI_VERSION >= 4
    if (large)
        return MPI_Allgather_c(sendbuf, (MPI_Count)sendcount, sendtype, recvbuf,
                               (MPI_Count)recvcount, MPI_DOUBLE, MPI_COMM_WORLD);
#endif
    return MPI_Allgather(sendbuf, (int)sendcount, sendtype, recvbuf, (int)recvcount, MPI_DOUBLE,
                         MPI_COMM_WORLD);
}

static int allgatherv(const void *sendbuf, size_t sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const movement_args_t *a, int large) {
#if MPI_VERSION >= 4
    if (large)
        return MPI_Allgatherv_c(sendbuf, (MPI_Count)sendcount, sendtype, recvbuf, a->counts,
                                a->displs, MPI_DOUBLE, MPI_COMM_WORLD);
#endif
    return MPI_Allgatherv(sendbuf, (int)sendcount, sendtype, recvbuf, a->counts, a->displs,
                          MPI_DOUBLE, MPI_COMM_WORLD);
}

static int alltoall(const void *sendbuf, size_t sendcount, MPI_Datatype sendtype, void *recvbuf,
                    size_t recvcount, int large) {
#if MPI_VERSION >= 4
    if (large)
        return MPI_Alltoall_c(sendbuf, (MPI_Count)sendcount, sendtype, recvbuf,
                              (MPI_Count)recvcount, MPI_DOUBLE, MPI_COMM_WORLD);
#endif
    return MPI_Alltoall(sendbuf, (int)sendcount, sendtype, recvbuf, (int)recvcount, MPI_DOUBLE,
                        MPI_COMM_WORLD);
}

static int alltoallv(const void *sendbuf, const movement_args_t *s, MPI_Datatype sendtype,
                     void *recvbuf, const movement_args_t *r, int large) {
#if MPI_VERSION >= 4
    if (large)
        return MPI_Alltoallv_c(sendbuf, s->counts, s->displs, sendtype, recvbuf, r->counts,
                               r->displs, MPI_DOUBLE, MPI_COMM_WORLD);
#endif
    return MPI_Alltoallv(sendbuf, s->counts, s->displs, sendtype, recvbuf, r->counts, r->displs,
                         MPI_DOUBLE, MPI_COMM_WORLD);
}

static void test_allgather(size_t n, int in_place, int large, int varying) {
    const int p = check_size, me = check_rank;
    size_t bcounts[p], displs[p], sum = 0;
    size_t total = varying ? movement_uneven(n, p, SALT, bcounts, displs)
                           : movement_uniform(n, p, bcounts, displs);
    for (int j = 0; j < p; j++) sum += bcounts[j];
    const size_t mine = bcounts[me];
    double *send = check_alloc(mine * sizeof(double));
    double *recv = check_alloc(total * sizeof(double) + CHECK_GUARD);
    for (size_t k = 0; k < mine; k++) send[k] = movement_value(me, -1, k, SALT);
    int present[p];
    for (int j = 0; j < p; j++) present[j] = in_place && j == me;
    movement_fill_received(recv, total, p, bcounts, displs, -1, present, SALT);
    check_guard_set(recv + total);
    const void *sendbuf = in_place ? MPI_IN_PLACE : send;
    const MPI_Datatype sendtype = in_place ? MPI_DATATYPE_NULL : MPI_DOUBLE;
    int rc;
    if (varying) {
        movement_args_t args = movement_args(bcounts, displs, p, large);
        rc = allgatherv(sendbuf, in_place ? 0 : mine, sendtype, recv, &args, large);
        check_expect_bytes(CHECK_ALLGATHERV, MPI_COMM_WORLD, 1, sum * sizeof(double));
        movement_args_free(&args);
    } else {
        rc = allgather(sendbuf, in_place ? 0 : n, sendtype, recv, n, large);
        check_expect_bytes(CHECK_ALLGATHER, MPI_COMM_WORLD, 1, sum * sizeof(double));
    }
    char what[96];
    snprintf(what, sizeof what, "%s n %zu%s large %d", varying ? "allgatherv" : "allgather", n,
             in_place ? " in place" : "", large);
    CHECK(rc == MPI_SUCCESS, "%s: rc %d", what, rc);
    movement_check(recv, total, p, bcounts, displs, -1, SALT, what);
    CHECK(check_guard_intact(recv + total), "%s: wrote past recvbuf", what);
    free(send);
    free(recv);
}

/* Blocks of an alltoallv side: block j holds what goes to (send) or comes from (receive) rank j;
 * the count of a -> b depends on both (on the pair only, when it must be symmetric). Send blocks
 * lie in reverse rank order, receive blocks in rank order, both with gaps. */
static size_t pair_blocks(size_t n, int me, int p, int sending, int symmetric, size_t *bcounts,
                          size_t *displs) {
    size_t at = 0;
    for (int i = 0; i < p; i++) {
        const int j = sending ? p - 1 - i : i;
        const int from = sending ? me : j, to = sending ? j : me;
        const int lo = from < to ? from : to, hi = from < to ? to : from;
        bcounts[j] = movement_count(n, symmetric ? lo * 31 + hi : from * 31 + to, SALT + 1);
        at += MOVEMENT_GAP;
        displs[j] = at;
        at += bcounts[j];
    }
    return at;
}

static void test_alltoall(size_t n, int in_place, int large, int varying) {
    const int p = check_size, me = check_rank;
    size_t scounts[p], sdispls[p], rcounts[p], rdispls[p], sent = 0;
    size_t stotal = varying ? pair_blocks(n, me, p, 1, in_place, scounts, sdispls)
                            : movement_uniform(n, p, scounts, sdispls);
    size_t rtotal = varying ? pair_blocks(n, me, p, 0, in_place, rcounts, rdispls)
                            : movement_uniform(n, p, rcounts, rdispls);
    double *send = check_alloc(stotal * sizeof(double));
    double *recv = check_alloc(rtotal * sizeof(double) + CHECK_GUARD);
    movement_fill(send, stotal, p, scounts, sdispls, me, SALT + 1);
    if (in_place) { /* the blocks to send, in the receive side's layout */
        movement_fill(recv, rtotal, p, rcounts, rdispls, me, SALT + 1);
        for (int j = 0; j < p; j++) sent += rcounts[j];
    } else {
        for (size_t i = 0; i < rtotal; i++) recv[i] = MOVEMENT_SENTINEL;
        for (int j = 0; j < p; j++) sent += scounts[j];
    }
    check_guard_set(recv + rtotal);
    const void *sendbuf = in_place ? MPI_IN_PLACE : send;
    const MPI_Datatype sendtype = in_place ? MPI_DATATYPE_NULL : MPI_DOUBLE;
    int rc;
    if (varying) {
        movement_args_t s = movement_args(scounts, sdispls, p, large);
        movement_args_t r = movement_args(rcounts, rdispls, p, large);
        rc = alltoallv(sendbuf, &s, sendtype, recv, &r, large);
        check_expect_share(CHECK_ALLTOALLV, MPI_COMM_WORLD, 1, sent * sizeof(double));
        movement_args_free(&s);
        movement_args_free(&r);
    } else {
        rc = alltoall(sendbuf, in_place ? 0 : n, sendtype, recv, n, large);
        check_expect_bytes(CHECK_ALLTOALL, MPI_COMM_WORLD, 1, (size_t)p * sent * sizeof(double));
    }
    char what[96];
    snprintf(what, sizeof what, "%s n %zu%s large %d", varying ? "alltoallv" : "alltoall", n,
             in_place ? " in place" : "", large);
    CHECK(rc == MPI_SUCCESS, "%s: rc %d", what, rc);
    movement_check(recv, rtotal, p, rcounts, rdispls, me, SALT + 1, what);
    CHECK(check_guard_intact(recv + rtotal), "%s: wrote past recvbuf", what);
    if (!in_place) {
        double *fresh = check_alloc(stotal * sizeof(double));
        movement_fill(fresh, stotal, p, scounts, sdispls, me, SALT + 1);
        CHECK(!memcmp(fresh, send, stotal * sizeof(double)), "%s: send buffer changed", what);
        free(fresh);
    }
    free(send);
    free(recv);
}

/* alltoallv of uneven blocks, once through shmcoll and once through the MPI library. */
static void test_against_pmpi(void) {
    const int p = check_size, me = check_rank;
    size_t scounts[p], sdispls[p], rcounts[p], rdispls[p];
    size_t stotal = pair_blocks(1000, me, p, 1, 0, scounts, sdispls);
    size_t rtotal = pair_blocks(1000, me, p, 0, 0, rcounts, rdispls), sent = 0;
    double *send = check_alloc(stotal * sizeof(double));
    double *mine = check_alloc(rtotal * sizeof(double)),
           *theirs = check_alloc(rtotal * sizeof(double));
    movement_fill(send, stotal, p, scounts, sdispls, me, 5);
    for (size_t i = 0; i < rtotal; i++) mine[i] = theirs[i] = MOVEMENT_SENTINEL;
    for (int j = 0; j < p; j++) sent += scounts[j];
    movement_args_t s = movement_args(scounts, sdispls, p, 0);
    movement_args_t r = movement_args(rcounts, rdispls, p, 0);
    MPI_Alltoallv(send, s.counts, s.displs, MPI_DOUBLE, mine, r.counts, r.displs, MPI_DOUBLE,
                  MPI_COMM_WORLD);
    check_expect_share(CHECK_ALLTOALLV, MPI_COMM_WORLD, 1, sent * sizeof(double));
    PMPI_Alltoallv(send, s.counts, s.displs, MPI_DOUBLE, theirs, r.counts, r.displs, MPI_DOUBLE,
                   MPI_COMM_WORLD);
    CHECK(!memcmp(mine, theirs, rtotal * sizeof(double)), "alltoallv differs from PMPI_Alltoallv");
    movement_args_free(&s);
    movement_args_free(&r);
    free(send), free(mine), free(theirs);
}

/* alltoallv in which rank 0 sends nothing from a NULL send buffer (valid: it sends no element)
 * while it receives from everyone: its NULL is not MPI_IN_PLACE, so nothing of its receive
 * buffer may be sent. */
static void test_null_sender(void) {
    const int p = check_size, me = check_rank, n = 3;
    int scounts[p], sdispls[p], rcounts[p], rdispls[p];
    for (int q = 0; q < p; q++) {
        scounts[q] = me == 0 ? 0 : n;
        sdispls[q] = q * n;
        rcounts[q] = q == 0 ? 0 : n;
        rdispls[q] = q * n;
    }
    int *send = me == 0 ? NULL : check_alloc((size_t)(p * n) * sizeof(int));
    int *recv = check_alloc((size_t)(p * n) * sizeof(int));
    for (int i = 0; send && i < p * n; i++) send[i] = 1000 * me + i;
    for (int i = 0; i < p * n; i++) recv[i] = -1;
    MPI_Alltoallv(send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD);
    check_expect_share(CHECK_ALLTOALLV, MPI_COMM_WORLD, 1,
                       me == 0 ? 0 : (uint64_t)(p * n) * sizeof(int));
    for (int q = 0; q < p; q++)
        for (int i = 0; i < n; i++) {
            const int want = q == 0 ? -1 : 1000 * q + me * n + i;
            CHECK(recv[q * n + i] == want, "alltoallv with a NULL sender: from %d [%d] %d, not %d",
                  q, i, recv[q * n + i], want);
        }
    free(send), free(recv);
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    for (size_t k = 0; k < NCOUNTS; k++)
        for (int in_place = 0; in_place <= 1; in_place++)
            for (int varying = 0; varying <= 1; varying++) {
                const int large = check_use_large(k + (size_t)in_place + (size_t)varying);
                test_allgather(counts[k], in_place, large, varying);
                test_alltoall(counts[k], in_place, large, varying);
            }
    test_against_pmpi();
    test_null_sender();
    return check_finish("test_allgather");
}
