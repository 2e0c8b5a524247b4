/* The paths where shmcoll hands calls to the MPI library, or must cope with unusual input, give
 * correct results and clean up:
 *   - reduce/allreduce/scan/reduce_scatter_block with a user op on a non-contiguous type (a vector
 *     with gaps, whose user function expects that layout): MPI library;
 *   - bcast where some ranks use a vector type and the others plain ints of the same signature:
 *     handled (packed on the vector ranks), no deadlock;
 *   - a predefined op on a derived datatype (MPI_Type_dup(MPI_DOUBLE) with MPI_SUM), which MPI
 *     does not allow for reductions: the MPI library, which returns its error (MPI_ERRORS_RETURN);
 *   - an intercommunicator: MPI library for every collective;
 *   - sub-communicators from MPI_Comm_split and MPI_Comm_dup: handled, and MPI_Comm_free unmaps
 *     their shared segments (checked in /proc/self/maps); MPI_COMM_SELF; a communicator left
 *     for MPI_Finalize;
 *   - p = 1 (run with -n 1). */
#include "mpi_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1000

/* Elements of the vector type: two ints, 8 bytes apart (a gap between them). */
static void vector_sum(void *in_, void *inout_, int *len, MPI_Datatype *type) {
    const int *in = in_;
    int *inout = inout_;
    for (int k = 0; k < *len; k++) {
        inout[3 * k] += in[3 * k];
        inout[3 * k + 2] += in[3 * k + 2];
    }
}

static int input(int rank, int k) {
    return (int)(check_hash(rank, (size_t)k, 41) % 1000);
}

