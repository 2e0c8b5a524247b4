/* MPI_Scatter and MPI_Scatterv (and their MPI-4 large-count twins) over shared memory.
 *
 * The root sends block r of its buffer to rank r. The send arguments are significant at the root
 * only, so a non-root never looks at them: the block size of scatter comes from the receiver's own
 * receive arguments (MPI makes all blocks the same size, so it is the same everywhere); for
 * scatterv only the root knows every size, and the core agrees on the longest before moving
 * anything. MPI_IN_PLACE as recvbuf is allowed at the root only: its block stays where it is in
 * sendbuf and its receive arguments are ignored. */
#include "mpi/request.h"
#include "mpi/check.h"

#include "shmcoll.h"

typedef struct scatter_args {
    const void *sendbuf;
    MPI_Count sendcount;    /* scatter */
    const void *sendcounts; /* scatterv */
    const void *displs;
    MPI_Datatype sendtype;
    void *recvbuf;
    MPI_Count recvcount;
    MPI_Datatype recvtype;
    int root, varying, wide;
} scatter_args_t;

static shmcoll_status_t prepare(shmcoll_mpi_call_t *call, const void *margs) {
    const scatter_args_t *a = margs;
    const int p = call->state->size, me = call->state->rank, root = a->root;
    const int is_root = me == root, in_place = a->recvbuf == MPI_IN_PLACE;
    if (root < 0 || root >= p || (in_place && !is_root) ||
        (is_root && a->varying && !a->sendcounts))
        return shmcoll_mpi_call_reject(call, "invalid arguments");
    shmcoll_mpi_blocks_t *send = &call->send, *recv = &call->recv;
    if ((is_root &&
         shmcoll_mpi_blocks_init(send, a->sendbuf, a->sendcount, a->sendcounts, a->displs, a->wide,
                                 a->sendtype, p, call->sizes, call->sizes + p) != SHMCOLL_OK) ||
        (!in_place && shmcoll_mpi_blocks_init(recv, a->recvbuf, a->recvcount, NULL, NULL, 0,
                                              a->recvtype, 1, NULL, NULL) != SHMCOLL_OK) ||
        (is_root && !in_place && recv->total != shmcoll_mpi_blocks_bytes(send, root)))
        return shmcoll_mpi_call_reject(call, "invalid arguments");
    /* Every rank knows scatter's block size; scatterv's sizes only the root. */
    const size_t block = is_root ? send->block : recv->total;
    if (!a->varying && block == 0) return shmcoll_mpi_call_local(call, "empty");
    if (!call->group && in_place) return shmcoll_mpi_call_local(call, "self");

    if (is_root) {
        SHMCOLL_CHECK(shmcoll_mpi_blocks_map(send));
        SHMCOLL_CHECK(shmcoll_mpi_blocks_pack(send, in_place ? root : -1, call->comm));
    }
    if (!in_place) SHMCOLL_CHECK(shmcoll_mpi_blocks_map(recv));
    call->unpack = !in_place;
    if (!call->group) {
        shmcoll_mpi_call_copy(call, recv->base, shmcoll_mpi_blocks_at(send, 0), recv->total);
        return shmcoll_mpi_call_local(call, "self");
    }
    call->args.kind = a->varying ? SHMCOLL_KIND_SCATTERV : SHMCOLL_KIND_SCATTER;
    call->args.sendbuf = is_root ? shmcoll_mpi_call_sendbuf(0, send->base) : NULL;
    call->args.sendcounts = send->bytes;
    call->args.sdispls = send->offsets;
    call->args.recvbuf = in_place ? NULL : recv->base;
    call->args.recvbytes = recv->total;
    call->args.count = block;
    call->args.root = root;
    return SHMCOLL_OK;
}

/* Payload for the statistics (stats.h): p blocks for scatter; for scatterv the root's sum. */
static void payload(shmcoll_mpi_call_t *call, const void *margs) {
    const scatter_args_t *a = margs;
    if (call->state->inter) return; /* not counted there (stats.h) */
    const int p = call->state->size, is_root = call->state->rank == a->root;
    if (a->varying)
        call->share =
            is_root ? shmcoll_mpi_call_bytes_sum(a->sendtype, a->sendcounts, a->wide, p) : 0;
    else
        call->bytes = (uint64_t)p * (is_root ? shmcoll_mpi_call_bytes(a->sendtype, a->sendcount)
                                             : shmcoll_mpi_call_bytes(a->recvtype, a->recvcount));
}

static int fallback(const void *margs, MPI_Comm comm, int large, const shmcoll_mpi_how_t *how) {
    const scatter_args_t *a = margs;
#if MPI_VERSION >= 4
    if (large && a->varying)
        return SHMCOLL_PMPI_FORMS_C(how, Scatterv, Iscatterv, a->sendbuf, a->sendcounts, a->displs,
                                    a->sendtype, a->recvbuf, a->recvcount, a->recvtype, a->root,
                                    comm);
    if (large)
        return SHMCOLL_PMPI_FORMS_C(how, Scatter, Iscatter, a->sendbuf, a->sendcount, a->sendtype,
                                    a->recvbuf, a->recvcount, a->recvtype, a->root, comm);
#endif
    if (a->varying)
        return SHMCOLL_PMPI_FORMS(how, Scatterv, Iscatterv, a->sendbuf, a->sendcounts, a->displs,
                                  a->sendtype, a->recvbuf, (int)a->recvcount, a->recvtype, a->root,
                                  comm);
    return SHMCOLL_PMPI_FORMS(how, Scatter, Iscatter, a->sendbuf, (int)a->sendcount, a->sendtype,
                              a->recvbuf, (int)a->recvcount, a->recvtype, a->root, comm);
}

