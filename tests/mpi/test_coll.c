/* Correctness of every collective shmcoll handles, through the MPI interface.
 *
 * MPI_Allreduce, MPI_Reduce (every root, MPI_IN_PLACE at the root) and MPI_Bcast (every root,
 * dense, packed and mixed layouts) over counts {0, 1, 7, 1000, 300000} and the cases of
 * reduce_cases.c, compared with locally computed references, plus a few comparisons with the
 * MPI library's own PMPI_* results and a barrier that must really synchronise. Under MPI-4 every
 * other call goes through the large-count twins (MPI_Allreduce_c, ...). Receive buffers carry a
 * guard zone that must stay untouched, and so must the gaps of pair types' elements; send
 * buffers must come back unchanged. Every call made here is expected to be handled by shmcoll
 * (checked against SHMCOLL_STATS by run_mpi.py) but the reductions on pair types with gaps, which
 * go to the MPI library. */
#include "mpi_check.h"
#include "reduce_cases.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_CASES 32

static const size_t counts[] = {0, 1, 7, 1000, 300000};
#define NCOUNTS     (sizeof counts / sizeof counts[0])
#define LARGE_COUNT 300000

static int allreduce(const void *send, void *recv, size_t n, MPI_Datatype type, MPI_Op op,
                     int large) {
#if MPI_VERSION >= 4
    if (large) return MPI_Allreduce_c(send, recv, (MPI_Count)n, type, op, MPI_COMM_WORLD);
#endif
    return MPI_Allreduce(send, recv, (int)n, type, op, MPI_COMM_WORLD);
}

static int reduce(const void *send, void *recv, size_t n, MPI_Datatype type, MPI_Op op, int root,
                  int large) {
#if MPI_VERSION >= 4
    if (large) return MPI_Reduce_c(send, recv, (MPI_Count)n, type, op, root, MPI_COMM_WORLD);
#endif
    return MPI_Reduce(send, recv, (int)n, type, op, root, MPI_COMM_WORLD);
}

static int bcast(void *buf, size_t n, MPI_Datatype type, int root, int large) {
#if MPI_VERSION >= 4
    if (large) return MPI_Bcast_c(buf, (MPI_Count)n, type, root, MPI_COMM_WORLD);
#endif
    return MPI_Bcast(buf, (int)n, type, root, MPI_COMM_WORLD);
}

/* Checks that `send` still holds this rank's input. */
static void check_send_unchanged(const reduce_case_t *c, const void *send, size_t n,
                                 const char *what) {
    void *fresh = check_alloc(n * c->extent);
    c->fill(fresh, check_rank, n);
    size_t bad = reduce_case_mismatch(c, send, fresh, n);
    CHECK(bad == n, "%s %s count %zu: send buffer changed at element %zu", what, c->name, n, bad);
    free(fresh);
}

static void test_allreduce(const reduce_case_t *c, size_t n, const void *expected, size_t k) {
    size_t bytes = n * c->extent;
    char *send = check_alloc(bytes), *recv = check_alloc(bytes + CHECK_GUARD);
    for (int in_place = 0; in_place <= 1; in_place++) {
        int large = check_use_large(k + (size_t)in_place);
        c->fill(send, check_rank, n);
        if (in_place)
            memcpy(recv, send, bytes);
        else
            memset(recv, 0x5A, bytes);
        check_guard_set(recv + bytes);
        int rc = allreduce(in_place ? MPI_IN_PLACE : send, recv, n, c->type, c->op, large);
        check_expect(CHECK_ALLREDUCE, MPI_COMM_WORLD, !c->gap_len, (MPI_Count)n, c->type);
        const char *what = in_place ? "allreduce(in place)" : "allreduce";
        CHECK(rc == MPI_SUCCESS, "%s %s count %zu: rc %d", what, c->name, n, rc);
        size_t bad = reduce_case_mismatch(c, recv, expected, n);
        CHECK(bad == n, "%s %s count %zu large %d: element %zu differs", what, c->name, n, large,
              bad);
        CHECK(check_guard_intact((char *)recv + bytes), "%s %s count %zu: wrote past recvbuf", what,
              c->name, n);
        if (!in_place) {
            check_send_unchanged(c, send, n, what);
            bad = reduce_case_gap_written(c, recv, n, 0x5A);
            CHECK(bad == n, "%s %s count %zu: the gap of element %zu written", what, c->name, n,
                  bad);
        }
    }
    free(send);
    free(recv);
}

