/* MPI_Gather and MPI_Gatherv (and their MPI-4 large-count twins) over shared memory.
 *
 * The root receives every rank's block. The receive arguments are significant at the root only,
 * so a non-root never looks at them: the block size of gather comes from the sender's own send
 * arguments (MPI makes all blocks the same size, so it is the same everywhere); for gatherv only
 * the root knows every size, and the core agrees on the longest before moving anything.
 * MPI_IN_PLACE is allowed at the root only: its block is already in recvbuf and its send
 * arguments are ignored. */
#include "mpi/request.h"
#include "mpi/check.h"

#include "shmcoll.h"

typedef struct gather_args {
    const void *sendbuf;
    MPI_Count sendcount;
    MPI_Datatype sendtype;
    void *recvbuf;
    MPI_Count recvcount;    /* gather */
    const void *recvcounts; /* gatherv */
    const void *displs;
    MPI_Datatype recvtype;
    int root, varying, wide;
} gather_args_t;

static shmcoll_status_t prepare(shmcoll_mpi_call_t *call, const void *margs) {
    const gather_args_t *a = margs;
    const int p = call->state->size, me = call->state->rank, root = a->root;
    const int is_root = me == root, in_place = a->sendbuf == MPI_IN_PLACE;
    if (root < 0 || root >= p || (in_place && !is_root) ||
        (is_root && a->varying && !a->recvcounts))
        return shmcoll_mpi_call_reject(call, "invalid arguments");
    shmcoll_mpi_blocks_t *send = &call->send, *recv = &call->recv;
    if ((!in_place && shmcoll_mpi_blocks_init(send, a->sendbuf, a->sendcount, NULL, NULL, 0,
                                              a->sendtype, 1, NULL, NULL) != SHMCOLL_OK) ||
        (is_root &&
         shmcoll_mpi_blocks_init(recv, a->recvbuf, a->recvcount, a->recvcounts, a->displs, a->wide,
                                 a->recvtype, p, call->sizes, call->sizes + p) != SHMCOLL_OK) ||
        (is_root && !in_place && send->total != shmcoll_mpi_blocks_bytes(recv, root)))
        return shmcoll_mpi_call_reject(call, "invalid arguments");
    /* Every rank knows gather's block size; gatherv's sizes only the root. */
    const size_t block = is_root ? recv->block : send->total;
    if (!a->varying && block == 0) return shmcoll_mpi_call_local(call, "empty");
    if (!call->group && in_place) return shmcoll_mpi_call_local(call, "self");

    if (is_root) SHMCOLL_CHECK(shmcoll_mpi_blocks_map(recv));
    if (!in_place) {
        SHMCOLL_CHECK(shmcoll_mpi_blocks_map(send));
        SHMCOLL_CHECK(shmcoll_mpi_blocks_pack(send, -1, call->comm));
    }
    call->unpack = is_root;
    call->unpack_skip = in_place ? root : -1;
    if (!call->group) {
        shmcoll_mpi_call_copy(call, shmcoll_mpi_blocks_at(recv, 0), send->base, send->total);
        return shmcoll_mpi_call_local(call, "self");
    }
    call->args.kind = a->varying ? SHMCOLL_KIND_GATHERV : SHMCOLL_KIND_GATHER;
    call->args.sendbuf = shmcoll_mpi_call_sendbuf(in_place, send->base);
    call->args.sendbytes = send->total;
    call->args.recvbuf = recv->base;
    call->args.count = block;
    call->args.recvcounts = recv->bytes;
    call->args.rdispls = recv->offsets;
    call->args.root = root;
    return SHMCOLL_OK;
}

/* Payload for the statistics (stats.h): p blocks for gather; for gatherv each rank's own. */
static void payload(shmcoll_mpi_call_t *call, const void *margs) {
    const gather_args_t *a = margs;
    if (call->state->inter) return; /* not counted there (stats.h) */
    const int is_root = call->state->rank == a->root, in_place = a->sendbuf == MPI_IN_PLACE;
    uint64_t mine = 0; /* an in-place root's send arguments are not significant */
    if (!(is_root && in_place))
        mine = shmcoll_mpi_call_bytes(a->sendtype, a->sendcount);
    else if (!a->varying)
        mine = shmcoll_mpi_call_bytes(a->recvtype, a->recvcount);
    else if (a->recvcounts)
        mine = shmcoll_mpi_call_bytes(a->recvtype,
                                      shmcoll_mpi_count_at(a->recvcounts, a->wide, a->root));
    if (a->varying)
        call->share = mine;
    else
        call->bytes = mine * (uint64_t)call->state->size;
}

