/* MPI_Reduce_scatter_block and MPI_Reduce_scatter (and their MPI-4 large-count twins) over
 * shared memory.
 *
 * The input of every rank is the whole vector: p blocks back to back, block j of recvcounts[j]
 * elements (recvcount each for the _block variant); rank j receives block j of the reduction.
 * recvcounts, datatype and op are the same on all ranks (MPI requires it), so they alone decide.
 * MPI_IN_PLACE: the input is in recvbuf and the result overwrites its start. */
#include "mpi/request.h"
#include "mpi/check.h"
#include "mpi/library_checks.h"
#include "mpi/library_faults.h"

#include "shmcoll.h"

typedef struct reduce_scatter_args {
    const void *sendbuf;
    void *recvbuf;
    int varying;            /* reduce_scatter, with recvcounts; else recvcount per block */
    const void *recvcounts; /* int, or MPI_Count when wide */
    MPI_Count count;
    int wide;
    MPI_Datatype datatype;
    MPI_Op op;
} reduce_scatter_args_t;

/* The block sizes in elements of the user's datatype. */
static MPI_Count block_count(const reduce_scatter_args_t *a, int j) {
    return a->varying ? shmcoll_mpi_count_at(a->recvcounts, a->wide, j) : a->count;
}

static shmcoll_status_t prepare(shmcoll_mpi_call_t *call, const void *margs) {
    const reduce_scatter_args_t *a = margs;
    const int p = call->state->size;
    if (a->varying && !a->recvcounts) return shmcoll_mpi_call_invalid(call, "invalid arguments");
    SHMCOLL_CHECK(shmcoll_mpi_call_op(call, a->datatype, a->op));
    size_t *counts = call->sizes, total = 0;
    for (int j = 0; j < p; j++) {
        const MPI_Count c = block_count(a, j);
        if (c < 0) return shmcoll_mpi_call_invalid(call, "invalid arguments");
        counts[j] = (size_t)c;
        total += counts[j];
    }
    if (total == 0) return shmcoll_mpi_call_local(call, "empty");

    /* sendbuf == recvbuf is erroneous in MPI; reading it as "in place" keeps this rank in step
     * with the others instead of diverging to the library. */
    const int in_place = a->sendbuf == MPI_IN_PLACE || a->sendbuf == a->recvbuf;
    if (!call->group) { /* one process: its block is the start of the input */
        if (!in_place)
            call->dav += 2 * shmcoll_mpi_op_copy(a->recvbuf, a->sendbuf, counts[0], &call->rop);
        return shmcoll_mpi_call_local(call, "self");
    }
    call->args.kind = a->varying ? SHMCOLL_KIND_REDUCE_SCATTER : SHMCOLL_KIND_REDUCE_SCATTER_BLOCK;
    call->args.sendbuf = shmcoll_mpi_call_sendbuf(in_place, a->sendbuf);
    call->args.recvbuf = a->recvbuf;
    call->args.count = counts[0];
    call->args.recvcounts = a->varying ? counts : NULL;
    return SHMCOLL_OK;
}

/* The whole vector reduced: calibration's key and the statistics' payload (stats.h). */
static size_t key(const void *margs, const shmcoll_mpi_comm_t *state) {
    const reduce_scatter_args_t *a = margs;
    const int p = state->size;
    return a->varying ? shmcoll_mpi_call_bytes_sum(a->datatype, a->recvcounts, a->wide, p)
                      : shmcoll_mpi_call_bytes(a->datatype, a->count * p);
}

static void payload(shmcoll_mpi_call_t *call, const void *margs) {
    call->bytes = key(margs, call->state);
}

static int fallback(const void *margs, MPI_Comm comm, int large, const shmcoll_mpi_how_t *how) {
    const reduce_scatter_args_t *a = margs;
    if (a->varying)
        return SHMCOLL_PMPI_CALL(how, large, Reduce_scatter, Ireduce_scatter, a->sendbuf,
                                 a->recvbuf, a->recvcounts, a->datatype, a->op, comm);
    return SHMCOLL_PMPI_CALL(how, large, Reduce_scatter_block, Ireduce_scatter_block, a->sendbuf,
                             a->recvbuf, a->count, a->datatype, a->op, comm);
}

static MPI_Datatype *types(void *margs, int i) {
    return i == 0 ? &((reduce_scatter_args_t *)margs)->datatype : NULL;
}

static const void **arrays(void *margs, int i, int rank, int size, size_t *bytes) {
    reduce_scatter_args_t *a = margs;
    if (i != 0 || !a->varying) return NULL;
    *bytes = (size_t)size * (a->wide ? sizeof(MPI_Count) : sizeof(int));
    return &a->recvcounts;
}

