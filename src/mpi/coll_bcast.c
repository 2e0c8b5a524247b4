/* MPI_Bcast (and MPI-4's MPI_Bcast_c).
 *
 * MPI only requires the type *signatures* to match across ranks: the root may send 4 MPI_INT
 * while a receiver uses a vector type of the same 4 ints. So the decision and the protocol use
 * nothing but the signature's byte count (count * type size, equal on all ranks), and each rank
 * maps its own layout to those bytes (blocks.h): a dense layout is moved where it lies, any other
 * is packed into a temporary at the root and unpacked at the receivers. */
#include "mpi/request.h"
#include "mpi/check.h"

#include "shmcoll.h"

typedef struct bcast_args {
    void *buf;
    MPI_Count count;
    MPI_Datatype datatype;
    int root;
} bcast_args_t;

static shmcoll_status_t prepare(shmcoll_mpi_call_t *call, const void *margs) {
    const bcast_args_t *a = margs;
    shmcoll_mpi_layout_t layout;
    if (a->count < 0 || a->root < 0 || a->root >= call->state->size ||
        shmcoll_mpi_datatype_layout(a->datatype, &layout) != SHMCOLL_OK)
        return shmcoll_mpi_call_invalid(call, "invalid arguments");
    const size_t bytes = (size_t)a->count * (size_t)layout.size;
    if (bytes == 0) return shmcoll_mpi_call_local(call, "empty");
    if (!call->group) return shmcoll_mpi_call_local(call, "self");

    const int is_root = call->state->rank == a->root;
    call->derived |= !layout.predefined;
    shmcoll_mpi_blocks_init_one(&call->recv, a->buf, a->count, a->datatype, &layout);
    SHMCOLL_CHECK(shmcoll_mpi_blocks_map(&call->recv));
    if (is_root) SHMCOLL_CHECK(shmcoll_mpi_blocks_pack(&call->recv, -1, call->comm));
    call->unpack = !is_root;
    return shmcoll_mpi_call_describe(call, SHMCOLL_KIND_BCAST, NULL, call->recv.base, bytes,
                                     a->root);
}

/* The message (the signature's length), for calibration and the statistics alike. */
static size_t key(const void *margs, const shmcoll_mpi_comm_t *state) {
    const bcast_args_t *a = margs;
    return shmcoll_mpi_call_bytes(a->datatype, a->count);
}

static void payload(shmcoll_mpi_call_t *call, const void *margs) {
    call->bytes = key(margs, call->state);
}

static MPI_Datatype *types(void *margs, int i) {
    return i == 0 ? &((bcast_args_t *)margs)->datatype : NULL;
}

static int fallback(const void *margs, MPI_Comm comm, int large, const shmcoll_mpi_how_t *how) {
    const bcast_args_t *a = margs;
    return SHMCOLL_PMPI_CALL(how, large, Bcast, Ibcast, a->buf, a->count, a->datatype, a->root,
                             comm);
}

static const shmcoll_mpi_coll_desc_t bcast_desc = {SHMCOLL_MPI_BCAST,
                                                   SHMCOLL_MPI_NAMES(Bcast, Ibcast),
                                                   prepare,
                                                   payload,
                                                   fallback,
                                                   sizeof(bcast_args_t),
                                                   key,
                                                   types,
                                                   NULL,
                                                   0};

static int bcast(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 int large, const shmcoll_mpi_how_t *how) {
    bcast_args_t a;
    memset(&a, 0, sizeof a); /* its padding too: see shmcoll_mpi_coll_call */
    a.buf = buffer;
    a.count = count;
    a.datatype = datatype;
    a.root = root;
    return shmcoll_mpi_coll_call(&bcast_desc, &a, comm, large, how);
}

/* The parameters of the entry points, with their count type. */
#define BCAST_PARAMS(Count, Displ)                                                                 \
    (void *buffer, Count count, MPI_Datatype datatype, int root, MPI_Comm comm)

SHMCOLL_MPI_ENTRIES(Bcast, Ibcast, BCAST_PARAMS, (buffer, count, datatype, root, comm), bcast,
                    (buffer, count, datatype, root, comm))

/* The root, and the signature's length: layouts may differ, the bytes may not (check.h). */
void shmcoll_mpi_check_bcast(const void *margs, int rank, int size, shmcoll_mpi_check_t *check) {
    const bcast_args_t *a = margs;
    check->field[SHMCOLL_MPI_CHECK_ROOT] = a->root;
    check->field[SHMCOLL_MPI_CHECK_BYTES] = shmcoll_mpi_check_bytes(a->datatype, a->count);
}
