/* Erroneous arguments, as a program with a bug passes them: each rank gets what the MPI library
 * alone gives it, and nothing hangs.
 *
 * MPI leaves the outcome of an erroneous call to the implementation. The MPI libraries check some
 * arguments on the calling rank and return an error there without communicating (MPICH: a send
 * buffer that is the receive buffer, or the rank's block of it, "Buffers must not be aliased";
 * both: a root out of range, a null datatype or op), while ranks whose own arguments are right go
 * on into the collective. MPICH's own tests (errors/coll/noalias*) then make a correct call on the
 * ranks that got the error, which meets the others' call. Where shmcoll served such a call, or
 * counted it on some ranks only, the ranks' calls no longer matched (MPICH, noalias: a hang). And
 * where the MPI library accepts aliased buffers (Open MPI's gather, scatter, allgather, ...),
 * shmcoll gives them the meaning the call has in place.
 *
 * Each case makes one call with a fault on some ranks (with MPI_ERRORS_RETURN), checks that the
 * rank got an error exactly where the MPI library refuses the arguments (REFUSED: one column per
 * library, library_checks.h), then the ranks that got one make the correct call, and every rank
 * checks its data. SHMCOLL_TEST_VERBOSE=1 prints each outcome. The same program runs without
 * shmcoll too (SHMCOLL_TEST_NATIVE=1), which checks the table against the MPI library itself;
 * there the results of the erroneous calls the library accepts are not checked (Open MPI's
 * alltoall with aliased buffers returns other ranks' blocks at p = 3). */
#include "mpi_check.h"
#include "persistent_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 4, MAXP = 64 };

static int rank, size, root, verbose, native;
static MPI_Comm comm;

/* Which ranks the MPI library refuses a case on (its own checks, library_checks.h). */
typedef enum { NONE, ROOT, OFF_ROOT, ALL } who_t;
#if defined(MPICH_NUMVERSION)
#define REFUSED(mpich, openmpi) (mpich)
#else
#define REFUSED(mpich, openmpi) (openmpi)
#endif

/* Rank r's element i. */
static int value(int r, int i) {
    return 100 * r + i + 1;
}

/* Prints the outcome and checks it against the ranks the MPI library refuses the case on. */
static void report(const char *name, int rc, who_t who) {
    const int refused =
        who == ALL || (who == ROOT && rank == root) || (who == OFF_ROOT && rank != root);
    if (verbose) printf("case %s rank %d: %s\n", name, rank, rc == MPI_SUCCESS ? "ok" : "error");
    CHECK((rc != MPI_SUCCESS) == refused, "%s: rank %d got %s, the MPI library %s", name, rank,
          rc == MPI_SUCCESS ? "no error" : "an error", refused ? "refuses it" : "accepts it");
}

/* Fills `blocks` blocks of `buf` with rank `r`'s values (or -1 where `r` < 0). */
static void fill(int *buf, int blocks, int r) {
    for (int b = 0; b < blocks; b++)
        for (int i = 0; i < N; i++) buf[b * N + i] = r < 0 ? -1 : value(r, i);
}

static int sum(int i) {
    int s = 0;
    for (int r = 0; r < size; r++) s += value(r, i);
    return s;
}

static void check_sums(const char *name, const int *buf) {
    for (int i = 0; i < N; i++)
        CHECK(buf[i] == sum(i), "%s: rank %d element %d is %d, expected %d", name, rank, i, buf[i],
              sum(i));
}

/* Block b of `buf` holds rank `r`'s values. */
static void check_block(const char *name, const int *buf, int b, int r) {
    for (int i = 0; i < N; i++)
        CHECK(buf[b * N + i] == value(r, i), "%s: rank %d block %d element %d is %d, expected %d",
              name, rank, b, i, buf[b * N + i], value(r, i));
}

