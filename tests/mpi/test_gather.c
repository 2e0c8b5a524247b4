/* Correctness of the rooted data-movement collectives through the MPI interface: MPI_Gather,
 * MPI_Gatherv, MPI_Scatter and MPI_Scatterv (and their large-count twins under MPI-4, every other
 * call), at every root, over counts {0, 1, 7, 1000, 300000} doubles, with MPI_IN_PLACE at the root
 * on every other root, and uneven v-blocks (some empty, gaps between them, displacements in reverse
 * rank order). Non-roots pass no receive (gather) or send (scatter) arguments at all: NULL buffers
 * and arrays, MPI_DATATYPE_NULL, since MPI ignores them there. Results are checked against values
 * every rank computes locally, plus one comparison with the MPI library's own PMPI_Gatherv. Every
 * call is expected to be handled by shmcoll (checked against SHMCOLL_STATS by run_mpi.py). */
#include "movement_cases.h"
#include "mpi_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t counts[] = {0, 1, 7, 1000, 300000};
#define NCOUNTS     (sizeof counts / sizeof counts[0])
#define LARGE_COUNT 300000
#define SALT        51

static int gather(const void *sendbuf, size_t sendcount, MPI_Datatype sendtype, void *recvbuf,
                  size_t recvcount, MPI_Datatype recvtype, int root, int large) {
#if MPI_VERSION >= 4
    if (large)
        return MPI_Gather_c(sendbuf, (MPI_Count)sendcount, sendtype, recvbuf, (MPI_Count)recvcount,
                            recvtype, root, MPI_COMM_WORLD);
#endif
    return MPI_Gather(sendbuf, (int)sendcount, sendtype, recvbuf, (int)recvcount, recvtype, root,
                      MPI_COMM_WORLD);
}

static int gatherv(const void *sendbuf, size_t sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const movement_args_t *a, MPI_Datatype recvtype, int root, int large) {
#if MPI_VERSION >= 4
    if (large)
        return MPI_Gatherv_c(sendbuf, (MPI_Count)sendcount, sendtype, recvbuf, a->counts, a->displs,
                             recvtype, root, MPI_COMM_WORLD);
#endif
    return MPI_Gatherv(sendbuf, (int)sendcount, sendtype, recvbuf, a->counts, a->displs, recvtype,
                       root, MPI_COMM_WORLD);
}

static int scatter(const void *sendbuf, size_t sendcount, MPI_Datatype sendtype, void *recvbuf,
                   size_t recvcount, MPI_Datatype recvtype, int root, int large) {
#if MPI_VERSION >= 4
    if (large)
        return MPI_Scatter_c(sendbuf, (MPI_Count)sendcount, sendtype, recvbuf, (MPI_Count)recvcount,
                             recvtype, root, MPI_COMM_WORLD);
#endif
    return MPI_Scatter(sendbuf, (int)sendcount, sendtype, recvbuf, (int)recvcount, recvtype, root,
                       MPI_COMM_WORLD);
}

static int scatterv(const void *sendbuf, const movement_args_t *a, MPI_Datatype sendtype,
                    void *recvbuf, size_t recvcount, MPI_Datatype recvtype, int root, int large) {
#if MPI_VERSION >= 4
    if (large)
        return MPI_Scatterv_c(sendbuf, a->counts, a->displs, sendtype, recvbuf,
                              (MPI_Count)recvcount, recvtype, root, MPI_COMM_WORLD);
#endif
    return MPI_Scatterv(sendbuf, a->counts, a->displs, sendtype, recvbuf, (int)recvcount, recvtype,
                        root, MPI_COMM_WORLD);
}

/* Gather (varying = 0) or gatherv of n (or the uneven pattern around n) doubles to `root`. */
static void test_gather(size_t n, int root, int in_place, int large, int varying) {
    const int p = check_size, me = check_rank, is_root = me == root;
    size_t bcounts[p], displs[p];
    size_t total = varying ? movement_uneven(n, p, SALT, bcounts, displs)
                           : movement_uniform(n, p, bcounts, displs);
    const size_t mine = bcounts[me];
    double *send = check_alloc(mine * sizeof(double)), *recv = NULL;
    for (size_t k = 0; k < mine; k++) send[k] = movement_value(me, -1, k, SALT);
    movement_args_t args = {NULL, NULL};
    if (is_root) {
        int present[p];
        for (int j = 0; j < p; j++) present[j] = in_place && j == root;
        recv = check_alloc(total * sizeof(double) + CHECK_GUARD);
        movement_fill_received(recv, total, p, bcounts, displs, -1, present, SALT);
        check_guard_set(recv + total);
        if (varying) args = movement_args(bcounts, displs, p, large);
    }
    const void *sendbuf = is_root && in_place ? MPI_IN_PLACE : send;
    const MPI_Datatype sendtype = is_root && in_place ? MPI_DATATYPE_NULL : MPI_DOUBLE;
    const MPI_Datatype recvtype = is_root ? MPI_DOUBLE : MPI_DATATYPE_NULL;
    int rc;
    if (varying) {
        rc = gatherv(sendbuf, mine, sendtype, recv, &args, recvtype, root, large);
        check_expect_share(CHECK_GATHERV, MPI_COMM_WORLD, 1, mine * sizeof(double));
    } else {
        rc = gather(sendbuf, n, sendtype, recv, is_root ? n : 0, recvtype, root, large);
        check_expect_bytes(CHECK_GATHER, MPI_COMM_WORLD, 1, total * sizeof(double));
    }
    char what[96];
    snprintf(what, sizeof what, "%s n %zu root %d%s large %d", varying ? "gatherv" : "gather", n,
             root, in_place && is_root ? " in place" : "", large);
    CHECK(rc == MPI_SUCCESS, "%s: rc %d", what, rc);
    if (is_root) {
        movement_check(recv, total, p, bcounts, displs, -1, SALT, what);
        CHECK(check_guard_intact(recv + total), "%s: wrote past recvbuf", what);
    }
    movement_args_free(&args);
    free(send);
    free(recv);
}

