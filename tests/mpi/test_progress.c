/* Locality and progress of non-blocking and persistent collectives, in legal MPI programs that
 * shmcoll must not make hang.
 *
 * MPI makes the start of a non-blocking collective (MPI_I*), MPI_Start(all), MPI_Test* and
 * MPI_Request_get_status local: none may wait for another rank. And an operation a rank has
 * started must progress while that rank is blocked in any other MPI call (MPI-4.1 §6.12, §3.7.4).
 * So a rank may start a collective and then block in point-to-point that needs its partner to
 * get further first, with the partner starting the same collective only after that exchange;
 * and a rank may block in a collective on communicator X while another rank waits for an
 * operation on communicator Y that the first rank has started. Each pattern below is such a
 * program, in both orders on even and odd ranks (pairs r, r ^ 1), and checks every result.
 *
 * shmcoll sets a communicator up at its SHMCOLL_COLLS_THRESHOLD-th collective (5 by default, 1
 * in most tests), passes the ones before to the MPI library, and serves the later ones: every
 * pattern therefore runs ROUNDS rounds of one collective each on a communicator of its own (a
 * duplicate or a split of MPI_COMM_WORLD; the first on MPI_COMM_WORLD itself), so that round k
 * is the communicator's k-th collective: the 1st, the 5th, the 6th and later ones are all hit,
 * at either threshold. Persistent requests are initialized on every rank in the same order
 * before the dependent exchange (MPI_*_init is itself collective and may wait for the others,
 * MPI-4.1 §7.13); only their starts are interleaved with it. Rank 0 names each pattern as it
 * begins; SHMCOLL_TEST_ONLY=text runs only the patterns whose name contains the text. */
#include "mpi_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Open MPI 4 has the persistent collectives as an extension, named MPIX_*_init. */
#if MPI_VERSION < 4 && defined(OPEN_MPI)
#include <mpi-ext.h>
#define MPI_Allreduce_init MPIX_Allreduce_init
#define MPI_Bcast_init     MPIX_Bcast_init
#define MPI_Allgather_init MPIX_Allgather_init
#define MPI_Alltoall_init  MPIX_Alltoall_init
#define MPI_Reduce_init    MPIX_Reduce_init
#define MPI_Barrier_init   MPIX_Barrier_init
#endif

#define ROUNDS    7            /* collectives per communicator in a pattern: 1st ... 7th */
#define BULK_INTS (256 * 1024) /* 1 MiB: sent in rendezvous by both MPI libraries */
#define PAIR_INTS 4096         /* exchanged by MPI_Sendrecv */

static int p, me, partner; /* partner: the other rank of the pair (r ^ 1), or MPI_PROC_NULL */
static int *bulk_out, *bulk_in;
/* Statuses nobody reads: MPI_STATUSES_IGNORE would do, but MPICH's header declares MPI_Waitall
 * with an access attribute that makes the compiler warn about it. */
static MPI_Status unread[2];

/* Input element i of the rank `rank` (in the operation's communicator) for salt s. */
static int val(int rank, int i, int s) {
    return (int)(check_hash(rank, (size_t)i, s) % 100000);
}

/* Whether this rank starts the collective before the dependent exchange in `round`: even ranks
 * in even rounds, odd ranks in odd ones, so each side takes both roles. */
static int early_in(int round) {
    return me % 2 == round % 2;
}

/* ---- The collectives under test ------------------------------------------------------------ */

enum kind { ALLREDUCE, BCAST, ALLGATHER, ALLTOALL, REDUCE, BARRIER, KINDS };
static const char *const kind_names[KINDS] = {"allreduce", "bcast",  "allgather",
                                              "alltoall",  "reduce", "barrier"};

typedef struct op {
    enum kind kind;
    MPI_Comm comm;
    int size, rank; /* in comm */
    int n;          /* elements per rank (per block for allgather and alltoall) */
    int salt, root;
    int fixed_root; /* persistent: the root given at initialization */
    int *in, *out;
} op_t;

static void op_make(op_t *op, enum kind kind, MPI_Comm comm, int n) {
    memset(op, 0, sizeof *op);
    op->kind = kind, op->comm = comm, op->n = n, op->fixed_root = -1;
    MPI_Comm_size(comm, &op->size);
    MPI_Comm_rank(comm, &op->rank);
    op->in = check_alloc((size_t)n * op->size * sizeof(int));
    op->out = check_alloc((size_t)n * op->size * sizeof(int));
}

