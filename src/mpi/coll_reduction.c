/* MPI_Reduce, MPI_Allreduce, MPI_Scan and MPI_Exscan (and their MPI-4 large-count twins).
 *
 * The arguments MPI requires to be the same on all ranks (count, datatype, op) are the only input
 * of the decision to handle a call, so every rank decides alike. MPI_IN_PLACE becomes a NULL send
 * buffer, shmcoll's spelling of "the input is in recvbuf" (for reduce: at the root only). The
 * reductions combine in rank order, as MPI requires for non-commutative ops. A send buffer equal
 * to a significant receive buffer is read as MPI_IN_PLACE: erroneous in MPI, but it keeps this
 * rank in step with the others instead of diverging to the library. */
#include "mpi/call.h"

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

/* Not counted for scan and exscan on an intercommunicator (stats.h). */
static void payload(shmcoll_mpi_call_t *call, const void *margs) {
    const reduction_args_t *a = margs;
    const int scans = a->kind == SHMCOLL_KIND_SCAN || a->kind == SHMCOLL_KIND_EXSCAN;
    if (!(scans && call->state->inter)) call->bytes = shmcoll_mpi_call_bytes(a->datatype, a->count);
}

static int fallback(const void *margs, MPI_Comm comm, int large) {
    const reduction_args_t *a = margs;
    const void *in = a->sendbuf;
    void *out = a->recvbuf;
#if MPI_VERSION >= 4
    if (large) switch (a->kind) {
        case SHMCOLL_KIND_REDUCE:
            return PMPI_Reduce_c(in, out, a->count, a->datatype, a->op, a->root, comm);
        case SHMCOLL_KIND_ALLREDUCE:
            return PMPI_Allreduce_c(in, out, a->count, a->datatype, a->op, comm);
        case SHMCOLL_KIND_SCAN:
            return PMPI_Scan_c(in, out, a->count, a->datatype, a->op, comm);
        default:
            return PMPI_Exscan_c(in, out, a->count, a->datatype, a->op, comm);
        }
#endif
    const int count = (int)a->count;
    switch (a->kind) {
    case SHMCOLL_KIND_REDUCE:
        return PMPI_Reduce(in, out, count, a->datatype, a->op, a->root, comm);
    case SHMCOLL_KIND_ALLREDUCE:
        return PMPI_Allreduce(in, out, count, a->datatype, a->op, comm);
    case SHMCOLL_KIND_SCAN:
        return PMPI_Scan(in, out, count, a->datatype, a->op, comm);
    default:
        return PMPI_Exscan(in, out, count, a->datatype, a->op, comm);
    }
}

#define REDUCTION(coll, name)                                                                      \
    { coll, {name, name "_c"}, prepare, payload, fallback }
static const shmcoll_mpi_coll_desc_t reduce_desc = REDUCTION(SHMCOLL_MPI_REDUCE, "MPI_Reduce");
static const shmcoll_mpi_coll_desc_t allreduce_desc =
    REDUCTION(SHMCOLL_MPI_ALLREDUCE, "MPI_Allreduce");
static const shmcoll_mpi_coll_desc_t scan_desc = REDUCTION(SHMCOLL_MPI_SCAN, "MPI_Scan");
static const shmcoll_mpi_coll_desc_t exscan_desc = REDUCTION(SHMCOLL_MPI_EXSCAN, "MPI_Exscan");

static int reduction(const shmcoll_mpi_coll_desc_t *desc, shmcoll_coll_kind_t kind,
                     const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, int large) {
    const reduction_args_t a = {kind, sendbuf, recvbuf, count, datatype, op, root};
    return shmcoll_mpi_coll_run(desc, &a, comm, large);
}

SHMCOLL_API int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, int root, MPI_Comm comm) {
    return reduction(&reduce_desc, SHMCOLL_KIND_REDUCE, sendbuf, recvbuf, count, datatype, op, root,
                     comm, 0);
}

SHMCOLL_API int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm) {
    return reduction(&allreduce_desc, SHMCOLL_KIND_ALLREDUCE, sendbuf, recvbuf, count, datatype, op,
                     0, comm, 0);
}

SHMCOLL_API int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm) {
    return reduction(&scan_desc, SHMCOLL_KIND_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm,
                     0);
}

SHMCOLL_API int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm) {
    return reduction(&exscan_desc, SHMCOLL_KIND_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0,
                     comm, 0);
}

#if MPI_VERSION >= 4
SHMCOLL_API int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
    return reduction(&reduce_desc, SHMCOLL_KIND_REDUCE, sendbuf, recvbuf, count, datatype, op, root,
                     comm, 1);
}

SHMCOLL_API int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return reduction(&allreduce_desc, SHMCOLL_KIND_ALLREDUCE, sendbuf, recvbuf, count, datatype, op,
                     0, comm, 1);
}

SHMCOLL_API int MPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return reduction(&scan_desc, SHMCOLL_KIND_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm,
                     1);
}

SHMCOLL_API int MPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return reduction(&exscan_desc, SHMCOLL_KIND_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0,
                     comm, 1);
}
#endif