/* Scatter (varying = 0) or scatterv from `root`. */
static void test_scatter(size_t n, int root, int in_place, int large, int varying) {
    const int p = check_size, me = check_rank, is_root = me == root;
    size_t bcounts[p], displs[p];
    size_t total = varying ? movement_uneven(n, p, SALT + 1, bcounts, displs)
                           : movement_uniform(n, p, bcounts, displs);
    const size_t mine = bcounts[me];
    double *send = NULL, *recv = check_alloc(mine * sizeof(double) + CHECK_GUARD);
    for (size_t k = 0; k < mine; k++) recv[k] = MOVEMENT_SENTINEL;
    check_guard_set(recv + mine);
    movement_args_t args = {NULL, NULL};
    if (is_root) {
        send = check_alloc(total * sizeof(double));
        movement_fill(send, total, p, bcounts, displs, root, SALT + 1);
        if (varying) args = movement_args(bcounts, displs, p, large);
    }
    const int here = is_root && in_place;
    const MPI_Datatype sendtype = is_root ? MPI_DOUBLE : MPI_DATATYPE_NULL;
    const MPI_Datatype recvtype = here ? MPI_DATATYPE_NULL : MPI_DOUBLE;
    void *recvbuf = here ? MPI_IN_PLACE : recv;
    int rc;
    if (varying) {
        rc = scatterv(send, &args, sendtype, recvbuf, here ? 0 : mine, recvtype, root, large);
        size_t sent = 0;
        for (int j = 0; j < p; j++) sent += bcounts[j];
        check_expect_share(CHECK_SCATTERV, MPI_COMM_WORLD, 1, is_root ? sent * sizeof(double) : 0);
    } else {
        rc = scatter(send, is_root ? n : 0, sendtype, recvbuf, here ? 0 : n, recvtype, root, large);
        check_expect_bytes(CHECK_SCATTER, MPI_COMM_WORLD, 1, total * sizeof(double));
    }
    char what[96];
    snprintf(what, sizeof what, "%s n %zu root %d%s large %d", varying ? "scatterv" : "scatter", n,
             root, here ? " in place" : "", large);
    CHECK(rc == MPI_SUCCESS, "%s: rc %d", what, rc);
    if (!here) {
        movement_check_one(recv, mine, root, me, SALT + 1, what);
        CHECK(check_guard_intact(recv + mine), "%s: wrote past recvbuf", what);
    }
    if (is_root) { /* the send buffer, own block included, is unchanged */
        double *fresh = check_alloc(total * sizeof(double));
        movement_fill(fresh, total, p, bcounts, displs, root, SALT + 1);
        CHECK(!memcmp(fresh, send, total * sizeof(double)), "%s: send buffer changed", what);
        free(fresh);
    }
    movement_args_free(&args);
    free(send);
    free(recv);
}

/* gatherv of the uneven pattern, once through shmcoll and once through the MPI library. */
static void test_against_pmpi(void) {
    const int p = check_size, root = p - 1, is_root = check_rank == root;
    size_t bcounts[p], displs[p];
    size_t total = movement_uneven(1000, p, SALT + 2, bcounts, displs);
    double *send = check_alloc(bcounts[check_rank] * sizeof(double));
    double *mine = check_alloc(total * sizeof(double)),
           *theirs = check_alloc(total * sizeof(double));
    for (size_t k = 0; k < bcounts[check_rank]; k++) send[k] = movement_value(check_rank, -1, k, 9);
    for (size_t i = 0; i < total; i++) mine[i] = theirs[i] = MOVEMENT_SENTINEL;
    movement_args_t args = movement_args(bcounts, displs, p, 0);
    MPI_Gatherv(send, (int)bcounts[check_rank], MPI_DOUBLE, mine, args.counts, args.displs,
                MPI_DOUBLE, root, MPI_COMM_WORLD);
    check_expect_share(CHECK_GATHERV, MPI_COMM_WORLD, 1, bcounts[check_rank] * sizeof(double));
    PMPI_Gatherv(send, (int)bcounts[check_rank], MPI_DOUBLE, theirs, args.counts, args.displs,
                 MPI_DOUBLE, root, MPI_COMM_WORLD);
    if (is_root)
        CHECK(!memcmp(mine, theirs, total * sizeof(double)), "gatherv differs from PMPI_Gatherv");
    movement_args_free(&args);
    free(send), free(mine), free(theirs);
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    for (size_t k = 0; k < NCOUNTS; k++) {
        for (int root = 0; root < check_size; root++) {
            /* The largest count at two roots only: it is the slowest and adds no new path. */
            if (counts[k] >= LARGE_COUNT && root != 0 && root != check_size - 1) continue;
            const int in_place = (root + (int)k) % 2 == 1,
                      large = check_use_large(k + (size_t)root);
            for (int varying = 0; varying <= 1; varying++) {
                test_gather(counts[k], root, in_place, large, varying);
                test_scatter(counts[k], root, !in_place, large, varying);
            }
        }
    }
    test_against_pmpi();
    return check_finish("test_gather");
}
