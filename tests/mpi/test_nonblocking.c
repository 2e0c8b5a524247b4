/* Non-blocking (MPI_I*) and persistent (MPI_*_init + MPI_Start) collectives against values
 * computed locally, and their requests in every request call:
 *   - every kind in both forms, small and pipelined (larger than a chunk), with a vector type
 *     (packed) for bcast, MPI_IN_PLACE for allreduce, the large-count twins under MPI-4;
 *   - several operations in flight on one communicator, waited for in reverse order;
 *   - arrays that mix them with point-to-point requests in Waitall, Testall, Waitany, Testany,
 *     Waitsome and Testsome, MPI_Request_get_status, Startall with a persistent send;
 *   - MPI_Request_free of an active operation (it still completes, in order);
 *   - a persistent allreduce restarted 1000 times;
 *   - two persistent requests started in different orders on different ranks;
 *   - (SHMCOLL_TEST_SLEEP_RANK) a rank that never joins: an error naming it, no hang.
 * With SHMCOLL_STATS=1 the library prints one line per form (iallreduce, allreduce_init ...),
 * which the test registration looks for. */
#include "mpi_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "persistent_names.h"

static int p, me;
/* Statuses nobody reads: unread would do, but MPICH's header declares MPI_Waitall
 * with an access attribute that makes the compiler warn about it. */
static MPI_Status unread[8];

/* The input element i of `rank` for salt s. */
static int val(int rank, int i, int s) {
    return (rank + 1) * 3 + i % 11 + s;
}

static int *ints(size_t n) {
    return check_alloc(n * sizeof(int));
}

/* How a test runs an operation: non-blocking + wait, or persistent init + start + wait + free. */
enum form { NONBLOCKING, PERSISTENT, FORMS };
static const char *const form_names[FORMS] = {"nonblocking", "persistent"};

static void finish(MPI_Request *req, enum form form, const char *what) {
    int rc = MPI_SUCCESS;
    if (form == PERSISTENT) {
        rc = MPI_Start(req);
        CHECK(rc == MPI_SUCCESS, "%s: start rc %d", what, rc);
    }
    MPI_Status status;
    rc = MPI_Wait(req, &status); /* MPI leaves the source and tag of a collective undefined */
    CHECK(rc == MPI_SUCCESS, "%s: wait rc %d", what, rc);
    if (form == PERSISTENT) {
        CHECK(*req != MPI_REQUEST_NULL, "%s: persistent request freed by wait", what);
        MPI_Request_free(req);
    } else {
        CHECK(*req == MPI_REQUEST_NULL, "%s: request not freed by wait", what);
    }
}

