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
#include "mpi/express.h"

#include "shmcoll.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
        return shmcoll_mpi_call_reject(call, "invalid arguments");
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

#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40102000
/* MPICH before 4.1.2 crashes (SIGSEGV) in its own blocking MPI_Reduce with MPI_IN_PLACE at a root
 * other than 0 (pmodels/mpich#6540; 4.0.2: from 512 doubles on, p = 2-5, a root of 0 or a send
 * buffer of the root's own is right, and so are MPI_Ireduce and MPI_Reduce_init). shmcoll hands
 * blocking calls to the MPI library on many of its paths (a communicator's first calls, the
 * measurement's turns, the MPI library's verdicts), so such a call crashed the job on some calls
 * and not on others. The root of a blocking reduce in place at a root other than 0 therefore
 * gives every path a copy of its vector as send buffer: the same reduction, one copy of the
 * vector more at the root. Returns the copy to free; NULL where none was made (the call goes as
 * it came: a count of 0, a type of negative extent, no memory). */
#define SHMCOLL_MPI_REDUCE_IN_PLACE_COPY 1
static void *root_copy(const void **sendbuf, const void *recvbuf, MPI_Count count,
                       MPI_Datatype datatype, int root, MPI_Comm comm) {
    MPI_Count lb, extent, true_lb, true_extent;
    int rank;
    if (*sendbuf != MPI_IN_PLACE || root <= 0 || count <= 0 ||
        PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS || rank != root ||
        PMPI_Type_get_extent_x(datatype, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent_x(datatype, &true_lb, &true_extent) != MPI_SUCCESS ||
        extent < 0 || true_extent <= 0)
        return NULL;
    const size_t span = (size_t)((count - 1) * extent + true_extent);
    unsigned char *copy = malloc(span);
    if (!copy) return NULL;
    memcpy(copy, (const unsigned char *)recvbuf + true_lb, span);
    *sendbuf = (const void *)((uintptr_t)copy - (uintptr_t)true_lb); /* element 0's address */
    return copy;
}
#else
#define SHMCOLL_MPI_REDUCE_IN_PLACE_COPY 0
#endif

static int reduction(const shmcoll_mpi_coll_desc_t *desc, shmcoll_coll_kind_t kind,
                     const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, int large, const shmcoll_mpi_how_t *how) {
#if SHMCOLL_MPI_REDUCE_IN_PLACE_COPY
    void *const copy = kind == SHMCOLL_KIND_REDUCE && !how
                           ? root_copy(&sendbuf, recvbuf, count, datatype, root, comm)
                           : NULL;
#endif
    reduction_args_t a;
    memset(&a, 0, sizeof a); /* its padding too: see shmcoll_mpi_coll_call */
    a.kind = kind;
    a.sendbuf = sendbuf;
    a.recvbuf = recvbuf;
    a.count = count;
    a.datatype = datatype;
    a.op = op;
    a.root = root;
    const int rc = shmcoll_mpi_coll_call(desc, &a, comm, large, how);
#if SHMCOLL_MPI_REDUCE_IN_PLACE_COPY
    if (copy) {
        free(copy);
        /* no express run for the entry's arguments, which say in place (express.h) */
        shmcoll_mpi_express_grant = NULL;
    }
#endif
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