static void test_noncontiguous_reductions(void) {
    MPI_Datatype pair;
    MPI_Op sum;
    MPI_Type_vector(2, 1, 2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Op_create(vector_sum, 1, &sum);
    /* N elements of 12 bytes: ints 3k and 3k+2 are data, 3k+1 is a gap */
    int *send = malloc(3 * N * sizeof(int)), *recv = malloc(3 * N * sizeof(int));
    for (int k = 0; k < 3 * N; k++) send[k] = (k % 3 == 1) ? -1 : input(check_rank, k);
    for (int root = -1; root < 1; root++) { /* -1: allreduce, 0: reduce at root 0 */
        for (int k = 0; k < 3 * N; k++) recv[k] = -7;
        int rc;
        if (root < 0)
            rc = MPI_Allreduce(send, recv, N, pair, sum, MPI_COMM_WORLD);
        else
            rc = MPI_Reduce(send, recv, N, pair, sum, root, MPI_COMM_WORLD);
        check_expect(root < 0 ? CHECK_ALLREDUCE : CHECK_REDUCE, MPI_COMM_WORLD, 0, N, pair);
        CHECK(rc == MPI_SUCCESS, "vector reduction rc %d", rc);
        if (root >= 0 && check_rank != root) continue;
        for (int k = 0; k < 3 * N; k++) {
            int want = -7;
            if (k % 3 != 1)
                for (int r = 0, s = 0; r <= check_size; r++) {
                    if (r == check_size)
                        want = s;
                    else
                        s += input(r, k);
                }
            if (!CHECK(recv[k] == want, "%s on a vector type: int %d is %d, expected %d",
                       root < 0 ? "allreduce" : "reduce", k, recv[k], want))
                break;
        }
    }

    /* scan: rank r gets the sum over ranks 0..r */
    for (int k = 0; k < 3 * N; k++) recv[k] = -7;
    int rc = MPI_Scan(send, recv, N, pair, sum, MPI_COMM_WORLD);
    check_expect(CHECK_SCAN, MPI_COMM_WORLD, 0, N, pair);
    CHECK(rc == MPI_SUCCESS, "scan on a vector type: rc %d", rc);
    for (int k = 0; k < 3 * N; k++) {
        int want = -7;
        if (k % 3 != 1) {
            want = 0;
            for (int r = 0; r <= check_rank; r++) want += input(r, k);
        }
        if (!CHECK(recv[k] == want, "scan on a vector type: int %d is %d, expected %d", k, recv[k],
                   want))
            break;
    }

    /* reduce_scatter_block: N / p pairs each (the first p * (N / p) pairs of the input) */
    const int block = N / check_size;
    for (int k = 0; k < 3 * N; k++) recv[k] = -7;
    rc = MPI_Reduce_scatter_block(send, recv, block, pair, sum, MPI_COMM_WORLD);
    check_expect_bytes(CHECK_REDUCE_SCATTER_BLOCK, MPI_COMM_WORLD, 0,
                       (uint64_t)check_size * block * 2 * sizeof(int));
    CHECK(rc == MPI_SUCCESS, "reduce_scatter_block on a vector type: rc %d", rc);
    for (int k = 0; k < 3 * block; k++) {
        int want = -7;
        if (k % 3 != 1) {
            want = 0;
            for (int r = 0; r < check_size; r++) want += input(r, 3 * block * check_rank + k);
        }
        if (!CHECK(recv[k] == want,
                   "reduce_scatter_block on a vector type: int %d is %d, "
                   "expected %d",
                   k, recv[k], want))
            break;
    }
    free(send);
    free(recv);
    MPI_Op_free(&sum);
    MPI_Type_free(&pair);
}

/* Odd ranks receive into every other int of a 2N buffer through one vector element; even ranks
 * use N plain ints. The signatures match (N ints), the layouts do not. */
static void test_bcast_vector_vs_contiguous(void) {
    MPI_Datatype strided;
    MPI_Type_vector(N, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    int *buf = malloc(2 * N * sizeof(int));
    for (int root = 0; root < check_size; root++) {
        int odd = check_rank % 2;
        for (int k = 0; k < 2 * N; k++) buf[k] = -3;
        if (check_rank == root)
            for (int k = 0; k < N; k++) buf[odd ? 2 * k : k] = input(root, k);
        int rc = odd ? MPI_Bcast(buf, 1, strided, root, MPI_COMM_WORLD)
                     : MPI_Bcast(buf, N, MPI_INT, root, MPI_COMM_WORLD);
        check_expect(CHECK_BCAST, MPI_COMM_WORLD, 1, check_rank % 2 ? 1 : N,
                     check_rank % 2 ? strided : MPI_INT);
        CHECK(rc == MPI_SUCCESS, "bcast vector/contiguous rc %d", rc);
        for (int k = 0; k < N; k++) {
            if (!CHECK(buf[odd ? 2 * k : k] == input(root, k),
                       "bcast vector/contiguous root %d: int %d differs", root, k))
                break;
            if (odd && !CHECK(buf[2 * k + 1] == -3, "bcast into a vector type wrote a gap")) break;
        }
    }
    free(buf);
    MPI_Type_free(&strided);
}

static void test_predefined_op_on_derived_type(void) {
    MPI_Comm comm;
    MPI_Datatype dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Type_dup(MPI_DOUBLE, &dup);
    double in[4] = {1, 2, 3, 4}, out[4] = {0};
    int rc = MPI_Allreduce(in, out, 4, dup, MPI_SUM, comm);
    check_expect(CHECK_ALLREDUCE, comm, 0, 4, dup);
    CHECK(rc != MPI_SUCCESS, "allreduce with MPI_SUM on a derived type succeeded");
    rc = MPI_Scan(in, out, 4, dup, MPI_MAX, comm);
    check_expect(CHECK_SCAN, comm, 0, 4, dup);
    CHECK(rc != MPI_SUCCESS, "scan with MPI_MAX on a derived type succeeded");
    MPI_Type_free(&dup);
    MPI_Comm_free(&comm);
}

static void test_intercomm(void) {
    if (check_size < 2) return;
    MPI_Comm half, inter;
    int color = check_rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, check_rank, &half);
    /* leaders: world rank 0 (even group) and world rank 1 (odd group) */
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 7, &inter);
    int remote_size;
    MPI_Comm_remote_size(inter, &remote_size);

    /* allreduce on an intercommunicator: each group gets the reduction over the other group */
    int mine = input(check_rank, 0), sum = -1, want = 0;
    for (int r = 1 - color; r < check_size; r += 2) want += input(r, 0);
    int rc = MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter);
    check_expect(CHECK_ALLREDUCE, inter, 0, 1, MPI_INT);
    CHECK(rc == MPI_SUCCESS && sum == want, "intercomm allreduce: %d, expected %d", sum, want);

    /* bcast from the even group's rank 0 to the odd group */
    int value = check_rank == 0 ? 4242 : -1;
    int root = color == 0 ? (check_rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    rc = MPI_Bcast(&value, 1, MPI_INT, root, inter);
    check_expect(CHECK_BCAST, inter, 0, 1, MPI_INT);
    CHECK(rc == MPI_SUCCESS &&
              (color == 0 ? value == (check_rank == 0 ? 4242 : -1) : value == 4242),
          "intercomm bcast: %d", value);

    rc = MPI_Barrier(inter);
    check_expect(CHECK_BARRIER, inter, 0, 0, MPI_BYTE);
    CHECK(rc == MPI_SUCCESS, "intercomm barrier rc %d", rc);

    /* allgather and alltoall: each group receives from the other group, in its rank order (the
     * payload of these collectives is not counted on an intercommunicator) */
    int *from = malloc((size_t)remote_size * sizeof(int));
    int *to = malloc((size_t)remote_size * sizeof(int));
    rc = MPI_Allgather(&mine, 1, MPI_INT, from, 1, MPI_INT, inter);
    check_expect_bytes(CHECK_ALLGATHER, inter, 0, 0);
    for (int i = 0; i < remote_size && rc == MPI_SUCCESS; i++)
        if (!CHECK(from[i] == input(2 * i + 1 - color, 0), "intercomm allgather: [%d] %d", i,
                   from[i]))
            break;
    for (int i = 0; i < remote_size; i++) to[i] = check_rank * 100 + i;
    rc = MPI_Alltoall(to, 1, MPI_INT, from, 1, MPI_INT, inter);
    check_expect_bytes(CHECK_ALLTOALL, inter, 0, 0);
    int local_rank;
    MPI_Comm_rank(inter, &local_rank);
    for (int i = 0; i < remote_size && rc == MPI_SUCCESS; i++)
        if (!CHECK(from[i] == (2 * i + 1 - color) * 100 + local_rank, "intercomm alltoall: [%d] %d",
                   i, from[i]))
            break;
    free(from);
    free(to);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

/* Shared mappings of files in the segment directory (unlinked files still show there). */
static int segment_mappings(void) {
    const char *dir = getenv("SHMCOLL_SHM_DIR");
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!dir || !maps) {
        if (maps) fclose(maps);
        return 0;
    }
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, maps))
        if (strstr(line, dir)) n++;
    fclose(maps);
    return n;
}