static const shmcoll_mpi_coll_desc_t block_desc = {
    SHMCOLL_MPI_REDUCE_SCATTER_BLOCK,
    SHMCOLL_MPI_NAMES(Reduce_scatter_block, Ireduce_scatter_block),
    prepare,
    payload,
    fallback,
    sizeof(reduce_scatter_args_t),
    key,
    types,
    arrays,
    0};
static const shmcoll_mpi_coll_desc_t varying_desc = {
    SHMCOLL_MPI_REDUCE_SCATTER,
    SHMCOLL_MPI_NAMES(Reduce_scatter, Ireduce_scatter),
    prepare,
    payload,
    fallback,
    sizeof(reduce_scatter_args_t),
    key,
    types,
    arrays,
    0};

static int reduce_scatter_any(const void *sendbuf, void *recvbuf, int varying,
                              const void *recvcounts, MPI_Count count, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, int large, const shmcoll_mpi_how_t *how) {
    /* a blocking reduce_scatter in place (library_faults.h): the whole input, every block */
    void *copy = NULL;
    int p;
    if (SHMCOLL_MPI_REDUCE_SCATTER_IN_PLACE_FAULT && varying && !how && sendbuf == MPI_IN_PLACE &&
        recvcounts && PMPI_Comm_size(comm, &p) == MPI_SUCCESS) {
        MPI_Count total = 0;
        for (int j = 0; j < p; j++) total += shmcoll_mpi_count_at(recvcounts, large, j);
        copy = shmcoll_mpi_in_place_copy(&sendbuf, recvbuf, total, datatype);
    }
    reduce_scatter_args_t a;
    memset(&a, 0, sizeof a); /* its padding too: see shmcoll_mpi_coll_call */
    a.sendbuf = sendbuf;
    a.recvbuf = recvbuf;
    a.varying = varying;
    a.recvcounts = recvcounts;
    a.count = count;
    a.wide = large;
    a.datatype = datatype;
    a.op = op;
    const shmcoll_mpi_coll_desc_t *desc = varying ? &varying_desc : &block_desc;
    const char *refused =
        shmcoll_mpi_refused_reduce_scatter(sendbuf, recvbuf, recvcounts, count, large, comm);
    const int rc = refused ? shmcoll_mpi_coll_refused(desc, &a, comm, large, how, refused)
                           : shmcoll_mpi_coll_call(desc, &a, comm, large, how);
    shmcoll_mpi_in_place_done(copy);
    return rc;
}

/* The parameters of the entry points, with their count and displacement types. */
#define REDUCE_SCATTER_BLOCK_PARAMS(Count, Displ)                                                  \
    (const void *sendbuf, void *recvbuf, Count recvcount, MPI_Datatype datatype, MPI_Op op,        \
     MPI_Comm comm)
#define REDUCE_SCATTER_PARAMS(Count, Displ)                                                        \
    (const void *sendbuf, void *recvbuf, const Count recvcounts[], MPI_Datatype datatype,          \
     MPI_Op op, MPI_Comm comm)

SHMCOLL_MPI_ENTRIES(Reduce_scatter_block, Ireduce_scatter_block, REDUCE_SCATTER_BLOCK_PARAMS,
                    (sendbuf, recvbuf, recvcount, datatype, op, comm), reduce_scatter_any,
                    (sendbuf, recvbuf, 0, NULL, recvcount, datatype, op, comm))
SHMCOLL_MPI_ENTRIES(Reduce_scatter, Ireduce_scatter, REDUCE_SCATTER_PARAMS,
                    (sendbuf, recvbuf, recvcounts, datatype, op, comm), reduce_scatter_any,
                    (sendbuf, recvbuf, 1, recvcounts, 0, datatype, op, comm))

/* Datatype, op, the block count or the whole recvcounts array, and MPI_IN_PLACE, all alike on
 * every rank (check.h). */
void shmcoll_mpi_check_reduce_scatter(const void *margs, int rank, int size,
                                      shmcoll_mpi_check_t *check) {
    const reduce_scatter_args_t *a = margs;
    check->field[SHMCOLL_MPI_CHECK_OP] = shmcoll_mpi_check_op(a->op);
    check->field[SHMCOLL_MPI_CHECK_TYPE] = shmcoll_mpi_check_type(a->datatype);
    check->field[SHMCOLL_MPI_CHECK_IN_PLACE] = a->sendbuf == MPI_IN_PLACE;
    if (a->varying)
        check->field[SHMCOLL_MPI_CHECK_COUNTS] =
            shmcoll_mpi_check_counts_hash(a->recvcounts, a->wide, size, 1);
    else
        check->field[SHMCOLL_MPI_CHECK_COUNT] = a->count;
}