static void op_free(op_t *op) {
    free(op->in), free(op->out);
}

/* New inputs for salt s (in place: a persistent request keeps its buffers). */
static void op_fill(op_t *op, int s) {
    op->salt = s;
    op->root = op->fixed_root >= 0 ? op->fixed_root : s % op->size;
    const int total = op->kind == ALLTOALL ? op->n * op->size : op->n;
    for (int i = 0; i < total; i++) op->in[i] = val(op->rank, i, s);
    for (int i = 0; i < op->n * op->size; i++) op->out[i] = -1;
    if (op->kind == BCAST && op->rank == op->root) memcpy(op->out, op->in, op->n * sizeof(int));
}

static void op_start(op_t *op, MPI_Request *req) {
    const int n = op->n;
    switch (op->kind) {
    case ALLREDUCE:
        MPI_Iallreduce(op->in, op->out, n, MPI_INT, MPI_SUM, op->comm, req);
        break;
    case BCAST:
        MPI_Ibcast(op->out, n, MPI_INT, op->root, op->comm, req);
        break;
    case ALLGATHER:
        MPI_Iallgather(op->in, n, MPI_INT, op->out, n, MPI_INT, op->comm, req);
        break;
    case ALLTOALL:
        MPI_Ialltoall(op->in, n, MPI_INT, op->out, n, MPI_INT, op->comm, req);
        break;
    case REDUCE:
        MPI_Ireduce(op->in, op->out, n, MPI_INT, MPI_MAX, op->root, op->comm, req);
        break;
    default:
        MPI_Ibarrier(op->comm, req);
    }
}

/* The persistent form, initialized with the root of the current fill (kept from then on). */
static void op_init(op_t *op, MPI_Request *req) {
    const int n = op->n;
    MPI_Info info = MPI_INFO_NULL;
    op->fixed_root = op->root;
    switch (op->kind) {
    case ALLREDUCE:
        MPI_Allreduce_init(op->in, op->out, n, MPI_INT, MPI_SUM, op->comm, info, req);
        break;
    case BCAST:
        MPI_Bcast_init(op->out, n, MPI_INT, op->root, op->comm, info, req);
        break;
    case ALLGATHER:
        MPI_Allgather_init(op->in, n, MPI_INT, op->out, n, MPI_INT, op->comm, info, req);
        break;
    case ALLTOALL:
        MPI_Alltoall_init(op->in, n, MPI_INT, op->out, n, MPI_INT, op->comm, info, req);
        break;
    case REDUCE:
        MPI_Reduce_init(op->in, op->out, n, MPI_INT, MPI_MAX, op->root, op->comm, info, req);
        break;
    default:
        MPI_Barrier_init(op->comm, info, req);
    }
}

/* The results of the last fill, against values computed here. A barrier has none: its patterns
 * assert completion and the point-to-point data around it. */
static void op_check(const op_t *op, const char *what, int round) {
    const int n = op->n, s = op->salt;
    for (int i = 0; i < n * op->size; i++) {
        int want = -1, r = i / n, j = i % n;
        switch (op->kind) {
        case ALLREDUCE:
            if (i >= n) return;
            want = 0;
            for (int q = 0; q < op->size; q++) want += val(q, i, s);
            break;
        case BCAST:
            if (i >= n) return;
            want = val(op->root, i, s);
            break;
        case ALLGATHER:
            want = val(r, j, s);
            break;
        case ALLTOALL:
            want = val(r, op->rank * n + j, s);
            break;
        case REDUCE:
            if (i >= n) return;
            if (op->rank == op->root)
                for (int q = 0; q < op->size; q++) want = want > val(q, i, s) ? want : val(q, i, s);
            break;
        default:
            return;
        }
        if (!CHECK(op->out[i] == want, "%s: %s n=%d round %d: [%d] = %d, expected %d", what,
                   kind_names[op->kind], n, round, i, op->out[i], want))
            return;
    }
}

/* ---- Point-to-point that depends on the partner's progress ---------------------------------- */