static void test_reductions(enum form form, int n, int s) {
    int *in = ints(n), *out = ints(n), *scan = ints(n), *ex = ints(n);
    MPI_Request req;
    char what[96];
    for (int i = 0; i < n; i++) in[i] = val(me, i, s);

    snprintf(what, sizeof what, "%s allreduce n=%d", form_names[form], n);
    if (form == NONBLOCKING)
        MPI_Iallreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    else
        MPI_Allreduce_init(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    finish(&req, form, what);
    for (int i = 0; i < n; i++) {
        int want = 0;
        for (int r = 0; r < p; r++) want += val(r, i, s);
        if (!CHECK(out[i] == want, "%s [%d] = %d, want %d", what, i, out[i], want)) break;
    }

    const int root = (s + 1) % p;
    snprintf(what, sizeof what, "%s reduce n=%d root %d", form_names[form], n, root);
    memset(out, 0, n * sizeof(int));
    if (form == NONBLOCKING)
        MPI_Ireduce(in, out, n, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD, &req);
    else
        MPI_Reduce_init(in, out, n, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    finish(&req, form, what);
    if (me == root)
        for (int i = 0; i < n; i++)
            if (!CHECK(out[i] == val(p - 1, i, s), "%s [%d]", what, i)) break;

    snprintf(what, sizeof what, "%s scan/exscan n=%d", form_names[form], n);
    MPI_Request two[2];
    if (form == NONBLOCKING) {
        MPI_Iscan(in, scan, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &two[0]);
        MPI_Iexscan(in, ex, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &two[1]);
    } else {
        MPI_Scan_init(in, scan, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &two[0]);
        MPI_Exscan_init(in, ex, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &two[1]);
        MPI_Startall(2, two);
    }
    MPI_Waitall(2, two, unread);
    if (form == PERSISTENT) MPI_Request_free(&two[0]), MPI_Request_free(&two[1]);
    for (int i = 0; i < n; i++) {
        int want = 0;
        for (int r = 0; r < me; r++) want += val(r, i, s);
        if (!CHECK(scan[i] == want + in[i], "%s scan [%d]", what, i)) break;
        if (me > 0 && !CHECK(ex[i] == want, "%s exscan [%d]", what, i)) break;
    }

    /* reduce_scatter_block: n / p each; reduce_scatter: rank r gets r + 1 elements */
    const int block = n / p > 0 ? n / p : 1;
    int *counts = ints(p), total = 0;
    for (int r = 0; r < p; r++) counts[r] = r + 1, total += r + 1;
    int *big = ints(block * p > total ? block * p : total);
    for (int i = 0; i < block * p || i < total; i++) big[i] = val(me, i, s);
    snprintf(what, sizeof what, "%s reduce_scatter(_block) n=%d", form_names[form], n);
    if (form == NONBLOCKING) {
        MPI_Ireduce_scatter_block(big, out, block, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &two[0]);
        MPI_Ireduce_scatter(big, scan, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &two[1]);
    } else {
        MPI_Reduce_scatter_block_init(big, out, block, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                      MPI_INFO_NULL, &two[0]);
        MPI_Reduce_scatter_init(big, scan, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                                &two[1]);
        MPI_Startall(2, two);
    }
    MPI_Waitall(2, two, unread);
    if (form == PERSISTENT) MPI_Request_free(&two[0]), MPI_Request_free(&two[1]);
    for (int i = 0; i < block; i++) {
        int want = 0;
        for (int r = 0; r < p; r++) want += val(r, me * block + i, s);
        if (!CHECK(out[i] == want, "%s block [%d]", what, i)) break;
    }
    for (int i = 0, first = me * (me + 1) / 2; i < me + 1; i++) {
        int want = 0;
        for (int r = 0; r < p; r++) want += val(r, first + i, s);
        if (!CHECK(scan[i] == want, "%s varying [%d]", what, i)) break;
    }
    free(in), free(out), free(scan), free(ex), free(counts), free(big);
}

static void test_movement(enum form form, int n, int s) {
    int *in = ints(n), *out = ints((size_t)n * p), *a2a = ints((size_t)n * p);
    int *counts = ints(p), *displs = ints(p);
    MPI_Request req[4];
    char what[96];
    for (int r = 0; r < p; r++) counts[r] = n, displs[r] = (p - 1 - r) * n; /* reversed */
    const int root = s % p;
    int *all = ints((size_t)n * p);
    for (int i = 0; i < n * p; i++) all[i] = val(me, i, s);
    for (int i = 0; i < n; i++) in[i] = val(me, i, s);

    snprintf(what, sizeof what, "%s allgather(v) n=%d", form_names[form], n);
    int *outv = ints((size_t)n * p);
    if (form == NONBLOCKING) {
        MPI_Iallgather(in, n, MPI_INT, out, n, MPI_INT, MPI_COMM_WORLD, &req[0]);
        MPI_Iallgatherv(in, n, MPI_INT, outv, counts, displs, MPI_INT, MPI_COMM_WORLD, &req[1]);
    } else {
        MPI_Allgather_init(in, n, MPI_INT, out, n, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]);
        MPI_Allgatherv_init(in, n, MPI_INT, outv, counts, displs, MPI_INT, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &req[1]);
        MPI_Startall(2, req);
    }
    MPI_Waitall(2, req, unread);
    if (form == PERSISTENT) MPI_Request_free(&req[0]), MPI_Request_free(&req[1]);
    for (int r = 0; r < p; r++)
        for (int i = 0; i < n; i++) {
            if (!CHECK(out[r * n + i] == val(r, i, s), "%s [%d][%d]", what, r, i)) r = p;
            if (!CHECK(outv[displs[r < p ? r : 0] + i] == val(r < p ? r : 0, i, s), "%s v", what))
                r = p;
            if (r == p) break;
        }

    snprintf(what, sizeof what, "%s gather(v)/scatter(v) n=%d root %d", form_names[form], n, root);
    int *sc = ints(n), *scv = ints(n);
    memset(out, 0, (size_t)n * p * sizeof(int));
    memset(outv, 0, (size_t)n * p * sizeof(int));
    if (form == NONBLOCKING) {
        MPI_Igather(in, n, MPI_INT, out, n, MPI_INT, root, MPI_COMM_WORLD, &req[0]);
        MPI_Igatherv(in, n, MPI_INT, outv, counts, displs, MPI_INT, root, MPI_COMM_WORLD, &req[1]);
        MPI_Iscatter(all, n, MPI_INT, sc, n, MPI_INT, root, MPI_COMM_WORLD, &req[2]);
        MPI_Iscatterv(all, counts, displs, MPI_INT, scv, n, MPI_INT, root, MPI_COMM_WORLD, &req[3]);
    } else {
        MPI_Gather_init(in, n, MPI_INT, out, n, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                        &req[0]);
        MPI_Gatherv_init(in, n, MPI_INT, outv, counts, displs, MPI_INT, root, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &req[1]);
        MPI_Scatter_init(all, n, MPI_INT, sc, n, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &req[2]);
        MPI_Scatterv_init(all, counts, displs, MPI_INT, scv, n, MPI_INT, root, MPI_COMM_WORLD,
                          MPI_INFO_NULL, &req[3]);
        MPI_Startall(4, req);
    }
    MPI_Waitall(4, req, unread);
    if (form == PERSISTENT)
        for (int k = 0; k < 4; k++) MPI_Request_free(&req[k]);
    for (int i = 0; i < n; i++) {
        if (!CHECK(sc[i] == val(root, me * n + i, s), "%s scatter [%d]", what, i)) break;
        if (!CHECK(scv[i] == val(root, displs[me] + i, s), "%s scatterv [%d]", what, i)) break;
    }
    if (me == root)
        for (int r = 0; r < p; r++)
            for (int i = 0; i < n; i++)
                if (!CHECK(out[r * n + i] == val(r, i, s) && outv[displs[r] + i] == val(r, i, s),
                           "%s gather [%d][%d]", what, r, i))
                    r = p, i = n;

    snprintf(what, sizeof what, "%s alltoall(v) n=%d", form_names[form], n);
    if (form == NONBLOCKING) {
        MPI_Ialltoall(all, n, MPI_INT, a2a, n, MPI_INT, MPI_COMM_WORLD, &req[0]);
        MPI_Ialltoallv(all, counts, displs, MPI_INT, outv, counts, displs, MPI_INT, MPI_COMM_WORLD,
                       &req[1]);
    } else {
        MPI_Alltoall_init(all, n, MPI_INT, a2a, n, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]);
        MPI_Alltoallv_init(all, counts, displs, MPI_INT, outv, counts, displs, MPI_INT,
                           MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]);
        MPI_Startall(2, req);
    }
    MPI_Waitall(2, req, unread);
    if (form == PERSISTENT) MPI_Request_free(&req[0]), MPI_Request_free(&req[1]);
    for (int r = 0; r < p; r++)
        for (int i = 0; i < n; i++)
            if (!CHECK(a2a[r * n + i] == val(r, me * n + i, s) &&
                           outv[displs[r] + i] == val(r, displs[me] + i, s),
                       "%s [%d][%d]", what, r, i))
                r = p, i = n;

    /* bcast of a vector type (every other int): packed at the root, unpacked elsewhere */
    snprintf(what, sizeof what, "%s bcast n=%d root %d", form_names[form], n, root);
    MPI_Datatype every_other;
    MPI_Type_vector(n, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int *strided = ints(2 * (size_t)n);
    for (int i = 0; i < 2 * n; i++) strided[i] = me == root ? val(root, i, s) : -1;
    if (form == NONBLOCKING)
        MPI_Ibcast(strided, 1, every_other, root, MPI_COMM_WORLD, &req[0]);
    else
        MPI_Bcast_init(strided, 1, every_other, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]);
    finish(&req[0], form, what);
    for (int i = 0; i < 2 * n; i++)
        if (!CHECK(strided[i] == (i % 2 == 0 || me == root ? val(root, i, s) : -1), "%s [%d]", what,
                   i))
            break;
    MPI_Type_free(&every_other);
    free(in), free(out), free(a2a), free(counts), free(displs), free(all), free(outv), free(sc);
    free(scv), free(strided);
}

