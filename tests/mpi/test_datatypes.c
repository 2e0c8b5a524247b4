/* Derived datatypes through every collective: handled by packing, never by falling back.
 *
 * The data is always a signature of doubles; five layouts describe it:
 *   double   MPI_DOUBLE                                     (dense)
 *   gapped   MPI_DOUBLE resized to 16 bytes                 (a gap after each double)
 *   pair     MPI_Type_contiguous(2, MPI_DOUBLE)              (dense, derived)
 *   vector   MPI_Type_vector(2, 1, 2, MPI_DOUBLE), 32 bytes  (gaps inside and after)
 *   swapped  struct {double at 8, double at 0}              (contiguous, not in signature order)
 * Data movement: every rank picks its own send and receive layouts, different from each other and
 * from the other ranks' (MPI only requires the signatures to match), for gather, gatherv,
 * scatter, scatterv, allgather, allgatherv, alltoall and alltoallv, with and without MPI_IN_PLACE
 * where MPI allows it: every call must be handled by shmcoll. Reductions (a user-defined sum that
 * knows each layout; MPI allows predefined ops only on predefined types), with the same layout on
 * all ranks as MPI requires, for allreduce, reduce, reduce_scatter_block, reduce_scatter, scan and
 * exscan: shmcoll handles the contiguous layouts and passes those with gaps to the MPI library
 * (the user function expects the layout). Every element outside the data (gaps, unused blocks)
 * holds a sentinel that must survive; SHMCOLL_STATS must show each call handled or passed on as
 * expected (run_mpi.py). Last, buffers at MPI_BOTTOM with a type of absolute addresses. */
#include "movement_cases.h"
#include "mpi_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NLAYOUTS 5
#define MAXP     64

typedef struct layout {
    const char *name;
    MPI_Datatype type;
    size_t per;      /* doubles per element */
    size_t stride;   /* extent, in doubles */
    size_t inner[2]; /* where in the element its i-th double of the signature lies */
} layout_t;

static layout_t layouts[NLAYOUTS];

static void layouts_create(void) {
    MPI_Datatype gapped, pair, vector2, vector, swapped;
    MPI_Type_create_resized(MPI_DOUBLE, 0, 16, &gapped);
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &vector2);
    MPI_Type_create_resized(vector2, 0, 32, &vector);
    MPI_Type_free(&vector2);
    int blocklens[2] = {1, 1};
    MPI_Aint displs[2] = {8, 0};
    MPI_Datatype doubles[2] = {MPI_DOUBLE, MPI_DOUBLE};
    MPI_Type_create_struct(2, blocklens, displs, doubles, &swapped);
    MPI_Datatype all[NLAYOUTS] = {MPI_DOUBLE, gapped, pair, vector, swapped};
    for (int i = 1; i < NLAYOUTS; i++) MPI_Type_commit(&all[i]);
    layouts[0] = (layout_t){"double", all[0], 1, 1, {0, 0}};
    layouts[1] = (layout_t){"gapped", all[1], 1, 2, {0, 0}};
    layouts[2] = (layout_t){"pair", all[2], 2, 2, {0, 1}};
    layouts[3] = (layout_t){"vector", all[3], 2, 4, {0, 2}};
    layouts[4] = (layout_t){"swapped", all[4], 2, 2, {1, 0}};
}

static void layouts_free(void) {
    for (int i = 1; i < NLAYOUTS; i++) MPI_Type_free(&layouts[i].type);
}

/* One side of a call: n blocks of a layout, block j being counts[j] elements at element
 * displacement displs[j] of buf. */
typedef struct side {
    const layout_t *l;
    int n;
    size_t counts[MAXP], displs[MAXP];
    size_t mem; /* doubles of buf */
    double *buf;
} side_t;

/* Where double k of block j lies in the buffer. */
static size_t where(const side_t *s, int j, size_t k) {
    const layout_t *l = s->l;
    return (s->displs[j] + k / l->per) * l->stride + l->inner[k % l->per];
}

static void side_alloc(side_t *s) {
    size_t end = 0;
    for (int j = 0; j < s->n; j++) {
        size_t e = (s->displs[j] + s->counts[j]) * s->l->stride;
        end = e > end ? e : end;
    }
    s->mem = end + s->l->stride; /* one spare element of sentinels */
    s->buf = check_alloc(s->mem * sizeof(double));
    for (size_t i = 0; i < s->mem; i++) s->buf[i] = MOVEMENT_SENTINEL;
}