static const shmcoll_mpi_coll_desc_t descs[2] = {
    {SHMCOLL_MPI_SCATTER, SHMCOLL_MPI_NAMES(Scatter, Iscatter), prepare, payload, fallback,
     sizeof(scatter_args_t)},
    {SHMCOLL_MPI_SCATTERV, SHMCOLL_MPI_NAMES(Scatterv, Iscatterv), prepare, payload, fallback,
     sizeof(scatter_args_t)},
};

static int scatter_any(const void *sendbuf, MPI_Count sendcount, const void *sendcounts,
                       const void *displs, MPI_Datatype sendtype, void *recvbuf,
                       MPI_Count recvcount, MPI_Datatype recvtype, int root, int varying,
                       MPI_Comm comm, int large, const shmcoll_mpi_how_t *how) {
    const scatter_args_t a = {sendbuf,   sendcount, sendcounts, displs,  sendtype, recvbuf,
                              recvcount, recvtype,  root,       varying, large};
    return shmcoll_mpi_coll_call(&descs[varying], &a, comm, large, how);
}

SHMCOLL_API int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm) {
    return scatter_any(sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount, recvtype, root,
                       0, comm, 0, NULL);
}

SHMCOLL_API int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm, MPI_Request *request) {
    return scatter_any(sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount, recvtype, root,
                       0, comm, 0, SHMCOLL_MPI_NONBLOCKING_HOW(request));
}

#if SHMCOLL_MPI_HAVE_PERSISTENT
SHMCOLL_API int SHMCOLL_MPI_INIT(Scatter)(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                          void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                          int root, MPI_Comm comm, MPI_Info info,
                                          MPI_Request *request) {
    return scatter_any(sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount, recvtype, root,
                       0, comm, 0, SHMCOLL_MPI_PERSISTENT_HOW(info, request));
}
#endif

SHMCOLL_API int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                             MPI_Datatype sendtype, void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return scatter_any(sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                       1, comm, 0, NULL);
}

SHMCOLL_API int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                              MPI_Datatype sendtype, void *recvbuf, int recvcount,
                              MPI_Datatype recvtype, int root, MPI_Comm comm,
                              MPI_Request *request) {
    return scatter_any(sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                       1, comm, 0, SHMCOLL_MPI_NONBLOCKING_HOW(request));
}

#if SHMCOLL_MPI_HAVE_PERSISTENT
SHMCOLL_API int SHMCOLL_MPI_INIT(Scatterv)(const void *sendbuf, const int sendcounts[],
                                           const int displs[], MPI_Datatype sendtype, void *recvbuf,
                                           int recvcount, MPI_Datatype recvtype, int root,
                                           MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    return scatter_any(sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                       1, comm, 0, SHMCOLL_MPI_PERSISTENT_HOW(info, request));
}
#endif

#if MPI_VERSION >= 4
SHMCOLL_API int MPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                              MPI_Comm comm) {
    return scatter_any(sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount, recvtype, root,
                       0, comm, 1, NULL);
}

SHMCOLL_API int MPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                               MPI_Comm comm, MPI_Request *request) {
    return scatter_any(sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount, recvtype, root,
                       0, comm, 1, SHMCOLL_MPI_NONBLOCKING_HOW(request));
}

SHMCOLL_API int MPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                   int root, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    return scatter_any(sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount, recvtype, root,
                       0, comm, 1, SHMCOLL_MPI_PERSISTENT_HOW(info, request));
}

SHMCOLL_API int MPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
                               MPI_Count recvcount, MPI_Datatype recvtype, int root,
                               MPI_Comm comm) {
    return scatter_any(sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                       1, comm, 1, NULL);
}

SHMCOLL_API int MPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[],
                                const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
                                MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                MPI_Request *request) {
    return scatter_any(sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                       1, comm, 1, SHMCOLL_MPI_NONBLOCKING_HOW(request));
}

SHMCOLL_API int MPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                    const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
                                    MPI_Count recvcount, MPI_Datatype recvtype, int root,
                                    MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    return scatter_any(sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                       1, comm, 1, SHMCOLL_MPI_PERSISTENT_HOW(info, request));
}
#endif

/* The root; every receiver's block against the root's send count (scatter: one size for all;
 * scatterv: the root's sendcounts[j] against rank j's block) (check.h). */
void shmcoll_mpi_check_scatter(const void *margs, int rank, int size, shmcoll_mpi_check_t *check) {
    const scatter_args_t *a = margs;
    check->field[SHMCOLL_MPI_CHECK_ROOT] = a->root;
    if (a->recvbuf != MPI_IN_PLACE)
        check->recv = shmcoll_mpi_check_bytes(a->recvtype, a->recvcount);
    check->uniform = !a->varying;
    if (rank != a->root) return;
    if (!a->varying) {
        check->send = shmcoll_mpi_check_bytes(a->sendtype, a->sendcount);
        return;
    }
    check->counts = a->sendcounts;
    check->wide = a->wide;
    check->unit = shmcoll_mpi_check_bytes(a->sendtype, 1);
    check->against_recv = 1;
}