static void allreduce_aliased(int nonblocking) {
    const char *name = nonblocking ? "iallreduce-aliased" : "allreduce-aliased";
    int buf[N];
    fill(buf, 1, rank);
    int rc;
    if (nonblocking) {
        MPI_Request req;
        rc = MPI_Iallreduce(buf, buf, N, MPI_INT, MPI_SUM, comm, &req);
        if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        rc = MPI_Allreduce(buf, buf, N, MPI_INT, MPI_SUM, comm);
    }
    report(name, rc, REFUSED(ALL, ALL));
    if (rc != MPI_SUCCESS) {
        int in[N];
        fill(in, 1, rank);
        CHECK(MPI_Allreduce(in, buf, N, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS,
              "%s: make-up call failed", name);
    }
    if (native && rc == MPI_SUCCESS) return; /* the MPI library's result, undefined */
    check_sums(name, buf);
}

static void reduce_aliased(void) {
    int buf[N], out[N];
    fill(buf, 1, rank);
    int rc = MPI_Reduce(buf, rank == root ? buf : out, N, MPI_INT, MPI_SUM, root, comm);
    report("reduce-aliased", rc, REFUSED(ROOT, ROOT));
    if (rc != MPI_SUCCESS) {
        fill(buf, 1, rank);
        CHECK(MPI_Reduce(buf, out, N, MPI_INT, MPI_SUM, root, comm) == MPI_SUCCESS,
              "reduce-aliased: make-up call failed");
        if (rank == root) memcpy(buf, out, sizeof out);
    }
    if (native && rc == MPI_SUCCESS) return; /* the MPI library's result, undefined */
    if (rank == root) check_sums("reduce-aliased", buf);
}

static void gather_aliased(void) {
    int recv[MAXP * N], *send = recv + root * N, mine[N];
    fill(recv, size, -1);
    fill(rank == root ? send : mine, 1, rank);
    int rc = MPI_Gather(rank == root ? send : mine, N, MPI_INT, recv, N, MPI_INT, root, comm);
    report("gather-aliased", rc, REFUSED(ROOT, NONE));
    if (rc != MPI_SUCCESS) {
        fill(mine, 1, rank);
        CHECK(MPI_Gather(mine, N, MPI_INT, recv, N, MPI_INT, root, comm) == MPI_SUCCESS,
              "gather-aliased: make-up call failed");
    }
    if (native && rc == MPI_SUCCESS) return; /* the MPI library's result, undefined */
    if (rank == root)
        for (int r = 0; r < size; r++) check_block("gather-aliased", recv, r, r);
}

static void scatter_aliased(void) {
    int send[MAXP * N], mine[N];
    for (int r = 0; r < size; r++) fill(send + r * N, 1, r);
    int *recv = rank == root ? send + root * N : mine;
    if (rank != root) fill(mine, 1, -1);
    int rc = MPI_Scatter(send, N, MPI_INT, recv, N, MPI_INT, root, comm);
    report("scatter-aliased", rc, REFUSED(ROOT, NONE));
    if (rc != MPI_SUCCESS) {
        CHECK(MPI_Scatter(send, N, MPI_INT, mine, N, MPI_INT, root, comm) == MPI_SUCCESS,
              "scatter-aliased: make-up call failed");
        recv = mine;
    }
    if (native && rc == MPI_SUCCESS) return; /* the MPI library's result, undefined */
    check_block("scatter-aliased", recv, 0, rank);
}

static void allgather_aliased(void) {
    int recv[MAXP * N];
    fill(recv, size, -1);
    fill(recv + rank * N, 1, rank);
    int rc = MPI_Allgather(recv + rank * N, N, MPI_INT, recv, N, MPI_INT, comm);
    report("allgather-aliased", rc, REFUSED(ALL, NONE));
    if (rc != MPI_SUCCESS) {
        int mine[N];
        fill(mine, 1, rank);
        CHECK(MPI_Allgather(mine, N, MPI_INT, recv, N, MPI_INT, comm) == MPI_SUCCESS,
              "allgather-aliased: make-up call failed");
    }
    if (native && rc == MPI_SUCCESS) return; /* the MPI library's result, undefined */
    for (int r = 0; r < size; r++) check_block("allgather-aliased", recv, r, r);
}

/* Block j of rank r's alltoall input: r's values plus 1000 j. */
static void alltoall_aliased(void) {
    int buf[MAXP * N];
    for (int j = 0; j < size; j++)
        for (int i = 0; i < N; i++) buf[j * N + i] = value(rank, i) + 1000 * j;
    int rc = MPI_Alltoall(buf, N, MPI_INT, buf, N, MPI_INT, comm);
    report("alltoall-aliased", rc, REFUSED(ALL, NONE));
    if (rc != MPI_SUCCESS) {
        int in[MAXP * N];
        memcpy(in, buf, sizeof(int) * N * (size_t)size);
        CHECK(MPI_Alltoall(in, N, MPI_INT, buf, N, MPI_INT, comm) == MPI_SUCCESS,
              "alltoall-aliased: make-up call failed");
    }
    if (native && rc == MPI_SUCCESS) return; /* the MPI library's result, undefined */
    for (int j = 0; j < size; j++)
        for (int i = 0; i < N; i++)
            CHECK(buf[j * N + i] == value(j, i) + 1000 * rank,
                  "alltoall-aliased: rank %d block %d element %d is %d, expected %d", rank, j, i,
                  buf[j * N + i], value(j, i) + 1000 * rank);
}

static void reduce_scatter_block_aliased(void) {
    int buf[MAXP * N];
    for (int j = 0; j < size; j++) fill(buf + j * N, 1, rank);
    int rc = MPI_Reduce_scatter_block(buf, buf, N, MPI_INT, MPI_SUM, comm);
    report("reduce_scatter_block-aliased", rc, REFUSED(ALL, NONE));
    if (rc != MPI_SUCCESS) {
        int in[MAXP * N];
        for (int j = 0; j < size; j++) fill(in + j * N, 1, rank);
        CHECK(MPI_Reduce_scatter_block(in, buf, N, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS,
              "reduce_scatter_block-aliased: make-up call failed");
    }
    if (native && rc == MPI_SUCCESS) return; /* the MPI library's result, undefined */
    check_sums("reduce_scatter_block-aliased", buf);
}

static void scan_aliased(void) {
    int buf[N];
    fill(buf, 1, rank);
    int rc = MPI_Scan(buf, buf, N, MPI_INT, MPI_SUM, comm);
    report("scan-aliased", rc, REFUSED(ALL, NONE));
    if (rc != MPI_SUCCESS) {
        int in[N];
        fill(in, 1, rank);
        CHECK(MPI_Scan(in, buf, N, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS,
              "scan-aliased: make-up call failed");
    }
    if (native && rc == MPI_SUCCESS) return; /* the MPI library's result, undefined */
    for (int i = 0; i < N; i++) {
        int s = 0;
        for (int r = 0; r <= rank; r++) s += value(r, i);
        CHECK(buf[i] == s, "scan-aliased: rank %d element %d is %d, expected %d", rank, i, buf[i],
              s);
    }
}

/* A fault every rank sees alike: every rank gets the error, and a correct call follows. */
static void bcast_bad_root(void) {
    int buf[N];
    fill(buf, 1, rank == root ? root : -1);
    int rc = MPI_Bcast(buf, N, MPI_INT, size, comm);
    report("bcast-root-out-of-range", rc, ALL);
    CHECK(MPI_Bcast(buf, N, MPI_INT, root, comm) == MPI_SUCCESS,
          "bcast-root-out-of-range: make-up call failed");
    check_block("bcast-root-out-of-range", buf, 0, root);
}

static void allreduce_bad(const char *name, int count, MPI_Datatype type, MPI_Op op) {
    int in[N], buf[N];
    fill(in, 1, rank);
    int rc = MPI_Allreduce(in, buf, count, type, op, comm);
    report(name, rc, ALL);
    CHECK(MPI_Allreduce(in, buf, N, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS,
          "%s: make-up call failed", name);
    check_sums(name, buf);
}

/* Persistent inits with arguments both MPI libraries refuse at the init, on every rank: the error
 * comes from the init, as without shmcoll, not from a request that should not exist (shmcoll once
 * returned one, whose MPI_Start then failed). Each a correct init, started and checked, follows.
 * (Not allreduce's with a negative count: MPICH 4.0.2's own MPI_Allreduce_init, refusing it,
 * keeps a reference to the communicator, which is then never freed; without shmcoll, three
 * communicators each given one such init leave eight of MPICH's objects unfreed at MPI_Finalize,
 * and the ASan tier fails on them.) */
static void persistent_bad(const char *name) {
    int in[MAXP * N], out[MAXP * N];
    fill(in, size, rank);
    MPI_Request req = MPI_REQUEST_NULL;
    int rc;
    if (!strcmp(name, "allreduce_init-null-op"))
        rc = MPI_Allreduce_init(in, out, N, MPI_INT, MPI_OP_NULL, comm, MPI_INFO_NULL, &req);
    else if (!strcmp(name, "bcast_init-root-out-of-range"))
        rc = MPI_Bcast_init(in, N, MPI_INT, size, comm, MPI_INFO_NULL, &req);
    else if (!strcmp(name, "gather_init-negative-root"))
        rc = MPI_Gather_init(in, N, MPI_INT, out, N, MPI_INT, -1, comm, MPI_INFO_NULL, &req);
    else /* alltoall_init-negative-count */
        rc = MPI_Alltoall_init(in, -1, MPI_INT, out, -1, MPI_INT, comm, MPI_INFO_NULL, &req);
    report(name, rc, ALL);
    if (rc == MPI_SUCCESS && req != MPI_REQUEST_NULL) MPI_Request_free(&req);
    CHECK(MPI_Allreduce_init(in, out, N, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req) ==
                  MPI_SUCCESS &&
              MPI_Start(&req) == MPI_SUCCESS && MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "%s: make-up init failed", name);
    if (req != MPI_REQUEST_NULL) MPI_Request_free(&req);
    check_sums(name, out);
}

/* MPI_IN_PLACE as allreduce's receive buffer: every rank gets the error. */
static void allreduce_recv_in_place(void) {
    int in[N], buf[N];
    fill(in, 1, rank);
    int rc = MPI_Allreduce(in, MPI_IN_PLACE, N, MPI_INT, MPI_SUM, comm);
    report("allreduce-recv-in-place", rc, ALL);
    CHECK(MPI_Allreduce(in, buf, N, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS,
          "allreduce-recv-in-place: make-up call failed");
    check_sums("allreduce-recv-in-place", buf);
}

/* MPI_IN_PLACE as a reduce's send buffer off the root: Open MPI refuses it there (MPICH does
 * not check it, and its reduce then reads from that address: not made there). */
static void reduce_in_place_off_root(void) {
#if !defined(MPICH_NUMVERSION)
    int buf[N], out[N];
    fill(buf, 1, rank);
    int rc = MPI_Reduce(MPI_IN_PLACE, rank == root ? buf : out, N, MPI_INT, MPI_SUM, root, comm);
    report("reduce-in-place-off-root", rc, OFF_ROOT);
    if (rc != MPI_SUCCESS)
        CHECK(MPI_Reduce(buf, out, N, MPI_INT, MPI_SUM, root, comm) == MPI_SUCCESS,
              "reduce-in-place-off-root: make-up call failed");
    if (rank == root) check_sums("reduce-in-place-off-root", buf);
#endif
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    rank = check_rank;
    size = check_size;
    root = size - 1;
    if (size > MAXP) {
        if (rank == 0) printf("test_bad_args: at most %d ranks\n", MAXP);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    verbose = getenv("SHMCOLL_TEST_VERBOSE") != NULL;
    native = getenv("SHMCOLL_TEST_NATIVE") != NULL;
    /* Open MPI raises some of these errors on MPI_COMM_WORLD's handler, whatever the call's. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* Each round on a new communicator, whose first calls meet the faults: at the shipped
     * defaults those go to the MPI library, and a rejected call that counted on one rank only
     * set the communicator up at different calls on different ranks (MPICH's noalias: a
     * hang). Then again on the same one, set up, where shmcoll's own paths meet them. */
    const int rounds = argc > 1 ? atoi(argv[1]) : 2;
    for (int round = 0; round < rounds; round++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        for (int again = 0; again < 2; again++) {
            reduce_aliased();
            reduce_in_place_off_root();
            gather_aliased();
            scatter_aliased();
            allreduce_aliased(0);
            allreduce_aliased(1);
            allgather_aliased();
            alltoall_aliased();
            reduce_scatter_block_aliased();
            scan_aliased();
            allreduce_recv_in_place();
            bcast_bad_root();
            allreduce_bad("allreduce-null-type", N, MPI_DATATYPE_NULL, MPI_SUM);
            allreduce_bad("allreduce-null-op", N, MPI_INT, MPI_OP_NULL);
            persistent_bad("allreduce_init-null-op");
            persistent_bad("bcast_init-root-out-of-range");
            persistent_bad("gather_init-negative-root");
            persistent_bad("alltoall_init-negative-count");
            for (int i = 0; i < 8; i++) MPI_Barrier(comm); /* past SHMCOLL_COLLS_THRESHOLD */
        }
        MPI_Comm_free(&comm);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return check_finish("test_bad_args");
}