/* Several in flight on one communicator, waited for in reverse order, then with Waitany. */
static void test_in_flight(void) {
    enum { K = 8, N = 100 };
    int in[K][N], out[K][N];
    MPI_Request req[K];
    for (int k = 0; k < K; k++) {
        for (int i = 0; i < N; i++) in[k][i] = val(me, i, k);
        MPI_Iallreduce(in[k], out[k], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[k]);
    }
    for (int k = K - 1; k >= 0; k--) MPI_Wait(&req[k], MPI_STATUS_IGNORE);
    for (int k = 0; k < K; k++)
        MPI_Iallreduce(in[k], out[k], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[k]);
    for (int done = 0; done < K; done++) {
        int index = -1;
        MPI_Waitany(K, req, &index, MPI_STATUS_IGNORE);
        CHECK(index >= 0 && index < K && req[index] == MPI_REQUEST_NULL, "waitany index %d", index);
    }
    int index = 0;
    MPI_Waitany(K, req, &index, MPI_STATUS_IGNORE);
    CHECK(index == MPI_UNDEFINED, "waitany over nulls: %d", index);
    for (int k = 0; k < K; k++)
        for (int i = 0; i < N; i++) {
            int want = 0;
            for (int r = 0; r < p; r++) want += val(r, i, k);
            if (!CHECK(out[k][i] == want, "in flight %d [%d]", k, i)) k = K, i = N;
        }
}