/* n blocks of `doubles` each, back to back. */
static void side_uniform(side_t *s, const layout_t *l, int n, size_t doubles) {
    s->l = l, s->n = n;
    for (int j = 0; j < n; j++) s->counts[j] = doubles / l->per, s->displs[j] = j * s->counts[j];
    side_alloc(s);
}

/* n blocks of the uneven pattern (in pairs of doubles, so every layout can hold them), in
 * reverse order with a gap of one element before each. */
static void side_uneven(side_t *s, const layout_t *l, int n, size_t around, int salt) {
    s->l = l, s->n = n;
    size_t at = 0;
    for (int j = n - 1; j >= 0; j--) {
        s->counts[j] = 2 * movement_count(around / 2, j, salt) / l->per;
        s->displs[j] = ++at;
        at += s->counts[j];
    }
    side_alloc(s);
}

static size_t side_doubles(const side_t *s, int j) {
    return s->counts[j] * s->l->per;
}

/* Bytes of data of all blocks (the payload a side sends or receives). */
static uint64_t side_bytes(const side_t *s) {
    uint64_t doubles = 0;
    for (int j = 0; j < s->n; j++) doubles += side_doubles(s, j);
    return doubles * sizeof(double);
}

/* The values: block j of a side holds value(j, k). */
typedef double (*value_fn)(int j, size_t k);
static int g_me, g_root;
static double from_me(int j, size_t k) {
    return movement_value(g_me, -1, k, 81);
}
static double from_j(int j, size_t k) {
    return movement_value(j, -1, k, 81);
}
static double me_to_j(int j, size_t k) {
    return movement_value(g_me, j, k, 82);
}
static double j_to_me(int j, size_t k) {
    return movement_value(j, g_me, k, 82);
}
static double root_to_me(int j, size_t k) {
    return movement_value(g_root, g_me, k, 82);
}

/* Writes block j (only, or all when j < 0) with its values. */
static void side_fill(side_t *s, int only, value_fn value) {
    for (int j = 0; j < s->n; j++)
        if (only < 0 || j == only)
            for (size_t k = 0; k < side_doubles(s, j); k++) s->buf[where(s, j, k)] = value(j, k);
}

/* Every block holds its values and every other double the sentinel. */
static int side_check(const side_t *s, value_fn value, const char *what) {
    char *covered = calloc(s->mem, 1);
    int ok = 1;
    for (int j = 0; j < s->n && ok; j++)
        for (size_t k = 0; k < side_doubles(s, j) && ok; k++) {
            size_t at = where(s, j, k);
            covered[at] = 1;
            ok = CHECK(s->buf[at] == value(j, k), "%s: block %d double %zu is %g, expected %g",
                       what, j, k, s->buf[at], value(j, k));
        }
    for (size_t i = 0; i < s->mem && ok; i++)
        if (!covered[i])
            ok = CHECK(s->buf[i] == MOVEMENT_SENTINEL, "%s: double %zu (a gap) was written", what,
                       i);
    free(covered);
    return ok;
}

static void side_free(side_t *s) {
    free(s->buf);
    s->buf = NULL;
}

/* Layout choices: per rank, different for sending and receiving, varying with the call. The MPI
 * libraries' own algorithms do not all cope with ranks using different layouts of one signature
 * (MPICH 4.0.2's ring allgatherv fails), so with SHMCOLL_DISABLE=1 all ranks use the same. */
static int layout_rank(void) {
    return check_disabled() ? 0 : g_me;
}
static const layout_t *send_layout(int call) {
    return &layouts[(size_t)(layout_rank() + call) % NLAYOUTS];
}
static const layout_t *recv_layout(int call) {
    return &layouts[(size_t)(layout_rank() + call + 2) % NLAYOUTS];
}

static int calls; /* numbers the calls, to vary layouts and large-count use */

/* Whether call `call` uses the large-count twin: pseudo-random, so that every collective meets
 * both whatever the order of calls. */
static int use_large(int call) {
    return check_use_large(check_hash(0, (size_t)call, 97));
}

/* ---- rooted: gather, gatherv, scatter, scatterv ------------------------------------------- */

