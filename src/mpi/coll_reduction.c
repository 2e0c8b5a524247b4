/* MPI_Reduce, MPI_Allreduce, MPI_Scan and MPI_Exscan (and their MPI-4 large-count twins).
 *
 * The arguments MPI requires to be the same on all ranks (count, datatype, op) are the only input
 * of the decision to handle a call, so every rank decides alike. MPI_IN_PLACE becomes a NULL send
 * buffer, shmcoll's spelling of "the input is in recvbuf" (for reduce: at the root only). The
 * reductions combine in rank order, as MPI requires for non-commutative ops. A send buffer equal
 * to a significant receive buffer is read as MPI_IN_PLACE: erroneous in MPI, but it keeps this
 * rank in step with the others instead of diverging to the library. */
#include "mpi/request.h"
#include "mpi/check.h"
#include "mpi/library_checks.h"
#include "mpi/library_faults.h"

#include "shmcoll.h"

typedef struct reduction_args {
    shmcoll_coll_kind_t kind; /* reduce, allreduce, scan or exscan */
    const void *sendbuf;
    void *recvbuf;
    MPI_Count count;
    MPI_Datatype datatype;
    MPI_Op op;
    int root; /* reduce */
} reduction_args_t;

static shmcoll_status_t prepare(shmcoll_mpi_call_t *call, const void *margs) {
    const reduction_args_t *a = margs;
    const int me = call->state->rank, is_root = me == a->root;
    if (a->count < 0 ||
        (a->kind == SHMCOLL_KIND_REDUCE &&
         (a->root < 0 || a->root >= call->state->size || (!is_root && a->sendbuf == MPI_IN_PLACE))))
        return shmcoll_mpi_call_invalid(call, "invalid arguments");
    SHMCOLL_CHECK(shmcoll_mpi_call_op(call, a->datatype, a->op));
    if (a->count == 0) return shmcoll_mpi_call_local(call, "empty");
    /* Where this rank receives a result in recvbuf; elsewhere recvbuf is not touched. */
    const int result_here = a->kind == SHMCOLL_KIND_REDUCE   ? is_root
                            : a->kind == SHMCOLL_KIND_EXSCAN ? me > 0
                                                             : 1;
    const int in_place = a->sendbuf == MPI_IN_PLACE || (result_here && a->sendbuf == a->recvbuf);
    if (!call->group) { /* one process: the result is the input */
        if (result_here && !in_place)
            call->dav +=
                2 * shmcoll_mpi_op_copy(a->recvbuf, a->sendbuf, (size_t)a->count, &call->rop);
        return shmcoll_mpi_call_local(call, "self");
    }
    call->args.kind = a->kind;
    call->args.sendbuf = shmcoll_mpi_call_sendbuf(in_place, a->sendbuf);
    call->args.recvbuf = a->recvbuf;
    call->args.count = (size_t)a->count;
    call->args.root = a->root;
    return SHMCOLL_OK;
}

/* The vector, for calibration and the statistics alike. */
static size_t key(const void *margs, const shmcoll_mpi_comm_t *state) {
    const reduction_args_t *a = margs;
    return shmcoll_mpi_call_bytes(a->datatype, a->count);
}

static void payload(shmcoll_mpi_call_t *call, const void *margs) {
    call->bytes = key(margs, call->state);
}

static int fallback(const void *margs, MPI_Comm comm, int large, const shmcoll_mpi_how_t *how) {
    const reduction_args_t *a = margs;
    const void *in = a->sendbuf;
    void *out = a->recvbuf;
    switch (a->kind) {
    case SHMCOLL_KIND_REDUCE:
        return SHMCOLL_PMPI_CALL(how, large, Reduce, Ireduce, in, out, a->count, a->datatype, a->op,
                                 a->root, comm);
    case SHMCOLL_KIND_ALLREDUCE:
        return SHMCOLL_PMPI_CALL(how, large, Allreduce, Iallreduce, in, out, a->count, a->datatype,
                                 a->op, comm);
    case SHMCOLL_KIND_SCAN:
        return SHMCOLL_PMPI_CALL(how, large, Scan, Iscan, in, out, a->count, a->datatype, a->op,
                                 comm);
    default:
        return SHMCOLL_PMPI_CALL(how, large, Exscan, Iexscan, in, out, a->count, a->datatype, a->op,
                                 comm);
    }
}

static MPI_Datatype *types(void *margs, int i) {
    return i == 0 ? &((reduction_args_t *)margs)->datatype : NULL;
}

#define REDUCTION(coll, Name, IName)                                                               \
    {                                                                                              \
        coll, SHMCOLL_MPI_NAMES(Name, IName), prepare, payload, fallback,                          \
            sizeof(reduction_args_t), key, types, NULL, 0                                          \
    }