/* MPICH 4.0.2 and 4.1.1 themselves crash in MPI_Reduce with MPI_IN_PLACE at a non-zero root
 * (pmodels/mpich#6540, fixed in 4.1.2). shmcoll serves such calls, and gives the MPI library's
 * way a copy of the root's vector (src/mpi/library_faults.h), but with SHMCOLL_DISABLE=1 they
 * reach the library as they are, so that run leaves them out. */
static int library_in_place_bug(void) {
#if defined(MPICH_NUMVERSION)
    return MPICH_NUMVERSION < 40102000 && check_disabled();
#else
    return 0;
#endif
}

static void test_reduce(const reduce_case_t *c, size_t n, const void *expected, size_t k) {
    size_t bytes = n * c->extent;
    char *send = check_alloc(bytes), *recv = check_alloc(bytes + CHECK_GUARD);
    for (int root = 0; root < check_size; root++) {
        /* The largest count at two roots only: it is the slowest and adds no new path. */
        if (n >= LARGE_COUNT && root != 0 && root != check_size - 1) continue;
        int is_root = root == check_rank;
        int in_place = is_root && (root + (int)k) % 2 == 1 && !(root && library_in_place_bug());
        int large = check_use_large(k + (size_t)root);
        c->fill(send, check_rank, n);
        if (in_place)
            memcpy(recv, send, bytes);
        else
            memset(recv, 0x5A, bytes);
        check_guard_set(recv + bytes);
        /* Non-roots pass no receive buffer at all: it is not significant there. */
        int rc = reduce(in_place ? MPI_IN_PLACE : send, is_root ? recv : NULL, n, c->type, c->op,
                        root, large);
        check_expect(CHECK_REDUCE, MPI_COMM_WORLD, !c->gap_len, (MPI_Count)n, c->type);
        CHECK(rc == MPI_SUCCESS, "reduce %s count %zu root %d: rc %d", c->name, n, root, rc);
        if (is_root) {
            size_t bad = reduce_case_mismatch(c, recv, expected, n);
            CHECK(bad == n, "reduce%s %s count %zu root %d large %d: element %zu differs",
                  in_place ? "(in place)" : "", c->name, n, root, large, bad);
            CHECK(check_guard_intact((char *)recv + bytes),
                  "reduce %s count %zu root %d: wrote past recvbuf", c->name, n, root);
            if (!in_place) {
                bad = reduce_case_gap_written(c, recv, n, 0x5A);
                CHECK(bad == n, "reduce %s count %zu root %d: the gap of element %zu written",
                      c->name, n, root, bad);
            }
        }
        if (!in_place) check_send_unchanged(c, send, n, "reduce");
    }
    free(send);
    free(recv);
}

static void test_reductions(void) {
    reduce_case_t cases[MAX_CASES];
    int ncases = reduce_cases_create(cases, MAX_CASES);
    for (int ci = 0; ci < ncases; ci++) {
        const reduce_case_t *c = &cases[ci];
        /* reduce over a representative subset: one per kind of path (kernel, pair type, complex,
         * user op on a predefined type, non-commutative user op on a derived type) */
        int with_reduce = !strcmp(c->name, "int_sum") || !strcmp(c->name, "double_int_maxloc") ||
                          !strcmp(c->name, "dcomplex_sum") || !strcmp(c->name, "uint_usersum") ||
                          !strcmp(c->name, "matmul") || !strcmp(c->name, "bool_lor");
        for (size_t k = 0; k < NCOUNTS; k++) {
            size_t n = counts[k];
            void *expected = check_alloc(n * c->extent);
            if (n) reduce_case_expected(c, check_size, n, expected);
            test_allreduce(c, n, expected, k);
            if (with_reduce) test_reduce(c, n, expected, k);
            free(expected);
        }
    }
    reduce_cases_free(cases, ncases);
}

/* ---- bcast ---------------------------------------------------------------------------------- */

typedef struct {
    double v;
    int i;
} double_int_t;

/* Element k of the broadcast signature, as the root generates it. */
static int sig_int(int root, size_t k) {
    return (int)check_hash(root, k, 21);
}

/* Layouts of n ints: rank % 3 == 0 plain MPI_INT; 1: one int per 8 bytes (a gap after each);
 * 2 (n even): pairs stored swapped, {int at 4, int at 0}: contiguous bytes, but not in signature
 * order, so they must be packed, not moved as they lie. */
