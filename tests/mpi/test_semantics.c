/* What MPI promises about requests and the objects an operation uses, with shmcoll's
 * non-blocking and persistent collectives among them:
 *   - MPI_Waitall (and MPI_Waitsome) that return MPI_ERR_IN_STATUS set the MPI_ERROR field of
 *     every status they report: the error for the request that failed (a truncated receive,
 *     under MPI_ERRORS_RETURN), MPI_SUCCESS for the others, collectives included;
 *   - MPI_Waitany, MPI_Testany, MPI_Waitsome and MPI_Waitall with MPI_STATUS(ES)_IGNORE over
 *     arrays that mix collectives, point-to-point requests and MPI_REQUEST_NULL;
 *   - inactive persistent collectives in the request calls: complete at once, stay allocated;
 *   - a derived datatype freed right after MPI_Ibcast / MPI_Iallgather / MPI_Bcast_init (MPI
 *     keeps it until the operation completes; the request is completed later, after other types
 *     were created, which may reuse the freed handle);
 *   - a user op freed right after MPI_Iallreduce / MPI_Ireduce, another created meanwhile;
 *   - a communicator freed while an operation on it is pending (it completes normally).
 * Every result is checked. Requests completed by another thread than the one that started them
 * are test_threads_nb.c's (here the process is single-threaded: Open MPI 4.1's MPI_Waitall under
 * MPI_THREAD_MULTIPLE does not return on some ranks after a request failed). Rank 0 names each
 * part as it begins; SHMCOLL_TEST_ONLY=text runs only the parts whose name contains the text. */
#include "mpi_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Open MPI 4 has the persistent collectives as an extension, named MPIX_*_init. */
#if MPI_VERSION < 4 && defined(OPEN_MPI)
#include <mpi-ext.h>
#define MPI_Allreduce_init MPIX_Allreduce_init
#define MPI_Bcast_init     MPIX_Bcast_init
#endif

/* Where the MPI library underneath departs from MPI itself (each use says how). */
#ifdef MPICH
#define MPICH_QUIRKS 1
#else
#define MPICH_QUIRKS 0
#endif
#if defined(OPEN_MPI) && MPI_VERSION < 4
#define OPEN_MPI_4_QUIRKS 1
#else
#define OPEN_MPI_4_QUIRKS 0
#endif

#define N        32
#define UNSET    (-12345) /* an MPI_ERROR no call sets */
#define BAD_SEND 2        /* ints sent to a receive of one: truncated */

static int p, me, partner; /* partner: the other rank of the pair (r ^ 1), or MPI_PROC_NULL */
/* MPI_STATUSES_IGNORE through a variable: MPICH's header declares the multi-request calls with
 * access attributes that make the compiler warn about the constant. */
static MPI_Status *volatile statuses_ignore;

static int val(int rank, int i, int s) {
    return (int)(check_hash(rank, (size_t)i, s) % 100000);
}

static int sum_of(int i, int s) {
    int sum = 0;
    for (int r = 0; r < p; r++) sum += val(r, i, s);
    return sum;
}

static int check_sums(const int *out, int n, int s, const char *what) {
    for (int i = 0; i < n; i++)
        if (!CHECK(out[i] == sum_of(i, s), "%s: [%d] = %d, expected %d", what, i, out[i],
                   sum_of(i, s)))
            return 0;
    return 1;
}

/* Whether the part runs (SHMCOLL_TEST_ONLY=text: only those whose name contains it), announced
 * by rank 0 first, so that the output of a job that hangs names it. */
static int wanted(const char *part) {
    const char *only = getenv("SHMCOLL_TEST_ONLY");
    if (only && !strstr(part, only)) return 0;
    if (me == 0) printf("semantics: %s\n", part), fflush(stdout);
    return 1;
}

static int error_class(int code) {
    int cls = code;
    MPI_Error_class(code, &cls);
    return cls;
}

/* Waitall over [Iallreduce, Irecv truncated, Ibcast, Isend, Ireduce] returns MPI_ERR_IN_STATUS:
 * the receive's status says MPI_ERR_TRUNCATE, every other one MPI_SUCCESS (completed, its handle
 * freed) or MPI_ERR_PENDING (neither completed nor failed, its handle kept, as MPICH leaves the
 * requests after a failed one), never nothing; the pending ones then complete in a second call.
 * Waitsome likewise for each status it reports. The collectives' results are right. */