static int fallback(const void *margs, MPI_Comm comm, int large, const shmcoll_mpi_how_t *how) {
    const gather_args_t *a = margs;
#if MPI_VERSION >= 4
    if (large && a->varying)
        return SHMCOLL_PMPI_FORMS_C(how, Gatherv, Igatherv, a->sendbuf, a->sendcount, a->sendtype,
                                    a->recvbuf, a->recvcounts, a->displs, a->recvtype, a->root,
                                    comm);
    if (large)
        return SHMCOLL_PMPI_FORMS_C(how, Gather, Igather, a->sendbuf, a->sendcount, a->sendtype,
                                    a->recvbuf, a->recvcount, a->recvtype, a->root, comm);
#endif
    if (a->varying)
        return SHMCOLL_PMPI_FORMS(how, Gatherv, Igatherv, a->sendbuf, (int)a->sendcount,
                                  a->sendtype, a->recvbuf, a->recvcounts, a->displs, a->recvtype,
                                  a->root, comm);
    return SHMCOLL_PMPI_FORMS(how, Gather, Igather, a->sendbuf, (int)a->sendcount, a->sendtype,
                              a->recvbuf, (int)a->recvcount, a->recvtype, a->root, comm);
}

static const shmcoll_mpi_coll_desc_t descs[2] = {
    {SHMCOLL_MPI_GATHER, SHMCOLL_MPI_NAMES(Gather, Igather), prepare, payload, fallback,
     sizeof(gather_args_t)},
    {SHMCOLL_MPI_GATHERV, SHMCOLL_MPI_NAMES(Gatherv, Igatherv), prepare, payload, fallback,
     sizeof(gather_args_t)},
};

static int gather_any(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, const void *recvcounts,
                      const void *displs, MPI_Datatype recvtype, int root, int varying,
                      MPI_Comm comm, int large, const shmcoll_mpi_how_t *how) {
    const gather_args_t a = {sendbuf, sendcount, sendtype, recvbuf, recvcount, recvcounts,
                             displs,  recvtype,  root,     varying, large};
    return shmcoll_mpi_coll_call(&descs[varying], &a, comm, large, how);
}

SHMCOLL_API int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return gather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, root,
                      0, comm, 0, NULL);
}

SHMCOLL_API int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm, MPI_Request *request) {
    return gather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, root,
                      0, comm, 0, SHMCOLL_MPI_NONBLOCKING_HOW(request));
}

#if SHMCOLL_MPI_HAVE_PERSISTENT
SHMCOLL_API int SHMCOLL_MPI_INIT(Gather)(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                         void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                         int root, MPI_Comm comm, MPI_Info info,
                                         MPI_Request *request) {
    return gather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, root,
                      0, comm, 0, SHMCOLL_MPI_PERSISTENT_HOW(info, request));
}
#endif

SHMCOLL_API int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return gather_any(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, root,
                      1, comm, 0, NULL);
}

SHMCOLL_API int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
    return gather_any(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, root,
                      1, comm, 0, SHMCOLL_MPI_NONBLOCKING_HOW(request));
}

#if SHMCOLL_MPI_HAVE_PERSISTENT
SHMCOLL_API int SHMCOLL_MPI_INIT(Gatherv)(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                          void *recvbuf, const int recvcounts[], const int displs[],
                                          MPI_Datatype recvtype, int root, MPI_Comm comm,
                                          MPI_Info info, MPI_Request *request) {
    return gather_any(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, root,
                      1, comm, 0, SHMCOLL_MPI_PERSISTENT_HOW(info, request));
}
#endif

#if MPI_VERSION >= 4
SHMCOLL_API int MPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm) {
    return gather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, root,
                      0, comm, 1, NULL);
}

SHMCOLL_API int MPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                              MPI_Comm comm, MPI_Request *request) {
    return gather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, root,
                      0, comm, 1, SHMCOLL_MPI_NONBLOCKING_HOW(request));
}

SHMCOLL_API int MPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  int root, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    return gather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, root,
                      0, comm, 1, SHMCOLL_MPI_PERSISTENT_HOW(info, request));
}

SHMCOLL_API int MPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                              MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return gather_any(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, root,
                      1, comm, 1, NULL);
}

SHMCOLL_API int MPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                               MPI_Datatype recvtype, int root, MPI_Comm comm,
                               MPI_Request *request) {
    return gather_any(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, root,
                      1, comm, 1, SHMCOLL_MPI_NONBLOCKING_HOW(request));
}

SHMCOLL_API int MPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    return gather_any(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, root,
                      1, comm, 1, SHMCOLL_MPI_PERSISTENT_HOW(info, request));
}
#endif

/* The root; every sender's block against the root's receive count (gather: one size for all;
 * gatherv: the root's recvcounts[j] against rank j's block) (check.h). */
void shmcoll_mpi_check_gather(const void *margs, int rank, int size, shmcoll_mpi_check_t *check) {
    const gather_args_t *a = margs;
    check->field[SHMCOLL_MPI_CHECK_ROOT] = a->root;
    if (a->sendbuf != MPI_IN_PLACE)
        check->send = shmcoll_mpi_check_bytes(a->sendtype, a->sendcount);
    check->uniform = !a->varying;
    if (rank != a->root) return;
    if (!a->varying) {
        check->recv = shmcoll_mpi_check_bytes(a->recvtype, a->recvcount);
        return;
    }
    check->counts = a->recvcounts;
    check->wide = a->wide;
    check->unit = shmcoll_mpi_check_bytes(a->recvtype, 1);
}