static const shmcoll_mpi_coll_desc_t reduce_desc = REDUCTION(SHMCOLL_MPI_REDUCE, Reduce, Ireduce);
static const shmcoll_mpi_coll_desc_t allreduce_desc =
    REDUCTION(SHMCOLL_MPI_ALLREDUCE, Allreduce, Iallreduce);
static const shmcoll_mpi_coll_desc_t scan_desc = REDUCTION(SHMCOLL_MPI_SCAN, Scan, Iscan);
static const shmcoll_mpi_coll_desc_t exscan_desc = REDUCTION(SHMCOLL_MPI_EXSCAN, Exscan, Iexscan);

static int reduction(const shmcoll_mpi_coll_desc_t *desc, shmcoll_coll_kind_t kind,
                     const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, int large, const shmcoll_mpi_how_t *how) {
    /* the root of a blocking reduce in place at a root other than 0 (library_faults.h) */
    void *copy = NULL;
    int rank;
    if (SHMCOLL_MPI_REDUCE_IN_PLACE_FAULT && kind == SHMCOLL_KIND_REDUCE && !how &&
        sendbuf == MPI_IN_PLACE && root > 0 && PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS &&
        rank == root)
        copy = shmcoll_mpi_in_place_copy(&sendbuf, recvbuf, count, datatype);
    reduction_args_t a;
    memset(&a, 0, sizeof a); /* its padding too: see shmcoll_mpi_coll_call */
    a.kind = kind;
    a.sendbuf = sendbuf;
    a.recvbuf = recvbuf;
    a.count = count;
    a.datatype = datatype;
    a.op = op;
    a.root = root;
    const char *refused = shmcoll_mpi_refused_reduction(kind, sendbuf, recvbuf, count, root, comm);
    const int rc = refused ? shmcoll_mpi_coll_refused(desc, &a, comm, large, how, refused)
                           : shmcoll_mpi_coll_call(desc, &a, comm, large, how);
    shmcoll_mpi_in_place_done(copy);
    return rc;
}

/* The parameters of the entry points, with their count type. */
#define REDUCE_PARAMS(Count, Displ)                                                                \
    (const void *sendbuf, void *recvbuf, Count count, MPI_Datatype datatype, MPI_Op op, int root,  \
     MPI_Comm comm)
#define REDUCTION_PARAMS(Count, Displ)                                                             \
    (const void *sendbuf, void *recvbuf, Count count, MPI_Datatype datatype, MPI_Op op,            \
     MPI_Comm comm)
#define REDUCTION_NAMES (sendbuf, recvbuf, count, datatype, op, comm)

SHMCOLL_MPI_ENTRIES(Reduce, Ireduce, REDUCE_PARAMS,
                    (sendbuf, recvbuf, count, datatype, op, root, comm), reduction,
                    (&reduce_desc, SHMCOLL_KIND_REDUCE, sendbuf, recvbuf, count, datatype, op, root,
                     comm))
SHMCOLL_MPI_ENTRIES(Allreduce, Iallreduce, REDUCTION_PARAMS, REDUCTION_NAMES, reduction,
                    (&allreduce_desc, SHMCOLL_KIND_ALLREDUCE, sendbuf, recvbuf, count, datatype, op,
                     0, comm))
SHMCOLL_MPI_ENTRIES(Scan, Iscan, REDUCTION_PARAMS, REDUCTION_NAMES, reduction,
                    (&scan_desc, SHMCOLL_KIND_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm))
SHMCOLL_MPI_ENTRIES(Exscan, Iexscan, REDUCTION_PARAMS, REDUCTION_NAMES, reduction,
                    (&exscan_desc, SHMCOLL_KIND_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0,
                     comm))

/* Count, datatype and op everywhere; the root of reduce; MPI_IN_PLACE of allreduce, which all
 * ranks or none use (check.h). */
void shmcoll_mpi_check_reduction(const void *margs, int rank, int size,
                                 shmcoll_mpi_check_t *check) {
    const reduction_args_t *a = margs;
    check->field[SHMCOLL_MPI_CHECK_OP] = shmcoll_mpi_check_op(a->op);
    check->field[SHMCOLL_MPI_CHECK_TYPE] = shmcoll_mpi_check_type(a->datatype);
    check->field[SHMCOLL_MPI_CHECK_COUNT] = a->count;
    if (a->kind == SHMCOLL_KIND_REDUCE) check->field[SHMCOLL_MPI_CHECK_ROOT] = a->root;
    if (a->kind == SHMCOLL_KIND_ALLREDUCE)
        check->field[SHMCOLL_MPI_CHECK_IN_PLACE] = a->sendbuf == MPI_IN_PLACE;
}