static void err_in_status(MPI_Comm comm, int use_waitsome) {
    const char *what = use_waitsome ? "waitsome err_in_status" : "waitall err_in_status";
    int in[N], sum[N], bc[N], red[N], got = -1, bad[BAD_SEND] = {me, me};
    const int s = use_waitsome ? 41 : 40, root = s % p;
    for (int i = 0; i < N; i++) in[i] = val(me, i, s), sum[i] = red[i] = -1;
    for (int i = 0; i < N; i++) bc[i] = me == root ? val(root, i, s) : -1;
    MPI_Request req[5];
    MPI_Status status[5];
    MPI_Iallreduce(in, sum, N, MPI_INT, MPI_SUM, comm, &req[0]);
    /* The last rank of an odd number has no partner: it receives from MPI_PROC_NULL instead (no
     * error there) and only checks its collectives. */
    const int alone = partner == MPI_PROC_NULL;
    MPI_Irecv(&got, 1, MPI_INT, partner, 3, MPI_COMM_WORLD, &req[1]);
    MPI_Ibcast(bc, N, MPI_INT, root, comm, &req[2]);
    MPI_Isend(bad, BAD_SEND, MPI_INT, partner, 3, MPI_COMM_WORLD, &req[3]);
    MPI_Ireduce(in, red, N, MPI_INT, MPI_SUM, root, comm, &req[4]);
    int reported[5] = {0}; /* times each request was reported complete or failed */
    while (!alone) {
        int rc, outcount = 5, indices[5] = {0, 1, 2, 3, 4};
        for (int k = 0; k < 5; k++) status[k].MPI_ERROR = UNSET;
        if (use_waitsome) {
            rc = MPI_Waitsome(5, req, &outcount, indices, status);
            if (outcount == MPI_UNDEFINED) break;
        } else {
            rc = MPI_Waitall(5, req, status);
        }
        if (!CHECK(rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS, "%s: returned %d", what, rc))
            break;
        if (rc == MPI_SUCCESS) { /* the statuses' MPI_ERROR is not set then */
            for (int j = 0; j < outcount; j++) {
                CHECK(indices[j] != 1, "%s: returned MPI_SUCCESS with the truncated receive", what);
                reported[indices[j]]++;
            }
            if (use_waitsome) continue;
            break;
        }
        for (int j = 0; j < outcount; j++) {
            const int k = indices[j], err = status[j].MPI_ERROR;
            if (k == 1) {
                CHECK(error_class(err) == MPI_ERR_TRUNCATE,
                      "%s: the truncated receive's MPI_ERROR is %d", what, err);
                reported[k]++;
            } else if (err == MPI_SUCCESS) {
                CHECK(req[k] == MPI_REQUEST_NULL, "%s: request %d succeeded, handle kept", what, k);
                reported[k]++;
            } else if (!use_waitsome && err == MPI_ERR_PENDING) {
                CHECK(req[k] != MPI_REQUEST_NULL, "%s: request %d pending, handle freed", what, k);
            } else {
                CHECK(0, "%s: request %d's MPI_ERROR is %d, not MPI_SUCCESS%s", what, k, err,
                      use_waitsome ? "" : " nor MPI_ERR_PENDING");
                reported[k]++;
            }
        }
        if (reported[1] && !use_waitsome) { /* what is left completes without an error */
            CHECK(MPI_Waitall(5, req, statuses_ignore) == MPI_SUCCESS, "%s: the rest", what);
            for (int k = 0; k < 5; k++) reported[k] += !reported[k];
            break;
        }
    }
    if (alone) {
        CHECK(MPI_Waitall(5, req, status) == MPI_SUCCESS, "%s: without a partner", what);
    } else {
        CHECK(reported[1] == 1, "%s: the truncated receive reported %d times", what, reported[1]);
        for (int k = 0; k < 5; k++)
            CHECK(reported[k] == 1, "%s: request %d reported %d times", what, k, reported[k]);
    }
    for (int k = 0; k < 5; k++) CHECK(req[k] == MPI_REQUEST_NULL, "%s: request %d left", what, k);
    check_sums(sum, N, s, what);
    for (int i = 0; i < N; i++)
        if (!CHECK(bc[i] == val(root, i, s), "%s: ibcast [%d]", what, i)) break;
    if (me == root) check_sums(red, N, s, what);
}

/* Waitany and Testany with MPI_STATUS_IGNORE, Waitsome and Waitall with MPI_STATUSES_IGNORE, over
 * [Iallreduce, Irecv, NULL, Ibcast, Isend, Iallgather]: each request reported once, results right.
 */
