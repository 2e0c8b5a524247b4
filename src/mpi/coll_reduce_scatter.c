/* MPI_Reduce_scatter_block and MPI_Reduce_scatter (and their MPI-4 large-count twins) over
 * shared memory.
 *
 * The input of every rank is the whole vector: p blocks back to back, block j of recvcounts[j]
 * elements (recvcount each for the _block variant); rank j receives block j of the reduction.
 * recvcounts, datatype and op are the same on all ranks (MPI requires it), so they alone decide.
 * MPI_IN_PLACE: the input is in recvbuf and the result overwrites its start. */
#include "mpi/call.h"

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
    if (!a->varying) return a->count;
    return a->wide ? ((const MPI_Count *)a->recvcounts)[j] : ((const int *)a->recvcounts)[j];
}

static shmcoll_status_t prepare(shmcoll_mpi_call_t *call, const void *margs) {
    const reduce_scatter_args_t *a = margs;
    const int p = call->state->size;
    if (a->varying && !a->recvcounts) return shmcoll_mpi_call_reject(call, "invalid arguments");
    SHMCOLL_CHECK(shmcoll_mpi_call_op(call, a->datatype, a->op));
    size_t *counts = call->sizes, total = 0;
    for (int j = 0; j < p; j++) {
        const MPI_Count c = block_count(a, j);
        if (c < 0) return shmcoll_mpi_call_reject(call, "invalid arguments");
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

/* Payload for the statistics (stats.h): the whole vector reduced. */
static void payload(shmcoll_mpi_call_t *call, const void *margs) {
    const reduce_scatter_args_t *a = margs;
    if (call->state->inter) return; /* not counted there (stats.h) */
    const int p = call->state->size;
    call->bytes = a->varying ? shmcoll_mpi_call_bytes_sum(a->datatype, a->recvcounts, a->wide, p)
                             : shmcoll_mpi_call_bytes(a->datatype, a->count * p);
}

static int fallback(const void *margs, MPI_Comm comm, int large) {
    const reduce_scatter_args_t *a = margs;
#if MPI_VERSION >= 4
    if (large && a->varying)
        return PMPI_Reduce_scatter_c(a->sendbuf, a->recvbuf, a->recvcounts, a->datatype, a->op,
                                     comm);
    if (large)
        return PMPI_Reduce_scatter_block_c(a->sendbuf, a->recvbuf, a->count, a->datatype, a->op,
                                           comm);
#endif
    if (a->varying)
        return PMPI_Reduce_scatter(a->sendbuf, a->recvbuf, a->recvcounts, a->datatype, a->op, comm);
    return PMPI_Reduce_scatter_block(a->sendbuf, a->recvbuf, (int)a->count, a->datatype, a->op,
                                     comm);
}

static const shmcoll_mpi_coll_desc_t block_desc = {
    SHMCOLL_MPI_REDUCE_SCATTER_BLOCK,
    {"MPI_Reduce_scatter_block", "MPI_Reduce_scatter_block_c"},
    prepare,
    payload,
    fallback};
static const shmcoll_mpi_coll_desc_t varying_desc = {SHMCOLL_MPI_REDUCE_SCATTER,
                                                     {"MPI_Reduce_scatter", "MPI_Reduce_scatter_c"},
                                                     prepare,
                                                     payload,
                                                     fallback};

static int reduce_scatter_any(const void *sendbuf, void *recvbuf, int varying,
                              const void *recvcounts, MPI_Count count, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, int large) {
    const reduce_scatter_args_t a = {sendbuf, recvbuf, varying,  recvcounts,
                                     count,   large,   datatype, op};
    return shmcoll_mpi_coll_run(varying ? &varying_desc : &block_desc, &a, comm, large);
}

SHMCOLL_API int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return reduce_scatter_any(sendbuf, recvbuf, 0, NULL, recvcount, datatype, op, comm, 0);
}

SHMCOLL_API int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return reduce_scatter_any(sendbuf, recvbuf, 1, recvcounts, 0, datatype, op, comm, 0);
}

#if MPI_VERSION >= 4
SHMCOLL_API int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return reduce_scatter_any(sendbuf, recvbuf, 0, NULL, recvcount, datatype, op, comm, 1);
}

SHMCOLL_API int MPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf,
                                     const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op,
                                     MPI_Comm comm) {
    return reduce_scatter_any(sendbuf, recvbuf, 1, recvcounts, 0, datatype, op, comm, 1);
}
#endif