enum p2p { SSEND, RENDEZVOUS, SENDRECV, P2PS };
static const char *const p2p_names[P2PS] = {"ssend", "rendezvous", "sendrecv"};

/* One exchange with the partner on MPI_COMM_WORLD: this rank sends (`sends`) or receives an
 * MPI_Ssend of one int or an MPI_Send of 1 MiB; with SENDRECV both sides send and receive. The
 * data received is checked. */
static void exchange(enum p2p mode, int sends, int tag, const char *what) {
    const int from = partner == MPI_PROC_NULL ? -1 : partner;
    if (mode == SENDRECV) {
        for (int i = 0; i < PAIR_INTS; i++) bulk_out[i] = val(me, i, tag);
        bulk_in[0] = bulk_in[PAIR_INTS - 1] = -1;
        MPI_Sendrecv(bulk_out, PAIR_INTS, MPI_INT, partner, tag, bulk_in, PAIR_INTS, MPI_INT,
                     partner, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (from >= 0)
            CHECK(bulk_in[0] == val(from, 0, tag) &&
                      bulk_in[PAIR_INTS - 1] == val(from, PAIR_INTS - 1, tag),
                  "%s: sendrecv tag %d: data", what, tag);
        return;
    }
    const int count = mode == SSEND ? 1 : BULK_INTS;
    if (sends) {
        for (int i = 0; i < count; i++) bulk_out[i] = val(me, i, tag);
        if (mode == SSEND)
            MPI_Ssend(bulk_out, 1, MPI_INT, partner, tag, MPI_COMM_WORLD);
        else
            MPI_Send(bulk_out, count, MPI_INT, partner, tag, MPI_COMM_WORLD);
        return;
    }
    bulk_in[0] = bulk_in[count - 1] = -1;
    MPI_Recv(bulk_in, count, MPI_INT, partner, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (from >= 0)
        CHECK(bulk_in[0] == val(from, 0, tag) && bulk_in[count - 1] == val(from, count - 1, tag),
              "%s: %s tag %d: data", what, p2p_names[mode], tag);
}

/* What a rank may do between starting an operation and the exchange, by round: nothing, one
 * MPI_Test, one MPI_Request_get_status (both local, whatever they report). */
static void between(int round, MPI_Request *req) {
    int flag = 0;
    if (round % 3 == 1)
        MPI_Test(req, &flag, MPI_STATUS_IGNORE);
    else if (round % 3 == 2)
        MPI_Request_get_status(*req, &flag, MPI_STATUS_IGNORE);
}

/* ---- Communicators -------------------------------------------------------------------------- */

/* A fresh communicator (no collective on it yet): 0 a duplicate of MPI_COMM_WORLD; 1 the pairs
 * (r, r ^ 1) in reversed order; 2 all ranks in reversed order. */
static MPI_Comm fresh_comm(int which) {
    MPI_Comm comm;
    if (which % 3 == 0)
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    else
        MPI_Comm_split(MPI_COMM_WORLD, which % 3 == 1 ? me / 2 : 0, p - me, &comm);
    return comm;
}

static void release(MPI_Comm *comm) {
    if (*comm != MPI_COMM_WORLD) MPI_Comm_free(comm);
}

/* Whether the pattern `what` runs (SHMCOLL_TEST_ONLY=text: only those whose description
 * contains it), announced by rank 0 first, so that the output of a job that hangs names it. */
static int wanted(const char *what) {
    const char *only = getenv("SHMCOLL_TEST_ONLY");
    if (only && !strstr(what, only)) return 0;
    if (me == 0) printf("progress: %s\n", what), fflush(stdout);
    return 1;
}

/* ---- Patterns ------------------------------------------------------------------------------- */

/* A non-blocking collective started before a dependent exchange on one side and after it on the
 * other. The early side sends (`early_sends`) or receives: e.g. rank 0 MPI_Iallreduce, MPI_Ssend
 * to 1, MPI_Wait; rank 1 MPI_Recv from 0, MPI_Iallreduce, MPI_Wait. The start, the test in
 * between and the send must all return before the partner has started. */
static void start_then_p2p(enum kind kind, int n, enum p2p mode, int early_sends, MPI_Comm comm) {
    char what[128];
    snprintf(what, sizeof what, "start_then_p2p %s n=%d %s, early side %s", kind_names[kind], n,
             p2p_names[mode], early_sends ? "sends" : "receives");
    if (!wanted(what)) return;
    op_t op;
    op_make(&op, kind, comm, n);
    for (int round = 1; round <= ROUNDS; round++) {
        MPI_Request req;
        op_fill(&op, round * 10 + kind);
        if (early_in(round)) {
            op_start(&op, &req);
            between(round, &req);
            exchange(mode, early_sends, round, what);
        } else {
            exchange(mode, !early_sends, round, what);
            op_start(&op, &req);
            between(round, &req);
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(req == MPI_REQUEST_NULL, "%s: round %d: request not freed by MPI_Wait", what, round);
        op_check(&op, what, round);
    }
    op_free(&op);
}

/* Whether a persistent request of this kind may be started again under the MPI library
 * underneath. MPICH 4.0's persistent allgather delivers no other rank's block from its second
 * start on (its own bug, shmcoll or not): there each round initializes a request of its own, on
 * every rank before the exchange, which keeps the pattern legal and the start interleaved. */
static int restarts_work(enum kind kind) {
#ifdef MPICH
    return kind != ALLGATHER;
#else
    (void)kind;
    return 1;
#endif
}

/* The same with a persistent request: initialized on every rank (after `prior` blocking
 * collectives on the communicator, so that the initialization is its 1st or 5th collective),
 * then started on one side before the exchange and on the other after it, ROUNDS times. */
static void persistent_then_p2p(enum kind kind, enum p2p mode, int early_sends, int prior,
                                MPI_Comm comm) {
    char what[128];
    snprintf(what, sizeof what, "persistent_then_p2p %s %s, early side %s, init after %d",
             kind_names[kind], p2p_names[mode], early_sends ? "sends" : "receives", prior);
    if (!wanted(what)) return;
    for (int k = 0; k < prior; k++) {
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
        int size;
        MPI_Comm_size(comm, &size);
        CHECK(sum == size, "%s: prior allreduce %d", what, sum);
    }
    op_t op;
    MPI_Request req;
    op_make(&op, kind, comm, 5);
    op_fill(&op, 1);
    op_init(&op, &req);
    for (int round = 1; round <= ROUNDS; round++) {
        if (round > 1 && !restarts_work(kind)) {
            MPI_Request_free(&req);
            op_init(&op, &req);
        }
        op_fill(&op, round * 10 + kind);
        if (early_in(round)) {
            MPI_Start(&req);
            between(round, &req);
            exchange(mode, early_sends, round, what);
        } else {
            exchange(mode, !early_sends, round, what);
            MPI_Start(&req);
            between(round, &req);
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        op_check(&op, what, round);
    }
    MPI_Request_free(&req);
    op_free(&op);
}

/* Two persistent requests (allreduce, bcast) of one communicator started together with
 * MPI_Startall on one side before the exchange, after it on the other. */
static void startall_then_p2p(enum p2p mode, MPI_Comm comm) {
    char what[128];
    snprintf(what, sizeof what, "startall_then_p2p %s", p2p_names[mode]);
    if (!wanted(what)) return;
    op_t ops[2];
    MPI_Request req[2];
    op_make(&ops[0], ALLREDUCE, comm, 7);
    op_make(&ops[1], BCAST, comm, 7);
    for (int k = 0; k < 2; k++) op_fill(&ops[k], 3), op_init(&ops[k], &req[k]);
    for (int round = 1; round <= ROUNDS; round++) {
        for (int k = 0; k < 2; k++) op_fill(&ops[k], round * 10 + k);
        int flag = 0;
        if (early_in(round)) {
            MPI_Startall(2, req);
            /* One MPI_Test, not MPI_Testall: MPICH 4.0's Testall sometimes reports
             * MPI_ERR_IN_STATUS for a persistent collective that completed. */
            MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);
            exchange(mode, 1, round, what);
        } else {
            exchange(mode, 0, round, what);
            MPI_Startall(2, req);
        }
        MPI_Waitall(2, req, unread);
        for (int k = 0; k < 2; k++) op_check(&ops[k], what, round);
    }
    for (int k = 0; k < 2; k++) MPI_Request_free(&req[k]), op_free(&ops[k]);
}

/* The blocking collectives a rank may be inside while its earlier operation on another
 * communicator is awaited elsewhere: an allreduce and a bcast of ints (shmcoll serves them once
 * the communicator is set up), a barrier, and an allreduce with a user op on a type with gaps
 * (which shmcoll always passes to the MPI library). */
enum xcall { X_ALLREDUCE, X_BCAST, X_BARRIER, X_USEROP, XCALLS };
static const char *const xcall_names[XCALLS] = {"allreduce", "bcast", "barrier", "user-op"};
static MPI_Datatype gapped; /* one int, extent two */
static MPI_Op gapped_sum;

static void gapped_sum_fn(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)type;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len; i++) b[2 * i] += a[2 * i];
}

static void blocking_call(enum xcall call, MPI_Comm comm, int round, const char *what) {
    enum { N = 6 };
    int size, rank, in[2 * N], out[2 * N];
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    for (int i = 0; i < 2 * N; i++) in[i] = val(rank, i, round), out[i] = -7;
    switch (call) {
    case X_ALLREDUCE:
    case X_USEROP:
        if (call == X_ALLREDUCE)
            MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, comm);
        else
            MPI_Allreduce(in, out, N, gapped, gapped_sum, comm);
        for (int i = 0; i < N; i++) {
            const int at = call == X_ALLREDUCE ? i : 2 * i;
            int want = 0;
            for (int q = 0; q < size; q++) want += val(q, at, round);
            if (!CHECK(out[at] == want, "%s: blocking %s round %d [%d] = %d, expected %d", what,
                       xcall_names[call], round, i, out[at], want))
                break;
            if (call == X_USEROP)
                CHECK(out[at + 1] == -7, "%s: user-op round %d wrote a gap", what, round);
        }
        break;
    case X_BCAST: {
        const int root = round % size;
        if (rank != root) memcpy(in, out, sizeof in);
        MPI_Bcast(in, N, MPI_INT, root, comm);
        for (int i = 0; i < N; i++)
            if (!CHECK(in[i] == val(root, i, round), "%s: blocking bcast round %d [%d]", what,
                       round, i))
                break;
        break;
    }
    default:
        MPI_Barrier(comm);
    }
}