static void ignored_statuses(MPI_Comm comm) {
    enum { K = 6 };
    for (int call = 0; call < 4; call++) {
        static const char *const names[4] = {"waitany", "testany", "waitsome", "waitall"};
        const int s = 50 + call, root = call % p;
        int in[N], sum[N], bc[N], gathered[N * 16], got = -1, token = val(me, 0, s);
        for (int i = 0; i < N; i++) in[i] = val(me, i, s), sum[i] = -1;
        for (int i = 0; i < N; i++) bc[i] = me == root ? val(root, i, s) : -1;
        MPI_Request req[K];
        MPI_Iallreduce(in, sum, N, MPI_INT, MPI_SUM, comm, &req[0]);
        MPI_Irecv(&got, 1, MPI_INT, partner, 4, MPI_COMM_WORLD, &req[1]);
        req[2] = MPI_REQUEST_NULL;
        MPI_Ibcast(bc, N, MPI_INT, root, comm, &req[3]);
        MPI_Isend(&token, 1, MPI_INT, partner, 4, MPI_COMM_WORLD, &req[4]);
        MPI_Iallgather(in, 2, MPI_INT, gathered, 2, MPI_INT, comm, &req[5]);
        int seen[K] = {0}, index, flag, outcount, indices[K], reports = 0;
        switch (call) {
        case 0:
        case 1:
            for (;;) {
                index = -2, flag = 0;
                if (call == 0)
                    MPI_Waitany(K, req, &index, MPI_STATUS_IGNORE), flag = 1;
                else
                    MPI_Testany(K, req, &index, &flag, MPI_STATUS_IGNORE);
                if (!flag) continue;
                if (index == MPI_UNDEFINED) break;
                if (!CHECK(index >= 0 && index < K && index != 2, "%s: index %d", names[call],
                           index))
                    break;
                seen[index]++, reports++;
                CHECK(req[index] == MPI_REQUEST_NULL, "%s: request %d not freed", names[call],
                      index);
            }
            break;
        case 2:
            for (;;) {
                MPI_Waitsome(K, req, &outcount, indices, statuses_ignore);
                if (outcount == MPI_UNDEFINED) break;
                for (int j = 0; j < outcount; j++) seen[indices[j]]++, reports++;
            }
            break;
        default:
            MPI_Waitall(K, req, statuses_ignore);
            for (int k = 0; k < K; k++) seen[k] += k != 2, reports += k != 2;
        }
        CHECK(reports == K - 1, "%s: %d requests reported, expected %d", names[call], reports,
              K - 1);
        for (int k = 0; k < K; k++) {
            CHECK(seen[k] == (k != 2), "%s: request %d reported %d times", names[call], k, seen[k]);
            CHECK(req[k] == MPI_REQUEST_NULL, "%s: request %d left", names[call], k);
        }
        check_sums(sum, N, s, names[call]);
        for (int i = 0; i < N; i++)
            if (!CHECK(bc[i] == val(root, i, s), "%s: ibcast [%d]", names[call], i)) break;
        for (int r = 0; r < p; r++)
            CHECK(gathered[2 * r] == val(r, 0, s) && gathered[2 * r + 1] == val(r, 1, s),
                  "%s: iallgather block %d", names[call], r);
        if (partner != MPI_PROC_NULL)
            CHECK(got == val(partner, 0, s), "%s: received %d", names[call], got);
    }
}

/* A persistent collective, inactive after its completion, in MPI_Waitall, MPI_Testany,
 * MPI_Request_get_status and MPI_Test: each reports it complete at once and keeps the handle.
 * (Not before its first start: MPICH 4.0 treats a never-started persistent collective as active,
 * and its MPI_Wait then hangs.) */