static void test_gather(size_t m, int root, int varying, int in_place) {
    const int p = check_size, is_root = g_me == root, call = calls++;
    const int large = use_large(call);
    g_root = root;
    side_t send, recv = {0};
    side_t shape; /* the block sizes, known to everyone (for the sender's own count) */
    if (varying)
        side_uneven(&shape, &layouts[0], p, m, 91);
    else
        side_uniform(&shape, &layouts[0], p, m);
    side_uniform(&send, send_layout(call), 1, side_doubles(&shape, g_me));
    side_fill(&send, -1, from_me);
    if (is_root) {
        if (varying)
            side_uneven(&recv, recv_layout(call), p, m, 91);
        else
            side_uniform(&recv, recv_layout(call), p, m);
        if (in_place) side_fill(&recv, root, from_j);
    }
    const int here = is_root && in_place;
    const void *sendbuf = here ? MPI_IN_PLACE : send.buf;
    movement_args_t args = {NULL, NULL};
    int rc;
    if (varying) {
        if (is_root) args = movement_args(recv.counts, recv.displs, p, large);
#if MPI_VERSION >= 4
        if (large)
            rc = MPI_Gatherv_c(sendbuf, (MPI_Count)send.counts[0], send.l->type, recv.buf,
                               args.counts, args.displs, is_root ? recv.l->type : MPI_DATATYPE_NULL,
                               root, MPI_COMM_WORLD);
        else
#endif
            rc = MPI_Gatherv(sendbuf, (int)send.counts[0], send.l->type, recv.buf, args.counts,
                             args.displs, is_root ? recv.l->type : MPI_DATATYPE_NULL, root,
                             MPI_COMM_WORLD);
        check_expect_share(CHECK_GATHERV, MPI_COMM_WORLD, 1,
                           side_doubles(&shape, g_me) * sizeof(double));
    } else {
        rc = MPI_Gather(sendbuf, (int)send.counts[0], send.l->type, recv.buf,
                        is_root ? (int)recv.counts[0] : 0,
                        is_root ? recv.l->type : MPI_DATATYPE_NULL, root, MPI_COMM_WORLD);
        check_expect_bytes(CHECK_GATHER, MPI_COMM_WORLD, 1, (uint64_t)p * m * sizeof(double));
    }
    char what[160];
    snprintf(what, sizeof what, "%s m %zu root %d%s send %s recv %s",
             varying ? "gatherv" : "gather", m, root, here ? " in place" : "", send.l->name,
             is_root ? recv.l->name : "-");
    CHECK(rc == MPI_SUCCESS, "%s: rc %d", what, rc);
    if (is_root) side_check(&recv, from_j, what);
    movement_args_free(&args);
    side_free(&send), side_free(&recv), side_free(&shape);
}

static void test_scatter(size_t m, int root, int varying, int in_place) {
    const int p = check_size, is_root = g_me == root, call = calls++;
    const int large = use_large(call);
    g_root = root;
    side_t send = {0}, recv, shape;
    if (varying)
        side_uneven(&shape, &layouts[0], p, m, 92);
    else
        side_uniform(&shape, &layouts[0], p, m);
    side_uniform(&recv, recv_layout(call), 1, side_doubles(&shape, g_me));
    if (is_root) {
        if (varying)
            side_uneven(&send, send_layout(call), p, m, 92);
        else
            side_uniform(&send, send_layout(call), p, m);
        side_fill(&send, -1, me_to_j);
    }
    const int here = is_root && in_place;
    void *recvbuf = here ? MPI_IN_PLACE : recv.buf;
    movement_args_t args = {NULL, NULL};
    int rc;
    if (varying) {
        if (is_root) args = movement_args(send.counts, send.displs, p, large);
#if MPI_VERSION >= 4
        if (large)
            rc = MPI_Scatterv_c(send.buf, args.counts, args.displs,
                                is_root ? send.l->type : MPI_DATATYPE_NULL, recvbuf,
                                (MPI_Count)recv.counts[0], recv.l->type, root, MPI_COMM_WORLD);
        else
#endif
            rc = MPI_Scatterv(send.buf, args.counts, args.displs,
                              is_root ? send.l->type : MPI_DATATYPE_NULL, recvbuf,
                              (int)recv.counts[0], recv.l->type, root, MPI_COMM_WORLD);
        check_expect_share(CHECK_SCATTERV, MPI_COMM_WORLD, 1, is_root ? side_bytes(&shape) : 0);
    } else {
        rc = MPI_Scatter(send.buf, is_root ? (int)send.counts[0] : 0,
                         is_root ? send.l->type : MPI_DATATYPE_NULL, recvbuf, (int)recv.counts[0],
                         recv.l->type, root, MPI_COMM_WORLD);
        check_expect_bytes(CHECK_SCATTER, MPI_COMM_WORLD, 1, (uint64_t)p * m * sizeof(double));
    }
    char what[160];
    snprintf(what, sizeof what, "%s m %zu root %d%s send %s recv %s",
             varying ? "scatterv" : "scatter", m, root, here ? " in place" : "",
             is_root ? send.l->name : "-", recv.l->name);
    CHECK(rc == MPI_SUCCESS, "%s: rc %d", what, rc);
    if (!here) side_check(&recv, root_to_me, what);
    if (is_root) side_check(&send, me_to_j, what); /* unchanged */
    movement_args_free(&args);
    side_free(&send), side_free(&recv), side_free(&shape);
}