/* Completes `req` by round: MPI_Wait, a loop of MPI_Test, or a loop of MPI_Request_get_status
 * then MPI_Wait. */
static void complete(MPI_Request *req, int round) {
    int flag = 0;
    if (round % 3 == 0) {
        MPI_Wait(req, MPI_STATUS_IGNORE);
    } else if (round % 3 == 1) {
        while (!flag) MPI_Test(req, &flag, MPI_STATUS_IGNORE);
    } else {
        while (!flag) MPI_Request_get_status(*req, &flag, MPI_STATUS_IGNORE);
        MPI_Wait(req, MPI_STATUS_IGNORE);
    }
}

/* Every rank starts an operation on Y; then the early side calls a blocking collective on X
 * before completing Y, the late side completes Y before that collective on X: rank 0
 * Iallreduce(Y), Allreduce(X), Wait(Y); rank 1 Iallreduce(Y), Wait(Y), Allreduce(X). The early
 * side's Y must progress while it is blocked on X, including when X's call is one the MPI library
 * serves (before the threshold, user ops on types with gaps) or the one that sets X up. */
static void blocking_while_pending(enum kind kind, enum xcall call, MPI_Comm x, MPI_Comm y) {
    char what[128];
    snprintf(what, sizeof what, "blocking_while_pending %s on Y, blocking %s on X",
             kind_names[kind], xcall_names[call]);
    if (!wanted(what)) return;
    op_t op;
    op_make(&op, kind, y, 9);
    for (int round = 1; round <= ROUNDS; round++) {
        MPI_Request req;
        op_fill(&op, round * 10 + kind);
        op_start(&op, &req);
        if (early_in(round)) {
            blocking_call(call, x, round, what);
            complete(&req, round);
        } else {
            complete(&req, round);
            blocking_call(call, x, round, what);
        }
        op_check(&op, what, round);
    }
    op_free(&op);
}

