/* MPI_Allgather and MPI_Allgatherv (and their MPI-4 large-count twins) over shared memory.
 *
 * Every rank's block goes to every rank. Only the receive side is significant everywhere (recvcount
 * or recvcounts, and recvtype, whose signature byte counts all ranks share), so the decision and
 * the number of bytes per block come from it; each rank maps its own send and receive layouts to
 * those bytes (blocks.h). MPI_IN_PLACE (at all ranks): a rank's block is already in its place in
 * recvbuf, and the send arguments are ignored. */
#include "mpi/request.h"
#include "mpi/check.h"

#include "shmcoll.h"

typedef struct allgather_args {
    const void *sendbuf;
    MPI_Count sendcount;
    MPI_Datatype sendtype;
    void *recvbuf;
    MPI_Count recvcount;    /* allgather */
    const void *recvcounts; /* allgatherv (NULL for allgather) */
    const void *displs;
    MPI_Datatype recvtype;
    int varying, wide;
} allgather_args_t;

static shmcoll_status_t prepare(shmcoll_mpi_call_t *call, const void *margs) {
    const allgather_args_t *a = margs;
    const int p = call->state->size, me = call->state->rank;
    const int in_place = a->sendbuf == MPI_IN_PLACE;
    shmcoll_mpi_blocks_t *send = &call->send, *recv = &call->recv;
    if ((a->varying && !a->recvcounts) ||
        shmcoll_mpi_blocks_init(recv, a->recvbuf, a->recvcount, a->recvcounts, a->displs, a->wide,
                                a->recvtype, p, call->sizes, call->sizes + p) != SHMCOLL_OK ||
        (!in_place && (shmcoll_mpi_blocks_init(send, a->sendbuf, a->sendcount, NULL, NULL, 0,
                                               a->sendtype, 1, NULL, NULL) != SHMCOLL_OK ||
                       send->total != shmcoll_mpi_blocks_bytes(recv, me))))
        return shmcoll_mpi_call_reject(call, "invalid arguments");
    if (recv->total == 0) return shmcoll_mpi_call_local(call, "empty");
    if (!call->group && in_place) return shmcoll_mpi_call_local(call, "self");

    SHMCOLL_CHECK(shmcoll_mpi_blocks_map(recv));
    if (in_place) {
        SHMCOLL_CHECK(shmcoll_mpi_blocks_pack_one(recv, me, call->comm));
    } else {
        SHMCOLL_CHECK(shmcoll_mpi_blocks_map(send));
        SHMCOLL_CHECK(shmcoll_mpi_blocks_pack(send, -1, call->comm));
    }
    call->unpack = 1;
    call->unpack_skip = in_place ? me : -1;
    if (!call->group) {
        shmcoll_mpi_call_copy(call, shmcoll_mpi_blocks_at(recv, 0), send->base, send->total);
        return shmcoll_mpi_call_local(call, "self");
    }
    call->args.kind = a->varying ? SHMCOLL_KIND_ALLGATHERV : SHMCOLL_KIND_ALLGATHER;
    call->args.sendbuf = shmcoll_mpi_call_sendbuf(in_place, send->base);
    call->args.recvbuf = recv->base;
    call->args.count = recv->block;
    call->args.recvcounts = recv->bytes;
    call->args.rdispls = recv->offsets;
    return SHMCOLL_OK;
}

/* Payload for the statistics (stats.h): the blocks of all ranks, which every rank knows. */
static void payload(shmcoll_mpi_call_t *call, const void *margs) {
    const allgather_args_t *a = margs;
    if (call->state->inter) return; /* not counted there (stats.h) */
    const int p = call->state->size;
    call->bytes = a->varying ? shmcoll_mpi_call_bytes_sum(a->recvtype, a->recvcounts, a->wide, p)
                             : shmcoll_mpi_call_bytes(a->recvtype, a->recvcount * p);
}

static int fallback(const void *margs, MPI_Comm comm, int large, const shmcoll_mpi_how_t *how) {
    const allgather_args_t *a = margs;
#if MPI_VERSION >= 4
    if (large && a->varying)
        return SHMCOLL_PMPI_FORMS_C(how, Allgatherv, Iallgatherv, a->sendbuf, a->sendcount,
                                    a->sendtype, a->recvbuf, a->recvcounts, a->displs, a->recvtype,
                                    comm);
    if (large)
        return SHMCOLL_PMPI_FORMS_C(how, Allgather, Iallgather, a->sendbuf, a->sendcount,
                                    a->sendtype, a->recvbuf, a->recvcount, a->recvtype, comm);
#endif
    if (a->varying)
        return SHMCOLL_PMPI_FORMS(how, Allgatherv, Iallgatherv, a->sendbuf, (int)a->sendcount,
                                  a->sendtype, a->recvbuf, a->recvcounts, a->displs, a->recvtype,
                                  comm);
    return SHMCOLL_PMPI_FORMS(how, Allgather, Iallgather, a->sendbuf, (int)a->sendcount,
                              a->sendtype, a->recvbuf, (int)a->recvcount, a->recvtype, comm);
}