/* ---- allgather(v), alltoall(v) ------------------------------------------------------------ */

static void test_allgather(size_t m, int varying, int in_place) {
    const int p = check_size, call = calls++, large = use_large(call);
    side_t send, recv;
    if (varying)
        side_uneven(&recv, recv_layout(call), p, m, 93);
    else
        side_uniform(&recv, recv_layout(call), p, m);
    side_uniform(&send, send_layout(call), 1, side_doubles(&recv, g_me));
    side_fill(&send, -1, from_me);
    if (in_place) side_fill(&recv, g_me, from_j);
    const void *sendbuf = in_place ? MPI_IN_PLACE : send.buf;
    const uint64_t total = side_bytes(&recv);
    int rc;
    if (varying) {
        movement_args_t args = movement_args(recv.counts, recv.displs, p, large);
#if MPI_VERSION >= 4
        if (large)
            rc = MPI_Allgatherv_c(sendbuf, (MPI_Count)send.counts[0], send.l->type, recv.buf,
                                  args.counts, args.displs, recv.l->type, MPI_COMM_WORLD);
        else
#endif
            rc = MPI_Allgatherv(sendbuf, (int)send.counts[0], send.l->type, recv.buf, args.counts,
                                args.displs, recv.l->type, MPI_COMM_WORLD);
        movement_args_free(&args);
        check_expect_bytes(CHECK_ALLGATHERV, MPI_COMM_WORLD, 1, total);
    } else {
        rc = MPI_Allgather(sendbuf, (int)send.counts[0], send.l->type, recv.buf,
                           (int)recv.counts[0], recv.l->type, MPI_COMM_WORLD);
        check_expect_bytes(CHECK_ALLGATHER, MPI_COMM_WORLD, 1, total);
    }
    char what[160];
    snprintf(what, sizeof what, "%s m %zu%s send %s recv %s", varying ? "allgatherv" : "allgather",
             m, in_place ? " in place" : "", send.l->name, recv.l->name);
    CHECK(rc == MPI_SUCCESS, "%s: rc %d", what, rc);
    side_check(&recv, from_j, what);
    side_free(&send), side_free(&recv);
}

/* alltoallv blocks: the doubles from rank a to rank b depend on the pair only (symmetric, so
 * in place works too), in pairs of doubles. */
static void side_pairs(side_t *s, const layout_t *l, size_t around) {
    s->l = l, s->n = check_size;
    size_t at = 0;
    for (int j = 0; j < s->n; j++) {
        const int lo = j < g_me ? j : g_me, hi = j < g_me ? g_me : j;
        s->counts[j] = 2 * movement_count(around / 2, lo * 31 + hi, 94) / l->per;
        s->displs[j] = ++at;
        at += s->counts[j];
    }
    side_alloc(s);
}