/* A ring exchange and collectives in one array, through every multi-request call. */
static void test_mixed(int variant) {
    int send = me, recv = -1, sum = 0, one = 1, bc = me == 0 ? 42 : 0;
    MPI_Request req[4];
    MPI_Irecv(&recv, 1, MPI_INT, (me + p - 1) % p, 7, MPI_COMM_WORLD, &req[0]);
    MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&send, 1, MPI_INT, (me + 1) % p, 7, MPI_COMM_WORLD, &req[2]);
    MPI_Ibcast(&bc, 1, MPI_INT, 0, MPI_COMM_WORLD, &req[3]);
    MPI_Status st[4];
    int flag = 0, left = 4, index, outcount, indices[4];
    switch (variant) {
    case 0:
        MPI_Waitall(4, req, st);
        CHECK(st[0].MPI_SOURCE == (me + p - 1) % p && st[0].MPI_TAG == 7, "waitall recv status");
        break;
    case 1:
        while (!flag) MPI_Testall(4, req, &flag, st);
        break;
    case 2:
        while (left) {
            MPI_Waitsome(4, req, &outcount, indices, st);
            CHECK(outcount >= 1 && outcount <= left, "waitsome outcount %d", outcount);
            left -= outcount > 0 ? outcount : left;
        }
        break;
    case 3:
        while (left) {
            MPI_Testany(4, req, &index, &flag, MPI_STATUS_IGNORE);
            if (flag) left--;
        }
        break;
    default:
        while (left) {
            MPI_Testsome(4, req, &outcount, indices, unread);
            left -= outcount;
        }
    }
    for (int k = 0; k < 4; k++) CHECK(req[k] == MPI_REQUEST_NULL, "mixed %d: req %d", variant, k);
    CHECK(recv == (me + p - 1) % p && sum == p && bc == 42, "mixed %d: %d %d %d", variant, recv,
          sum, bc);
}

/* Request_get_status polls; Request_free of an active operation; Startall with a native
 * persistent request. */