typedef struct {
    MPI_Datatype type;
    size_t count; /* elements of type */
    size_t bytes; /* buffer size */
    int layout;   /* 0, 1, 2 as above */
} int_layout_t;

static int_layout_t int_layout(int rank, size_t n, MPI_Datatype gap, MPI_Datatype swapped) {
    int layout = rank % 3;
    if (layout == 2 && n % 2) layout = 0;
    if (layout == 1) return (int_layout_t){gap, n, 8 * n, 1};
    if (layout == 2) return (int_layout_t){swapped, n / 2, 4 * n, 2};
    return (int_layout_t){MPI_INT, n, 4 * n, 0};
}

static size_t int_position(int layout, size_t k) { /* index (in ints) of signature element k */
    return layout == 1 ? 2 * k : layout == 2 ? (k ^ 1) : k;
}

static void test_bcast_mixed(size_t n, int root, int large, MPI_Datatype gap,
                             MPI_Datatype swapped) {
    int_layout_t l = int_layout(check_rank, n, gap, swapped);
    int *buf = check_alloc(l.bytes + CHECK_GUARD);
    const int sentinel = 0x5A5A5A5A;
    for (size_t i = 0; i < l.bytes / 4; i++) buf[i] = sentinel;
    check_guard_set((char *)buf + l.bytes);
    if (check_rank == root)
        for (size_t k = 0; k < n; k++) buf[int_position(l.layout, k)] = sig_int(root, k);
    int rc = bcast(buf, l.count, l.type, root, large);
    check_expect(CHECK_BCAST, MPI_COMM_WORLD, 1, (MPI_Count)l.count, l.type);
    CHECK(rc == MPI_SUCCESS, "bcast mixed count %zu root %d: rc %d", n, root, rc);
    for (size_t k = 0; k < n; k++)
        if (!CHECK(buf[int_position(l.layout, k)] == sig_int(root, k),
                   "bcast mixed layout %d count %zu root %d: int %zu differs", l.layout, n, root,
                   k))
            break;
    if (l.layout == 1)
        for (size_t k = 0; k < n; k++)
            if (!CHECK(buf[2 * k + 1] == sentinel, "bcast mixed count %zu: gap %zu written", n, k))
                break;
    CHECK(check_guard_intact((char *)buf + l.bytes), "bcast mixed count %zu: wrote past buffer", n);
    free(buf);
}

static void test_bcast_typed(size_t n, int root, int large, int kind) {
    /* kind 0: MPI_BYTE, 1: MPI_DOUBLE, 2: MPI_DOUBLE_INT (predefined but with gaps: packed) */
    static const size_t extents[3] = {1, sizeof(double), sizeof(double_int_t)};
    const MPI_Datatype types[3] = {MPI_BYTE, MPI_DOUBLE, MPI_DOUBLE_INT};
    size_t bytes = n * extents[kind];
    unsigned char *buf = check_alloc(bytes + CHECK_GUARD);
    memset(buf, 0x5A, bytes);
    check_guard_set(buf + bytes);
    int is_root = check_rank == root;
    for (size_t i = 0; i < n && is_root; i++) {
        uint32_t h = check_hash(root, i, 22 + kind);
        if (kind == 0) buf[i] = (unsigned char)h;
        if (kind == 1) ((double *)buf)[i] = (double)h / 16.0;
        if (kind == 2) ((double_int_t *)buf)[i] = (double_int_t){(double)h / 4.0, (int)(h >> 3)};
    }
    int rc = bcast(buf, n, types[kind], root, large);
    check_expect(CHECK_BCAST, MPI_COMM_WORLD, 1, (MPI_Count)n, types[kind]);
    CHECK(rc == MPI_SUCCESS, "bcast kind %d count %zu root %d: rc %d", kind, n, root, rc);
    for (size_t i = 0; i < n; i++) {
        uint32_t h = check_hash(root, i, 22 + kind);
        int ok = kind == 0   ? buf[i] == (unsigned char)h
                 : kind == 1 ? ((double *)buf)[i] == (double)h / 16.0
                             : ((double_int_t *)buf)[i].v == (double)h / 4.0 &&
                                   ((double_int_t *)buf)[i].i == (int)(h >> 3);
        if (!CHECK(ok, "bcast kind %d count %zu root %d: element %zu differs", kind, n, root, i))
            break;
    }
    CHECK(check_guard_intact(buf + bytes), "bcast kind %d count %zu: wrote past buffer", kind, n);
    free(buf);
}