static const shmcoll_mpi_coll_desc_t descs[2] = {
    {SHMCOLL_MPI_ALLGATHER, SHMCOLL_MPI_NAMES(Allgather, Iallgather), prepare, payload, fallback,
     sizeof(allgather_args_t)},
    {SHMCOLL_MPI_ALLGATHERV, SHMCOLL_MPI_NAMES(Allgatherv, Iallgatherv), prepare, payload, fallback,
     sizeof(allgather_args_t)},
};

static int allgather_any(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, const void *recvcounts,
                         const void *displs, MPI_Datatype recvtype, int varying, MPI_Comm comm,
                         int large, const shmcoll_mpi_how_t *how) {
    const allgather_args_t a = {sendbuf,    sendcount, sendtype, recvbuf, recvcount,
                                recvcounts, displs,    recvtype, varying, large};
    return shmcoll_mpi_coll_call(&descs[varying], &a, comm, large, how);
}

SHMCOLL_API int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return allgather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, 0,
                         comm, 0, NULL);
}

SHMCOLL_API int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Request *request) {
    return allgather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, 0,
                         comm, 0, SHMCOLL_MPI_NONBLOCKING_HOW(request));
}

#if SHMCOLL_MPI_HAVE_PERSISTENT
SHMCOLL_API int SHMCOLL_MPI_INIT(Allgather)(const void *sendbuf, int sendcount,
                                            MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                            MPI_Request *request) {
    return allgather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, 0,
                         comm, 0, SHMCOLL_MPI_PERSISTENT_HOW(info, request));
}
#endif

SHMCOLL_API int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const int recvcounts[], const int displs[],
                               MPI_Datatype recvtype, MPI_Comm comm) {
    return allgather_any(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, 1,
                         comm, 0, NULL);
}

SHMCOLL_API int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const int recvcounts[], const int displs[],
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
    return allgather_any(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, 1,
                         comm, 0, SHMCOLL_MPI_NONBLOCKING_HOW(request));
}

#if SHMCOLL_MPI_HAVE_PERSISTENT
SHMCOLL_API int SHMCOLL_MPI_INIT(Allgatherv)(const void *sendbuf, int sendcount,
                                             MPI_Datatype sendtype, void *recvbuf,
                                             const int recvcounts[], const int displs[],
                                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                             MPI_Request *request) {
    return allgather_any(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, 1,
                         comm, 0, SHMCOLL_MPI_PERSISTENT_HOW(info, request));
}
#endif

#if MPI_VERSION >= 4
SHMCOLL_API int MPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                MPI_Comm comm) {
    return allgather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, 0,
                         comm, 1, NULL);
}

SHMCOLL_API int MPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Request *request) {
    return allgather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, 0,
                         comm, 1, SHMCOLL_MPI_NONBLOCKING_HOW(request));
}

SHMCOLL_API int MPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount,
                                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                     MPI_Request *request) {
    return allgather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, 0,
                         comm, 1, SHMCOLL_MPI_PERSISTENT_HOW(info, request));
}

SHMCOLL_API int MPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, const MPI_Count recvcounts[],
                                 const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm) {
    return allgather_any(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, 1,
                         comm, 1, NULL);
}

SHMCOLL_API int MPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, const MPI_Count recvcounts[],
                                  const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                  MPI_Request *request) {
    return allgather_any(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, 1,
                         comm, 1, SHMCOLL_MPI_NONBLOCKING_HOW(request));
}

SHMCOLL_API int MPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount,
                                      MPI_Datatype sendtype, void *recvbuf,
                                      const MPI_Count recvcounts[], const MPI_Aint displs[],
                                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                      MPI_Request *request) {
    return allgather_any(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, 1,
                         comm, 1, SHMCOLL_MPI_PERSISTENT_HOW(info, request));
}
#endif

/* MPI_IN_PLACE on all ranks or none; allgather: one block size for every send and receive;
 * allgatherv: the same recvcounts (in bytes) everywhere, each matching its sender (check.h). */
void shmcoll_mpi_check_allgather(const void *margs, int rank, int size,
                                 shmcoll_mpi_check_t *check) {
    const allgather_args_t *a = margs;
    const int in_place = a->sendbuf == MPI_IN_PLACE;
    check->field[SHMCOLL_MPI_CHECK_IN_PLACE] = in_place;
    if (!in_place) check->send = shmcoll_mpi_check_bytes(a->sendtype, a->sendcount);
    if (!a->varying) {
        check->uniform = 1;
        check->recv = shmcoll_mpi_check_bytes(a->recvtype, a->recvcount);
        return;
    }
    const int64_t unit = shmcoll_mpi_check_bytes(a->recvtype, 1);
    check->field[SHMCOLL_MPI_CHECK_COUNTS] =
        shmcoll_mpi_check_counts_hash(a->recvcounts, a->wide, size, unit);
    check->counts = a->recvcounts;
    check->wide = a->wide;
    check->unit = unit;
}
