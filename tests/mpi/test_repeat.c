/* Calls repeated with the same arguments (src/mpi/repeat.h): a repeat takes the prepared call of
 * the last one, so whatever can differ under the same argument bytes must not be kept.
 *
 * - The same arguments over and over with new contents, interleaved with other arguments on the
 *   same buffers (another count, root, MPI_IN_PLACE), for each collective that keeps its calls:
 *   every result right.
 * - The v-variants called again with the same arrays, whose contents then change: the new counts
 *   must count.
 * - A derived datatype freed and another made, which the MPI library may give the freed one's
 *   handle, used with the same buffer and count: the new type's size must count (bcast and
 *   allgather of k ints, k = 1..4, with a guard after the data).
 * - A user op freed and another made in its place (sum, then max, then a product), the same
 *   allreduce each time: the new op must reduce.
 * - A communicator freed and another of other members made in its place: the new one's root.
 * Whether a handle came back is printed, not required (the MPI library decides).
 * Before each call of the first part the odd ranks write over the stack below them (scribble),
 * the even ranks do not: a repeat must not depend on bytes the arguments do not set (the padding
 * of the arguments' record, left as the stack had it, once made equal calls repeats on the even
 * ranks and not on the odd ones; under given tuning the two ways then differed and the ranks
 * parted: the run hung). */
#include "mpi_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N     16
#define ROUND 3 /* calls of one set of arguments in a row */

static void fill(int *v, int n, int salt) {
    for (int i = 0; i < n; i++) v[i] = (int)(check_hash(check_rank, (size_t)i, salt) % 1000);
}

/* The odd ranks' stack below the caller, overwritten with bytes that change every time. */
__attribute__((noinline)) static void scribble(void) {
    static unsigned char fresh;
    volatile unsigned char below[4096];
    fresh++;
    if (check_rank % 2)
        for (size_t i = 0; i < sizeof below; i++) below[i] = (unsigned char)(fresh + i);
}

static int value(int rank, int i, int salt) {
    return (int)(check_hash(rank, (size_t)i, salt) % 1000);
}

/* Allreduce, bcast, gather, scatter, allgather, alltoall and reduce_scatter_block, each called
 * ROUND times in a row with the same arguments, then with other ones, over `rounds` rounds. */
static void same_arguments(int rounds) {
    const int p = check_size;
    static int in[N * 64], out[N * 64];
    for (int r = 0; r < rounds; r++) {
        const int n = r % 2 ? N : N / 2, root = r % p, salt = r * 100;
        for (int k = 0; k < ROUND; k++) {
            const int s = salt + k;
            fill(in, n * p, s);
            scribble();
            MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++) {
                int want = 0;
                for (int q = 0; q < p; q++) want += value(q, i, s);
                if (!CHECK(out[i] == want, "allreduce round %d call %d [%d]", r, k, i)) break;
            }
            if (check_rank == root) fill(out, n, s);
            scribble();
            MPI_Bcast(out, n, MPI_INT, root, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++)
                if (!CHECK(out[i] == value(root, i, s), "bcast round %d call %d [%d]", r, k, i))
                    break;
            scribble();
            MPI_Gather(in, n, MPI_INT, out, n, MPI_INT, root, MPI_COMM_WORLD);
            for (int q = 0; check_rank == root && q < p; q++)
                for (int i = 0; i < n; i++)
                    if (!CHECK(out[q * n + i] == value(q, i, s), "gather round %d [%d][%d]", r, q,
                               i))
                        q = p;
            scribble();
            MPI_Scatter(in, n, MPI_INT, out, n, MPI_INT, root, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++)
                if (!CHECK(out[i] == value(root, check_rank * n + i, s), "scatter round %d [%d]", r,
                           i))
                    break;
            scribble();
            MPI_Allgather(in, n, MPI_INT, out, n, MPI_INT, MPI_COMM_WORLD);
            for (int q = 0; q < p; q++)
                for (int i = 0; i < n; i++)
                    if (!CHECK(out[q * n + i] == value(q, i, s), "allgather round %d [%d][%d]", r,
                               q, i))
                        q = p;
            scribble();
            MPI_Alltoall(in, n, MPI_INT, out, n, MPI_INT, MPI_COMM_WORLD);
            for (int q = 0; q < p; q++)
                for (int i = 0; i < n; i++)
                    if (!CHECK(out[q * n + i] == value(q, check_rank * n + i, s),
                               "alltoall round %d [%d][%d]", r, q, i))
                        q = p;
            scribble();
            MPI_Reduce_scatter_block(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++) {
                int want = 0;
                for (int q = 0; q < p; q++) want += value(q, check_rank * n + i, s);
                if (!CHECK(out[i] == want, "reduce_scatter_block round %d [%d]", r, i)) break;
            }
        }
        /* The same buffer in place: other arguments, then the first ones again next round. */
        fill(out, n, salt);
        MPI_Allreduce(MPI_IN_PLACE, out, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) {
            int want = 0;
            for (int q = 0; q < p; q++) want = value(q, i, salt) > want ? value(q, i, salt) : want;
            if (!CHECK(out[i] == want, "allreduce in place round %d [%d]", r, i)) break;
        }
    }
}