static void test_bcasts(void) {
    MPI_Datatype gap, swapped;
    MPI_Type_create_resized(MPI_INT, 0, 8, &gap);
    MPI_Type_commit(&gap);
    int blocklens[2] = {1, 1};
    MPI_Aint displs[2] = {4, 0};
    MPI_Datatype ints[2] = {MPI_INT, MPI_INT};
    MPI_Type_create_struct(2, blocklens, displs, ints, &swapped);
    MPI_Type_commit(&swapped);
    for (size_t k = 0; k < NCOUNTS; k++) {
        size_t n = counts[k];
        for (int root = 0; root < check_size; root++) {
            if (n >= LARGE_COUNT && root != 0 && root != check_size - 1) continue;
            int large = check_use_large(k + (size_t)root);
            for (int kind = 0; kind < 3; kind++) test_bcast_typed(n, root, large, kind);
            test_bcast_mixed(n, root, large, gap, swapped);
        }
    }
    MPI_Type_free(&gap);
    MPI_Type_free(&swapped);
}

/* ---- barrier -------------------------------------------------------------------------------- */

/* Every rank increments a counter in MPI shared memory before barrier k; after it, the counter
 * must have reached (its ranks) * (k + 1), however late the rank that sleeps before round k
 * arrives. Shared memory ends at the node: the counter belongs to the ranks of one
 * MPI_COMM_TYPE_SHARED communicator (all of them on one host; one counter per node when the job
 * spans several, as in `make test-cluster`). */
static void test_barrier(void) {
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int node_rank, node_size;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_size);
    MPI_Win win;
    _Atomic long *counter;
    MPI_Aint size = node_rank == 0 ? (MPI_Aint)sizeof(long) : 0;
    MPI_Win_allocate_shared(size, sizeof(long), MPI_INFO_NULL, node, &counter, &win);
    int disp;
    MPI_Win_shared_query(win, 0, &size, &disp, &counter);
    if (node_rank == 0) atomic_store(counter, 0);
    PMPI_Barrier(MPI_COMM_WORLD); /* the reference barrier, once: the counters are zero */
    const int rounds = 12;
    for (int k = 0; k < rounds; k++) {
        if (k % check_size == check_rank) usleep(3000);
        atomic_fetch_add(counter, 1);
        int rc = MPI_Barrier(MPI_COMM_WORLD);
        check_expect(CHECK_BARRIER, MPI_COMM_WORLD, 1, 0, MPI_BYTE);
        long seen = atomic_load(counter);
        CHECK(rc == MPI_SUCCESS && seen >= (long)node_size * (k + 1),
              "barrier round %d: left with counter %ld < %ld", k, seen, (long)node_size * (k + 1));
    }
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}

/* ---- the MPI library's own results, on a few inputs ---------------------------------------- */

static void test_against_pmpi(void) {
    const size_t n = 1000;
    double *in = check_alloc(n * sizeof *in), *mine = check_alloc(n * sizeof *in),
           *theirs = check_alloc(n * sizeof *in);
    for (size_t i = 0; i < n; i++) in[i] = (double)(check_hash(check_rank, i, 31) % 999);
    MPI_Allreduce(in, mine, (int)n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    check_expect(CHECK_ALLREDUCE, MPI_COMM_WORLD, 1, (MPI_Count)n, MPI_DOUBLE);
    PMPI_Allreduce(in, theirs, (int)n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    CHECK(!memcmp(mine, theirs, n * sizeof *in), "allreduce MAX differs from PMPI_Allreduce");

    long *lin = check_alloc(n * sizeof *lin), *lmine = check_alloc(n * sizeof *lin),
         *ltheirs = check_alloc(n * sizeof *lin);
    for (size_t i = 0; i < n; i++) lin[i] = (long)check_hash(check_rank, i, 32) - (1l << 31);
    int root = check_size - 1;
    MPI_Reduce(lin, lmine, (int)n, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD);
    check_expect(CHECK_REDUCE, MPI_COMM_WORLD, 1, (MPI_Count)n, MPI_LONG);
    PMPI_Reduce(lin, ltheirs, (int)n, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD);
    if (check_rank == root)
        CHECK(!memcmp(lmine, ltheirs, n * sizeof *lin), "reduce SUM differs from PMPI_Reduce");
    free(in), free(mine), free(theirs), free(lin), free(lmine), free(ltheirs);
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    test_barrier();
    test_reductions();
    test_bcasts();
    test_against_pmpi();
    return check_finish("test_coll");
}