static void test_alltoall(size_t m, int varying, int in_place) {
    const int p = check_size, call = calls++, large = use_large(call);
    side_t send, recv;
    if (varying) {
        side_pairs(&send, send_layout(call), m);
        side_pairs(&recv, recv_layout(call), m);
    } else {
        side_uniform(&send, send_layout(call), p, m);
        side_uniform(&recv, recv_layout(call), p, m);
    }
    side_fill(in_place ? &recv : &send, -1, me_to_j);
    const void *sendbuf = in_place ? MPI_IN_PLACE : send.buf;
    const uint64_t mine = side_bytes(&recv);
    int rc;
    if (varying) {
        movement_args_t s = movement_args(send.counts, send.displs, p, large);
        movement_args_t r = movement_args(recv.counts, recv.displs, p, large);
#if MPI_VERSION >= 4
        if (large)
            rc = MPI_Alltoallv_c(sendbuf, s.counts, s.displs, send.l->type, recv.buf, r.counts,
                                 r.displs, recv.l->type, MPI_COMM_WORLD);
        else
#endif
            rc = MPI_Alltoallv(sendbuf, s.counts, s.displs, send.l->type, recv.buf, r.counts,
                               r.displs, recv.l->type, MPI_COMM_WORLD);
        movement_args_free(&s);
        movement_args_free(&r);
        check_expect_share(CHECK_ALLTOALLV, MPI_COMM_WORLD, 1, mine);
    } else {
        rc = MPI_Alltoall(sendbuf, (int)send.counts[0], send.l->type, recv.buf, (int)recv.counts[0],
                          recv.l->type, MPI_COMM_WORLD);
        check_expect_bytes(CHECK_ALLTOALL, MPI_COMM_WORLD, 1, (uint64_t)p * mine);
    }
    char what[160];
    snprintf(what, sizeof what, "%s m %zu%s send %s recv %s", varying ? "alltoallv" : "alltoall", m,
             in_place ? " in place" : "", send.l->name, recv.l->name);
    CHECK(rc == MPI_SUCCESS, "%s: rc %d", what, rc);
    side_check(&recv, j_to_me, what);
    if (!in_place) side_check(&send, me_to_j, what); /* unchanged */
    side_free(&send), side_free(&recv);
}

/* ---- MPI_BOTTOM ------------------------------------------------------------------------- */

/* Buffers given as MPI_BOTTOM with a type of absolute addresses (two doubles of `at`, a gap
 * between them), which MPICH 4.0.2's own MPI_Pack refuses: bcast into them, gather from them,
 * scatter into them. */
static void test_bottom(void) {
    const int p = check_size, root = p - 1, is_root = g_me == root;
    double at[4], *all = check_alloc(2 * (size_t)p * sizeof(double));
    MPI_Aint addresses[2];
    MPI_Get_address(&at[0], &addresses[0]);
    MPI_Get_address(&at[2], &addresses[1]);
    int blocklens[2] = {1, 1};
    MPI_Datatype absolute;
    MPI_Type_create_hindexed(2, blocklens, addresses, MPI_DOUBLE, &absolute);
    MPI_Type_commit(&absolute);

    for (int i = 0; i < 4; i++)
        at[i] = is_root && i % 2 == 0 ? movement_value(root, -1, i / 2, 97) : MOVEMENT_SENTINEL;
    int rc = MPI_Bcast(MPI_BOTTOM, 1, absolute, root, MPI_COMM_WORLD);
    check_expect(CHECK_BCAST, MPI_COMM_WORLD, 1, 1, absolute);
    CHECK(rc == MPI_SUCCESS && at[0] == movement_value(root, -1, 0, 97) &&
              at[2] == movement_value(root, -1, 1, 97) && at[1] == MOVEMENT_SENTINEL &&
              at[3] == MOVEMENT_SENTINEL,
          "bcast into MPI_BOTTOM: %g %g %g %g", at[0], at[1], at[2], at[3]);

    for (int i = 0; i < 4; i++)
        at[i] = i % 2 == 0 ? movement_value(g_me, -1, i / 2, 98) : MOVEMENT_SENTINEL;
    for (int i = 0; i < 2 * p; i++) all[i] = MOVEMENT_SENTINEL;
    rc = MPI_Gather(MPI_BOTTOM, 1, absolute, all, 2, MPI_DOUBLE, root, MPI_COMM_WORLD);
    check_expect(CHECK_GATHER, MPI_COMM_WORLD, 1, 2 * p, MPI_DOUBLE);
    for (int i = 0; i < 2 * p && is_root; i++)
        if (!CHECK(rc == MPI_SUCCESS && all[i] == movement_value(i / 2, -1, (size_t)i % 2, 98),
                   "gather from MPI_BOTTOM: [%d] is %g", i, all[i]))
            break;

    for (int i = 0; i < 2 * p; i++) all[i] = movement_value(root, i / 2, (size_t)i % 2, 99);
    for (int i = 0; i < 4; i++) at[i] = MOVEMENT_SENTINEL;
    rc = MPI_Scatter(all, 2, MPI_DOUBLE, MPI_BOTTOM, 1, absolute, root, MPI_COMM_WORLD);
    check_expect(CHECK_SCATTER, MPI_COMM_WORLD, 1, 2 * p, MPI_DOUBLE);
    CHECK(rc == MPI_SUCCESS && at[0] == movement_value(root, g_me, 0, 99) &&
              at[2] == movement_value(root, g_me, 1, 99) && at[1] == MOVEMENT_SENTINEL &&
              at[3] == MOVEMENT_SENTINEL,
          "scatter into MPI_BOTTOM: %g %g %g %g", at[0], at[1], at[2], at[3]);
    MPI_Type_free(&absolute);
    free(all);
}