/* Operations on two communicators started in different orders on even and odd ranks, with a
 * dependent exchange between the two starts, then completed in different orders: even ranks
 * Iallreduce(A), exchange, Ibcast(B), wait B then A; odd ranks Ibcast(B), exchange,
 * Iallreduce(A), MPI_Waitall. */
static void two_comms_orders(enum p2p mode, MPI_Comm a, MPI_Comm b) {
    char what[128];
    snprintf(what, sizeof what, "two_comms_orders %s", p2p_names[mode]);
    if (!wanted(what)) return;
    op_t ops[2];
    op_make(&ops[0], ALLREDUCE, a, 4);
    op_make(&ops[1], BCAST, b, 4);
    for (int round = 1; round <= ROUNDS; round++) {
        MPI_Request req[2];
        for (int k = 0; k < 2; k++) op_fill(&ops[k], round * 10 + k);
        const int first = early_in(round) ? 0 : 1;
        op_start(&ops[first], &req[first]);
        exchange(mode, first == 0, round, what);
        op_start(&ops[1 - first], &req[1 - first]);
        if (first == 0) {
            MPI_Wait(&req[1], MPI_STATUS_IGNORE);
            MPI_Wait(&req[0], MPI_STATUS_IGNORE);
        } else {
            MPI_Waitall(2, req, unread);
        }
        for (int k = 0; k < 2; k++) op_check(&ops[k], what, round);
    }
    op_free(&ops[0]), op_free(&ops[1]);
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    p = check_size, me = check_rank;
    partner = (me ^ 1) < p ? me ^ 1 : MPI_PROC_NULL;
    bulk_out = check_alloc(BULK_INTS * sizeof(int));
    bulk_in = check_alloc(BULK_INTS * sizeof(int));
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &gapped);
    MPI_Type_commit(&gapped);
    MPI_Op_create(gapped_sum_fn, 1, &gapped_sum);

    /* Every kind with every exchange, the early side sending or receiving in turn; the first on
     * MPI_COMM_WORLD (whose first collectives these are), then on fresh duplicates and splits.
     * Allreduce and bcast also larger than a pipeline chunk. */
    int config = 0;
    for (int kind = 0; kind < KINDS; kind++)
        for (int mode = 0; mode < P2PS; mode++, config++) {
            MPI_Comm comm = config == 0 ? MPI_COMM_WORLD : fresh_comm(config);
            start_then_p2p((enum kind)kind, 5, (enum p2p)mode, (kind + mode) % 2 == 0, comm);
            release(&comm);
        }
    for (int kind = ALLREDUCE; kind <= BCAST; kind++) {
        MPI_Comm comm = fresh_comm(kind);
        start_then_p2p((enum kind)kind, 100000, SSEND, kind == ALLREDUCE, comm);
        release(&comm);
    }

    /* Persistent: every kind; the six pairs of (exchange, direction) once each; initialized as
     * the communicator's first collective (allreduce, bcast, allgather) or its fifth. */
    for (int kind = 0; kind < KINDS; kind++) {
        MPI_Comm comm = fresh_comm(kind);
        persistent_then_p2p((enum kind)kind, (enum p2p)(kind % 3), kind % 2, kind < 3 ? 0 : 4,
                            comm);
        release(&comm);
    }
    for (int mode = 0; mode < P2PS; mode++) {
        MPI_Comm comm = fresh_comm(mode);
        startall_then_p2p((enum p2p)mode, comm);
        release(&comm);
    }

    /* Every kind pending on Y with two of the blocking calls on X, each call three times (the
     * user op with allreduce, alltoall and reduce pending). */
    for (int kind = 0; kind < KINDS; kind++)
        for (int j = 0; j < 2; j++) {
            MPI_Comm x = fresh_comm(0), y = fresh_comm(2);
            blocking_while_pending((enum kind)kind, (enum xcall)((kind + 3 * j) % XCALLS), x, y);
            release(&x), release(&y);
        }

    for (int mode = 0; mode < P2PS; mode++) {
        MPI_Comm a = fresh_comm(mode), b = fresh_comm(mode + 1);
        two_comms_orders((enum p2p)mode, a, b);
        release(&a), release(&b);
    }

    MPI_Op_free(&gapped_sum);
    MPI_Type_free(&gapped);
    free(bulk_out), free(bulk_in);
    return check_finish("test_progress");
}