static void inactive_persistent(MPI_Comm comm) {
    int in = 0, out = -1, flag = 0, index = -2;
    MPI_Request req[2];
    MPI_Allreduce_init(&in, &out, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req[0]);
    req[1] = MPI_REQUEST_NULL;
    for (int round = 0; round < 3; round++) {
        in = me + 1 + round, out = -1;
        MPI_Start(&req[0]);
        MPI_Wait(&req[0], MPI_STATUS_IGNORE);
        CHECK(out == p * (p + 1) / 2 + p * round, "inactive: round %d sum %d", round, out);
        out = -1;
        CHECK(MPI_Waitall(2, req, statuses_ignore) == MPI_SUCCESS, "inactive: waitall");
        CHECK(req[0] != MPI_REQUEST_NULL, "inactive: waitall freed the persistent request");
        flag = 0, index = -2;
        MPI_Testany(2, req, &index, &flag, MPI_STATUS_IGNORE);
        /* MPI: no active handle, so index MPI_UNDEFINED; MPICH 4.0 itself reports the inactive
         * persistent request's index (its own requests too): accepted there. */
        CHECK(flag && (index == MPI_UNDEFINED || (MPICH_QUIRKS && index == 0)),
              "inactive: testany flag %d index %d", flag, index);
        flag = 0;
        MPI_Request_get_status(req[0], &flag, MPI_STATUS_IGNORE);
        CHECK(flag, "inactive: request_get_status flag 0");
        flag = 0;
        MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);
        CHECK(flag && req[0] != MPI_REQUEST_NULL, "inactive: test flag %d", flag);
        CHECK(out == -1, "inactive: the request calls ran the allreduce again (%d)", out);
    }
    MPI_Request_free(&req[0]);
}

/* Derived datatypes freed right after the start; other types (which may take the freed handles)
 * made and used before the first operations complete. */
static void freed_datatypes(MPI_Comm comm) {
    enum { M = 16 };
    const int root = p - 1, s = 60;
    int strided[2 * M], gathered[2 * M * 16], mine[M], again[M * 16];
    MPI_Datatype every_other, block, spaced;
    MPI_Request req[3];
    /* Ibcast of M ints at even positions. */
    for (int i = 0; i < 2 * M; i++) strided[i] = me == root ? val(root, i, s) : -1;
    MPI_Type_vector(M, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Ibcast(strided, 1, every_other, root, comm, &req[0]);
    MPI_Type_free(&every_other);
    /* Iallgather: one contiguous block of M ints sent, received M ints with a gap of M after each
     * rank's block (a resized contiguous type). */
    for (int i = 0; i < M; i++) mine[i] = val(me, i, s);
    for (int i = 0; i < 2 * M * p; i++) gathered[i] = -1;
    MPI_Datatype contiguous;
    MPI_Type_contiguous(M, MPI_INT, &block);
    MPI_Type_commit(&block);
    MPI_Type_contiguous(M, MPI_INT, &contiguous);
    MPI_Type_create_resized(contiguous, 0, (MPI_Aint)(2 * M * sizeof(int)), &spaced);
    MPI_Type_free(&contiguous);
    MPI_Type_commit(&spaced);
    MPI_Iallgather(mine, 1, block, gathered, 1, spaced, comm, &req[1]);
    MPI_Type_free(&block);
    MPI_Type_free(&spaced);
    /* New types, perhaps under the freed handles, in an operation started before the first ones
     * complete: blocks of 2 ints, gathered contiguously. */
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    for (int i = 0; i < M * p; i++) again[i] = -1;
    MPI_Iallgather(mine, M / 2, pair, again, M / 2, pair, comm, &req[2]);
    MPI_Type_free(&pair);
    MPI_Waitall(3, req, statuses_ignore);
    for (int i = 0; i < 2 * M; i++)
        if (!CHECK(strided[i] == (i % 2 == 0 || me == root ? val(root, i, s) : -1),
                   "freed type: ibcast [%d] = %d", i, strided[i]))
            break;
    for (int r = 0; r < p; r++)
        for (int i = 0; i < 2 * M; i++) {
            const int want = i < M ? val(r, i, s) : -1;
            if (!CHECK(gathered[2 * M * r + i] == want, "freed type: iallgather [%d][%d] = %d", r,
                       i, gathered[2 * M * r + i]))
                r = p, i = 2 * M;
        }
    for (int r = 0; r < p; r++)
        for (int i = 0; i < M; i++)
            if (!CHECK(again[M * r + i] == val(r, i, s), "freed type: second iallgather [%d][%d]",
                       r, i))
                r = p, i = M;

    /* A persistent bcast whose type is freed after MPI_Bcast_init, started three times. (Open MPI
     * 4.1's own persistent bcast then crashes in its first start: there the type lives until the
     * request is freed.) */
    MPI_Request persistent;
    MPI_Type_vector(M, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Bcast_init(strided, 1, every_other, root, comm, MPI_INFO_NULL, &persistent);
    if (!OPEN_MPI_4_QUIRKS) MPI_Type_free(&every_other);
    for (int round = 0; round < 3; round++) {
        MPI_Datatype other; /* made and freed between starts */
        MPI_Type_vector(2, 1, 3, MPI_INT, &other);
        MPI_Type_commit(&other);
        MPI_Type_free(&other);
        for (int i = 0; i < 2 * M; i++) strided[i] = me == root ? val(root, i, s + round) : -1;
        MPI_Start(&persistent);
        MPI_Wait(&persistent, MPI_STATUS_IGNORE);
        for (int i = 0; i < 2 * M; i++)
            if (!CHECK(strided[i] == (i % 2 == 0 || me == root ? val(root, i, s + round) : -1),
                       "freed type: persistent bcast round %d [%d]", round, i))
                break;
    }
    MPI_Request_free(&persistent);
    if (OPEN_MPI_4_QUIRKS) MPI_Type_free(&every_other);
}

/* User ops: a sum, freed right after MPI_Iallreduce and MPI_Ireduce started; a maximum created
 * meanwhile (perhaps under the freed handle) and used before they complete. */
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)type;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((const int *)in)[i];
}