/* ---- reductions: a user-defined sum over a signature of doubles --------------------------- */

/* inout += in over the doubles of each element, wherever the layout puts them. */
static void layout_sum(void *in_, void *inout_, int *len, MPI_Datatype *type) {
    const double *in = in_;
    double *inout = inout_;
    const layout_t *l = &layouts[0];
    for (int i = 0; i < NLAYOUTS; i++)
        if (layouts[i].type == *type) l = &layouts[i];
    for (size_t e = 0; e < (size_t)*len; e++)
        for (size_t i = 0; i < l->per; i++)
            inout[e * l->stride + l->inner[i]] += in[e * l->stride + l->inner[i]];
}
static MPI_Op sum_op;

/* shmcoll reduces contiguous layouts; a user function on one with gaps goes to the library. */
static int reduction_handled(const layout_t *l) {
    return l->stride == l->per;
}

static double input(int rank, size_t k) {
    return (double)(check_hash(rank, k, 95) % 1001) - 500.0;
}

static double mine_in(int j, size_t k) {
    return input(g_me, k);
}

/* Double k of this rank's result: the sum over ranks 0 .. upto-1 of the input's double first+k. */
static double sum_upto(int upto, size_t first, size_t k) {
    double s = 0;
    for (int r = 0; r < upto; r++) s += input(r, first + k);
    return s;
}

typedef enum { ALLREDUCE, REDUCE, RSB, RS, SCAN, EXSCAN, NREDUCTIONS } reduction_t;
static const char *const reduction_names[NREDUCTIONS] = {
    "allreduce", "reduce", "reduce_scatter_block", "reduce_scatter", "scan", "exscan"};
static const check_coll_t reduction_colls[NREDUCTIONS] = {
    CHECK_ALLREDUCE,      CHECK_REDUCE, CHECK_REDUCE_SCATTER_BLOCK,
    CHECK_REDUCE_SCATTER, CHECK_SCAN,   CHECK_EXSCAN};