static void use_comm(MPI_Comm comm, const char *what) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    long mine = rank + 1, sum = 0;
    int rc = MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm);
    check_expect(CHECK_ALLREDUCE, comm, 1, 1, MPI_LONG);
    CHECK(rc == MPI_SUCCESS && sum == (long)size * (size + 1) / 2, "%s allreduce: %ld", what, sum);
    int value = rank == size - 1 ? 99 : 0;
    rc = MPI_Bcast(&value, 1, MPI_INT, size - 1, comm);
    check_expect(CHECK_BCAST, comm, 1, 1, MPI_INT);
    CHECK(rc == MPI_SUCCESS && value == 99, "%s bcast: %d", what, value);
    long max = -1;
    rc = MPI_Reduce(&mine, &max, 1, MPI_LONG, MPI_MAX, 0, comm);
    check_expect(CHECK_REDUCE, comm, 1, 1, MPI_LONG);
    CHECK(rc == MPI_SUCCESS && (rank != 0 || max == size), "%s reduce: %ld", what, max);
    rc = MPI_Barrier(comm);
    check_expect(CHECK_BARRIER, comm, 1, 0, MPI_BYTE);
    CHECK(rc == MPI_SUCCESS, "%s barrier rc %d", what, rc);
}

static void test_subcomms(void) {
    MPI_Barrier(MPI_COMM_WORLD); /* world's own team exists before counting mappings */
    check_expect(CHECK_BARRIER, MPI_COMM_WORLD, 1, 0, MPI_BYTE);
    /* A freed communicator's segment stays mapped, kept for the next communicator of the same
     * ranks (core/team_pool.h): the mappings grow by at most SHMCOLL_KEEP_SEGMENTS, in the first
     * round, and not again in later rounds, whose communicators take the kept segments. */
    const int before = segment_mappings();
    int first = 0;
    for (int round = 0; round < 3; round++) {
        MPI_Comm split, dup;
        MPI_Comm_split(MPI_COMM_WORLD, check_rank % 2, check_size - check_rank, &split);
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        use_comm(split, "split");
        use_comm(dup, "dup");
        MPI_Comm_free(&split);
        MPI_Comm_free(&dup);
        if (round == 0) first = segment_mappings();
    }
    const int after = segment_mappings();
    const char *keep = getenv("SHMCOLL_KEEP_SEGMENTS");
    const int kept_most = keep ? atoi(keep) : 4;
    CHECK(after == first && after - before <= kept_most,
          "%d segment mapping(s) before sub-communicators, %d after freeing the first ones, %d "
          "after freeing them all (at most %d kept)",
          before, first, after, kept_most);

    /* MPI_COMM_SELF (every process is its rank 0, so every process counts its calls), and a
     * communicator the program never frees: MPI_Finalize must cope with both. */
    use_comm(MPI_COMM_SELF, "self");
    MPI_Comm kept;
    MPI_Comm_dup(MPI_COMM_WORLD, &kept);
    use_comm(kept, "kept");
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    test_noncontiguous_reductions();
    test_bcast_vector_vs_contiguous();
    test_predefined_op_on_derived_type();
    test_intercomm();
    test_subcomms();
    return check_finish("test_fallback");
}