static void user_max(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)type;
    for (int i = 0; i < *len; i++) {
        const int a = ((const int *)in)[i], b = ((int *)inout)[i];
        ((int *)inout)[i] = a > b ? a : b;
    }
}

static void freed_ops(MPI_Comm comm) {
    const int s = 70, root = 0;
    int in[N], sum[N], red[N], max[N];
    for (int i = 0; i < N; i++) in[i] = val(me, i, s), sum[i] = red[i] = max[i] = -1;
    MPI_Op op;
    MPI_Request req[3];
    MPI_Op_create(user_sum, 1, &op);
    MPI_Iallreduce(in, sum, N, MPI_INT, op, comm, &req[0]);
    MPI_Ireduce(in, red, N, MPI_INT, op, root, comm, &req[1]);
    MPI_Op_free(&op);
    MPI_Op_create(user_max, 1, &op);
    MPI_Iallreduce(in, max, N, MPI_INT, op, comm, &req[2]);
    MPI_Op_free(&op);
    MPI_Waitall(3, req, statuses_ignore);
    check_sums(sum, N, s, "freed op: iallreduce");
    if (me == root) check_sums(red, N, s, "freed op: ireduce");
    for (int i = 0; i < N; i++) {
        int want = 0;
        for (int r = 0; r < p; r++) want = val(r, i, s) > want ? val(r, i, s) : want;
        if (!CHECK(max[i] == want, "freed op: second op [%d] = %d, expected %d", i, max[i], want))
            break;
    }
}

/* A communicator freed while an operation on it is pending: it completes normally. (Open MPI 4.1
 * itself crashes in the wait: not run there.) */
static void freed_comm(void) {
    const int s = 80;
    int in[N], out[N];
    MPI_Comm comm;
    MPI_Request req;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    for (int k = 0; k < 6; k++) { /* past the setup of the communicator at any threshold */
        int one = 1, total = 0;
        MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, comm);
        CHECK(total == p, "freed comm: allreduce %d", total);
    }
    for (int i = 0; i < N; i++) in[i] = val(me, i, s), out[i] = -1;
    MPI_Iallreduce(in, out, N, MPI_INT, MPI_SUM, comm, &req);
    MPI_Comm_free(&comm);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    check_sums(out, N, s, "freed comm: iallreduce");
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    p = check_size, me = check_rank;
    partner = (me ^ 1) < p ? me ^ 1 : MPI_PROC_NULL;
    if (p > 16) { /* the buffers are sized for 16 ranks */
        CHECK(0, "run with at most 16 ranks, not %d", p);
        return check_finish("test_semantics");
    }
    statuses_ignore = MPI_STATUSES_IGNORE;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    /* Errors are returned, not fatal: the truncated receive must come back as a status. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    /* Each part twice: before and after the communicator's setup (at its 5th collective by
     * default, its 1st in most tests). */
    for (int pass = 0; pass < 2; pass++) {
        if (wanted("waitall err_in_status")) err_in_status(comm, 0);
        if (wanted("waitsome err_in_status")) err_in_status(comm, 1);
        if (wanted("ignored statuses")) ignored_statuses(comm);
        if (wanted("inactive persistent")) inactive_persistent(comm);
        if (wanted("freed datatypes")) freed_datatypes(comm);
        if (wanted("freed ops")) freed_ops(comm);
    }
    if (!OPEN_MPI_4_QUIRKS && wanted("freed communicator")) freed_comm();
    MPI_Comm_free(&comm);
    return check_finish("test_semantics");
}