static void test_reduction(reduction_t which, size_t m, const layout_t *l, int in_place) {
    const int p = check_size, root = (int)(m % (size_t)p);
    const int call = calls++, large = use_large(call);
    /* Block sizes in doubles: reduce_scatter's blocks are uneven pairs, the others m. */
    size_t blocks[MAXP], total = m;
    if (which == RSB || which == RS) {
        total = 0;
        for (int j = 0; j < p; j++) {
            blocks[j] = which == RSB ? m : 2 * movement_count(m / 2, j, 96);
            total += blocks[j];
        }
    }
    size_t first = 0;
    for (int j = 0; (which == RSB || which == RS) && j < g_me; j++) first += blocks[j];
    const size_t result = which == RSB || which == RS ? blocks[g_me] : m;
    const int upto = which == SCAN ? g_me + 1 : which == EXSCAN ? g_me : p;
    const int has_result = which == REDUCE ? g_me == root : which == EXSCAN ? g_me > 0 : 1;
    in_place = in_place && !(which == REDUCE && (g_me != root || root != 0));

    side_t send, recv;
    side_uniform(&send, l, 1, total);
    side_uniform(&recv, l, 1, in_place ? total : result);
    side_fill(in_place ? &recv : &send, -1, mine_in);
    const void *sendbuf = in_place ? MPI_IN_PLACE : send.buf;
    const MPI_Count count = (MPI_Count)(total / l->per);
    int rc = MPI_SUCCESS;
    movement_args_t args = {NULL, NULL};
    switch (which) {
    case ALLREDUCE:
        rc = MPI_Allreduce(sendbuf, recv.buf, (int)count, l->type, sum_op, MPI_COMM_WORLD);
        break;
    case REDUCE:
        rc = MPI_Reduce(sendbuf, recv.buf, (int)count, l->type, sum_op, root, MPI_COMM_WORLD);
        break;
    case RSB:
#if MPI_VERSION >= 4
        if (large)
            rc = MPI_Reduce_scatter_block_c(sendbuf, recv.buf, (MPI_Count)(m / l->per), l->type,
                                            sum_op, MPI_COMM_WORLD);
        else
#endif
            rc = MPI_Reduce_scatter_block(sendbuf, recv.buf, (int)(m / l->per), l->type, sum_op,
                                          MPI_COMM_WORLD);
        break;
    case RS: {
        size_t counts[MAXP];
        for (int j = 0; j < p; j++) counts[j] = blocks[j] / l->per;
        args = movement_args(counts, counts, p, large);
#if MPI_VERSION >= 4
        if (large)
            rc = MPI_Reduce_scatter_c(sendbuf, recv.buf, args.counts, l->type, sum_op,
                                      MPI_COMM_WORLD);
        else
#endif
            rc =
                MPI_Reduce_scatter(sendbuf, recv.buf, args.counts, l->type, sum_op, MPI_COMM_WORLD);
        break;
    }
    case SCAN:
        rc = MPI_Scan(sendbuf, recv.buf, (int)count, l->type, sum_op, MPI_COMM_WORLD);
        break;
    default:
        rc = MPI_Exscan(sendbuf, recv.buf, (int)count, l->type, sum_op, MPI_COMM_WORLD);
        break;
    }
    check_expect(reduction_colls[which], MPI_COMM_WORLD, reduction_handled(l), count, l->type);
    char what[160];
    snprintf(what, sizeof what, "%s m %zu%s layout %s", reduction_names[which], m,
             in_place ? " in place" : "", l->name);
    CHECK(rc == MPI_SUCCESS, "%s: rc %d", what, rc);
    if (has_result) {
        /* Only the result's doubles are checked: in place, the input beyond it is undefined. */
        for (size_t k = 0; k < result; k++)
            if (!CHECK(recv.buf[where(&recv, 0, k)] == sum_upto(upto, first, k),
                       "%s: double %zu is %g, expected %g", what, k, recv.buf[where(&recv, 0, k)],
                       sum_upto(upto, first, k)))
                break;
        for (size_t i = 0; i < recv.mem; i++) { /* gaps inside and after the elements */
            size_t element = i / l->stride, offset = i % l->stride;
            int data = element < recv.counts[0] &&
                       (offset == l->inner[0] || (l->per == 2 && offset == l->inner[1]));
            if (!data && !CHECK(recv.buf[i] == MOVEMENT_SENTINEL, "%s: gap %zu written", what, i))
                break;
        }
    }
    if (!in_place) side_check(&send, mine_in, what); /* unchanged */
    movement_args_free(&args);
    side_free(&send), side_free(&recv);
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    g_me = check_rank;
    if (!CHECK(check_size <= MAXP, "at most %d ranks", MAXP)) return check_finish("test_datatypes");
    layouts_create();
    MPI_Op_create(layout_sum, 1, &sum_op);
    static const size_t sizes[] = {0, 6, 1000, 60000}; /* doubles per block; even */
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t m = sizes[s];
        for (int varying = 0; varying <= 1; varying++) {
            for (int root = 0; root < check_size; root++) {
                if (m >= 60000 && root != check_size - 1) continue;
                const int in_place = (root + (int)s + varying) % 2 == 1;
                test_gather(m, root, varying, in_place);
                test_scatter(m, root, varying, !in_place);
            }
            for (int in_place = 0; in_place <= 1; in_place++) {
                test_allgather(m, varying, in_place);
                test_alltoall(m, varying, in_place);
            }
        }
        for (int li = 0; li < NLAYOUTS; li++) {
            /* the library's own calls are slow on an oversubscribed node: two sizes suffice */
            if (!reduction_handled(&layouts[li]) && (m == 0 || m >= 60000)) continue;
            for (reduction_t which = ALLREDUCE; which < NREDUCTIONS; which++)
                test_reduction(which, m, &layouts[li], (li + (int)which + (int)s) % 2);
        }
    }
    test_bottom();
    MPI_Op_free(&sum_op);
    layouts_free();
    return check_finish("test_datatypes");
}