/* Block sizes of round r from rank q to rank t (alltoallv: its arguments are the arrays only). */
static int block(int r, int q, int t) {
    return 1 + (q + 2 * t + r) % 4;
}

/* Rank q's block in round r (gatherv, scatterv, allgatherv): only rank r mod p's changes from
 * one round to the next, so the others call again with the same arguments, their own count
 * included, while the arrays they pass say something else. */
static int own(int r, int q) {
    return 1 + (q + (q == r % check_size ? r : 0)) % 4;
}

/* Gatherv, scatterv, allgatherv and alltoallv called ROUND times in a row with the same
 * arguments, then with other counts written into the same arrays: every result right. */
static void same_arrays(int rounds) {
    const int p = check_size, me = check_rank;
    static int cnt[64], dsp[64], rcnt[64], rdsp[64], in[4 * 64], out[4 * 64 + CHECK_GUARD];
    for (int r = 0; r < rounds; r++) {
        const int root = (r / 2) % p;
        for (int k = 0; k < ROUND; k++) {
            const int s = 3000 + 10 * r + k;
            int at = 0, rat = 0;
            for (int q = 0; q < p; q++) {
                cnt[q] = own(r, q), dsp[q] = at, at += cnt[q];
                rcnt[q] = block(r, q, me), rdsp[q] = rat, rat += rcnt[q];
            }
            fill(in, 4 * p, s);
            MPI_Gatherv(in, cnt[me], MPI_INT, out, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD);
            for (int q = 0; me == root && q < p; q++)
                for (int i = 0; i < cnt[q]; i++)
                    if (!CHECK(out[dsp[q] + i] == value(q, i, s), "gatherv round %d [%d][%d]", r, q,
                               i))
                        q = p;
            MPI_Scatterv(in, cnt, dsp, MPI_INT, out, cnt[me], MPI_INT, root, MPI_COMM_WORLD);
            for (int i = 0; i < cnt[me]; i++)
                if (!CHECK(out[i] == value(root, dsp[me] + i, s), "scatterv round %d [%d]", r, i))
                    break;
            for (int i = 0; i < 4 * p + CHECK_GUARD; i++) out[i] = -1;
            MPI_Allgatherv(in, cnt[me], MPI_INT, out, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
            for (int q = 0; q < p; q++)
                for (int i = 0; i < cnt[q]; i++)
                    if (!CHECK(out[dsp[q] + i] == value(q, i, s), "allgatherv round %d [%d][%d]", r,
                               q, i))
                        q = p;
            CHECK(out[at] == -1, "allgatherv round %d wrote past its data", r);
            /* alltoallv: rank q's block for t holds its elements 4t.. (at most 4 of them). */
            int sat = 0;
            static int scnt[64], sdsp[64], send[4 * 64];
            for (int t = 0; t < p; t++) {
                scnt[t] = block(r, me, t), sdsp[t] = sat;
                for (int i = 0; i < scnt[t]; i++) send[sat + i] = value(me, 4 * t + i, s);
                sat += scnt[t];
            }
            MPI_Alltoallv(send, scnt, sdsp, MPI_INT, out, rcnt, rdsp, MPI_INT, MPI_COMM_WORLD);
            for (int q = 0; q < p; q++)
                for (int i = 0; i < rcnt[q]; i++)
                    if (!CHECK(out[rdsp[q] + i] == value(q, 4 * me + i, s),
                               "alltoallv round %d [%d][%d]", r, q, i))
                        q = p;
        }
    }
}

/* Types of k = 1..4 ints made and freed in turn, each used with the same buffer and count. */
static void derived_types(void) {
    const int p = check_size;
    static int buf[4 + CHECK_GUARD], all[4 * 64 + CHECK_GUARD];
    MPI_Datatype first = MPI_DATATYPE_NULL;
    int reused = 0;
    for (int k = 1; k <= 4; k++) {
        MPI_Datatype type;
        MPI_Type_contiguous(k, MPI_INT, &type);
        MPI_Type_commit(&type);
        if (k == 1) first = type;
        reused += k > 1 && type == first;
        for (int call = 0; call < ROUND; call++) {
            const int s = 10 * k + call;
            for (int i = 0; i < 4 + CHECK_GUARD; i++) buf[i] = -1;
            if (check_rank == 0) fill(buf, k, s);
            MPI_Bcast(buf, 1, type, 0, MPI_COMM_WORLD);
            for (int i = 0; i < 4; i++)
                if (!CHECK(buf[i] == (i < k ? value(0, i, s) : -1),
                           "bcast of %d ints, call %d: [%d] = %d", k, call, i, buf[i]))
                    break;
            fill(buf, k, s);
            for (int i = 0; i < 4 * p + CHECK_GUARD; i++) all[i] = -1;
            MPI_Allgather(buf, 1, type, all, 1, type, MPI_COMM_WORLD);
            for (int q = 0; q < p; q++)
                for (int i = 0; i < k; i++)
                    if (!CHECK(all[q * k + i] == value(q, i, s), "allgather of %d ints [%d][%d]", k,
                               q, i))
                        q = p;
            CHECK(all[p * k] == -1, "allgather of %d ints wrote past its data", k);
        }
        MPI_Type_free(&type);
    }
    if (check_rank == 0) printf("derived types: the freed handle came back %d times\n", reused);
}

/* Elements are pairs (a, b), the map x -> a x + b modulo M; the ops combine the earlier ranks'
 * pair `in` with the later ones' `inout`: sum and max per field (commutative), and applying the
 * earlier map first (associative, not commutative: any order but the ranks' shows). */
#define M 1009
static void sum_fn(void *in, void *inout, int *len, MPI_Datatype *type) {
    for (int i = 0; i < 2 * *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}
static void max_fn(void *in, void *inout, int *len, MPI_Datatype *type) {
    for (int i = 0; i < 2 * *len; i++)
        if (((int *)in)[i] > ((int *)inout)[i]) ((int *)inout)[i] = ((int *)in)[i];
}
static void compose_fn(void *in, void *inout, int *len, MPI_Datatype *type) {
    for (int i = 0; i < *len; i++) {
        const int *u = (const int *)in + 2 * i;
        int *v = (int *)inout + 2 * i;
        v[1] = (v[0] * u[1] + v[1]) % M;
        v[0] = v[0] * u[0] % M;
    }
}

/* Ops made and freed in turn, each used in the same allreduce of pairs (MPI_2INT). */
static void user_ops(void) {
    const int p = check_size;
    MPI_User_function *fns[3] = {sum_fn, max_fn, compose_fn};
    static int in[2 * N], out[2 * N];
    MPI_Op first = MPI_OP_NULL;
    int reused = 0;
    for (int f = 0; f < 3; f++) {
        MPI_Op op;
        MPI_Op_create(fns[f], f < 2, &op);
        if (f == 0) first = op;
        reused += f > 0 && op == first;
        for (int call = 0; call < ROUND; call++) {
            const int s = 1000 + 10 * f + call;
            for (int i = 0; i < 2 * N; i++) in[i] = 1 + value(check_rank, i, s) % 97;
            MPI_Allreduce(in, out, N, MPI_2INT, op, MPI_COMM_WORLD);
            for (int i = 0; i < N; i++) {
                int a = 1 + value(0, 2 * i, s) % 97, b = 1 + value(0, 2 * i + 1, s) % 97;
                for (int q = 1; q < p; q++) {
                    const int c = 1 + value(q, 2 * i, s) % 97, d = 1 + value(q, 2 * i + 1, s) % 97;
                    if (f == 0) a += c, b += d;
                    if (f == 1) a = c > a ? c : a, b = d > b ? d : b;
                    if (f == 2) b = (c * b + d) % M, a = c * a % M;
                }
                if (!CHECK(out[2 * i] == a && out[2 * i + 1] == b,
                           "user op %d call %d [%d]: (%d, %d), not (%d, %d)", f, call, i,
                           out[2 * i], out[2 * i + 1], a, b))
                    break;
            }
        }
        MPI_Op_free(&op);
    }
    if (check_rank == 0) printf("user ops: the freed handle came back %d times\n", reused);
}

/* A duplicate of MPI_COMM_WORLD, then the reverse order of its ranks, each in turn under what
 * may be the same handle: the same bcast from root 0 must come from the new rank 0. */
static void communicators(void) {
    static int buf[N];
    for (int c = 0; c < 4; c++) {
        MPI_Comm comm;
        MPI_Comm_split(MPI_COMM_WORLD, 0, c % 2 ? -check_rank : check_rank, &comm);
        const int world_root = c % 2 ? check_size - 1 : 0;
        for (int call = 0; call < 2 * ROUND + 5; call++) { /* past the set-up threshold */
            const int s = 2000 + 10 * c + call;
            if (check_rank == world_root) fill(buf, N, s);
            MPI_Bcast(buf, N, MPI_INT, 0, comm);
            for (int i = 0; i < N; i++)
                if (!CHECK(buf[i] == value(world_root, i, s), "communicator %d call %d [%d]", c,
                           call, i))
                    break;
        }
        MPI_Comm_free(&comm);
    }
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    /* rounds of the first two parts: more where the bands must reach their verdicts first */
    const int rounds = argc > 1 ? atoi(argv[1]) : 8;
    same_arguments(rounds);
    same_arrays(rounds);
    derived_types();
    user_ops();
    communicators();
    return check_finish("test_repeat");
}