static void test_request_calls(void) {
    int one = 1, sum = 0, flag = 0;
    MPI_Request req;
    MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    while (!flag) MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE);
    CHECK(req != MPI_REQUEST_NULL && sum == p, "get_status: %d", sum);
    MPI_Wait(&req, MPI_STATUS_IGNORE);

    /* Freeing an active collective request is erroneous in MPI (MPICH refuses it); shmcoll
     * lets the operation run to its end (SHMCOLL_TEST_FREE_ACTIVE=1: where shmcoll serves it).
     * Where it completes is unknown to the caller, so the ranks agree when every one has seen its
     * result. */
    const char *served = getenv("SHMCOLL_TEST_FREE_ACTIVE");
    if (served && !strcmp(served, "1")) {
        int freed = 0, seen = 0;
        MPI_Iallreduce(&one, &freed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
        MPI_Request_free(&req);
        CHECK(req == MPI_REQUEST_NULL, "request_free");
        for (int round = 0; round < 100000 && !seen; round++) {
            int mine = freed == p;
            MPI_Allreduce(&mine, &seen, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        }
        CHECK(seen, "freed active request: %d", freed);
    }

    int token = me, got = -1, total = 0;
    MPI_Request both[3];
    MPI_Allreduce_init(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &both[0]);
    MPI_Send_init(&token, 1, MPI_INT, (me + 1) % p, 9, MPI_COMM_WORLD, &both[1]);
    MPI_Recv_init(&got, 1, MPI_INT, (me + p - 1) % p, 9, MPI_COMM_WORLD, &both[2]);
    for (int round = 0; round < 3; round++) {
        total = 0, got = -1;
        MPI_Startall(3, both);
        MPI_Waitall(3, both, unread);
        CHECK(total == p && got == (me + p - 1) % p, "startall round %d: %d %d", round, total, got);
    }
    for (int k = 0; k < 3; k++) MPI_Request_free(&both[k]);
}

/* One persistent allreduce restarted 1000 times; two started in different orders. */
static void test_restart(void) {
    double x = 0, y = 0;
    MPI_Request req;
    MPI_Allreduce_init(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    for (int k = 0; k < 1000; k++) {
        x = me + k;
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (!CHECK(y == (double)p * k + (double)p * (p - 1) / 2, "restart %d: %g", k, y)) break;
    }
    MPI_Request_free(&req);

    int a = me, b = 0, sa = 0;
    MPI_Request two[2];
    MPI_Allreduce_init(&a, &sa, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &two[0]);
    MPI_Bcast_init(&b, 1, MPI_INT, p - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &two[1]);
    for (int k = 0; k < 100; k++) {
        b = me == p - 1 ? k : -1;
        if (me % 2) {
            MPI_Start(&two[1]);
            MPI_Start(&two[0]);
            MPI_Wait(&two[0], MPI_STATUS_IGNORE);
            MPI_Wait(&two[1], MPI_STATUS_IGNORE);
        } else {
            MPI_Start(&two[0]);
            MPI_Start(&two[1]);
            MPI_Waitall(2, two, unread);
        }
        if (!CHECK(sa == p * (p - 1) / 2 && b == k, "orders %d: %d %d", k, sa, b)) break;
    }
    MPI_Request_free(&two[0]);
    MPI_Request_free(&two[1]);
}

/* MPI_IN_PLACE and the large-count twins. */
static void test_variants(void) {
    int v[5];
    for (int i = 0; i < 5; i++) v[i] = val(me, i, 0);
    MPI_Request req;
    MPI_Iallreduce(MPI_IN_PLACE, v, 5, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < 5; i++) {
        int want = 0;
        for (int r = 0; r < p; r++) want += val(r, i, 0);
        CHECK(v[i] == want, "in place [%d]", i);
    }
#if MPI_VERSION >= 4
    long big = me, sum = 0;
    MPI_Iallreduce_c(&big, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(sum == (long)p * (p - 1) / 2, "iallreduce_c %ld", sum);
    sum = 0;
    MPI_Allreduce_init_c(&big, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Request_free(&req);
    CHECK(sum == (long)p * (p - 1) / 2, "allreduce_init_c %ld", sum);
#endif
}

/* SHMCOLL_TEST_SLEEP_RANK=r: rank r sleeps SHMCOLL_TEST_SLEEP_SECONDS before posting an
 * Iallreduce the others already wait for in MPI_Wait; with SHMCOLL_TIMEOUT shorter, they fail
 * with an error naming rank r instead of hanging (the job then ends: MPI_ERRORS_ARE_FATAL). */
static void test_sleeper(int sleeper) {
    const char *seconds = getenv("SHMCOLL_TEST_SLEEP_SECONDS");
    int one = 1, sum = 0;
    MPI_Request req;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* everyone set up */
    if (me == sleeper) sleep(seconds ? (unsigned)atoi(seconds) : 10);
    MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(0, "the Iallreduce with a sleeping rank %d returned", sleeper);
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    p = check_size, me = check_rank;
    /* SHMCOLL_TEST_ONLY=names runs some parts (kinds, in_flight, mixed, requests, restart,
     * variants). */
    const char *sleeper = getenv("SHMCOLL_TEST_SLEEP_RANK");
    if (sleeper) test_sleeper(atoi(sleeper));
    const char *only = getenv("SHMCOLL_TEST_ONLY");
#define PART(name) (!only || strstr(only, name))
    const int sizes[] = {3, 100000}; /* the second is larger than a chunk: pipelined */
    for (int form = 0; form < FORMS && PART("kinds"); form++)
        for (int k = 0; k < 2; k++) {
            test_reductions((enum form)form, sizes[k], k + form);
            test_movement((enum form)form, sizes[k] / 8 + 1, k + form);
        }
    if (PART("in_flight")) test_in_flight();
    for (int variant = 0; variant < 5 && PART("mixed"); variant++) test_mixed(variant);
    if (PART("requests")) test_request_calls();
    if (PART("restart")) test_restart();
    if (PART("variants")) test_variants();
    return check_finish("nonblocking");
}
