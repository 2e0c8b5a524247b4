/* MPI_Alltoall and MPI_Alltoallv (and their MPI-4 large-count twins) over shared memory.
 *
 * Block r of rank q's send buffer becomes block q of rank r's receive buffer. For alltoall every
 * block has the same byte count on every rank, which decides; for alltoallv each rank knows only
 * its own blocks, and the core agrees on the longest before moving anything. MPI_IN_PLACE (at all
 * ranks): the blocks to send are in recvbuf, described by the receive arguments, and are replaced;
 * a rank that packs, packs its whole receive side first and unpacks it afterwards. */
#include "mpi/request.h"
#include "mpi/check.h"

#include "shmcoll.h"

typedef struct alltoall_args {
    const void *sendbuf;
    MPI_Count sendcount;              /* alltoall */
    const void *sendcounts, *sdispls; /* alltoallv */
    MPI_Datatype sendtype;
    void *recvbuf;
    MPI_Count recvcount;
    const void *recvcounts, *rdispls;
    MPI_Datatype recvtype;
    int varying, wide;
} alltoall_args_t;

static shmcoll_status_t prepare(shmcoll_mpi_call_t *call, const void *margs) {
    const alltoall_args_t *a = margs;
    const int p = call->state->size;
    const int in_place = a->sendbuf == MPI_IN_PLACE;
    if (a->varying && (!a->recvcounts || (!in_place && !a->sendcounts)))
        return shmcoll_mpi_call_reject(call, "invalid arguments");
    shmcoll_mpi_blocks_t *send = &call->send, *recv = &call->recv;
    if (shmcoll_mpi_blocks_init(recv, a->recvbuf, a->recvcount, a->recvcounts, a->rdispls, a->wide,
                                a->recvtype, p, call->sizes, call->sizes + p) != SHMCOLL_OK ||
        (!in_place &&
         shmcoll_mpi_blocks_init(send, a->sendbuf, a->sendcount, a->sendcounts, a->sdispls, a->wide,
                                 a->sendtype, p, call->sizes + 2 * p,
                                 call->sizes + 3 * p) != SHMCOLL_OK) ||
        (!a->varying && !in_place && send->block != recv->block))
        return shmcoll_mpi_call_reject(call, "invalid arguments");
    if (!a->varying && recv->block == 0) return shmcoll_mpi_call_local(call, "empty");
    if (!call->group && in_place) return shmcoll_mpi_call_local(call, "self");

    SHMCOLL_CHECK(shmcoll_mpi_blocks_map(recv));
    if (in_place) {
        SHMCOLL_CHECK(shmcoll_mpi_blocks_pack(recv, -1, call->comm));
    } else {
        SHMCOLL_CHECK(shmcoll_mpi_blocks_map(send));
        SHMCOLL_CHECK(shmcoll_mpi_blocks_pack(send, -1, call->comm));
    }
    call->unpack = 1;
    if (!call->group) {
        shmcoll_mpi_call_copy(call, shmcoll_mpi_blocks_at(recv, 0), shmcoll_mpi_blocks_at(send, 0),
                              shmcoll_mpi_blocks_bytes(recv, 0));
        return shmcoll_mpi_call_local(call, "self");
    }
    call->args.kind = a->varying ? SHMCOLL_KIND_ALLTOALLV : SHMCOLL_KIND_ALLTOALL;
    call->args.sendbuf = shmcoll_mpi_call_sendbuf(in_place, send->base);
    call->args.sendcounts = send->bytes;
    call->args.sdispls = send->offsets;
    call->args.recvbuf = recv->base;
    call->args.recvcounts = recv->bytes;
    call->args.rdispls = recv->offsets;
    call->args.count = recv->block;
    return SHMCOLL_OK;
}

/* Payload for the statistics (stats.h): p * p blocks for alltoall; for alltoallv each rank's own
 * blocks. */
static void payload(shmcoll_mpi_call_t *call, const void *margs) {
    const alltoall_args_t *a = margs;
    if (call->state->inter) return; /* not counted there (stats.h) */
    const int p = call->state->size, in_place = a->sendbuf == MPI_IN_PLACE;
    const MPI_Datatype datatype = in_place ? a->recvtype : a->sendtype;
    if (a->varying)
        call->share = shmcoll_mpi_call_bytes_sum(datatype, in_place ? a->recvcounts : a->sendcounts,
                                                 a->wide, p);
    else
        call->bytes = shmcoll_mpi_call_bytes(datatype, in_place ? a->recvcount : a->sendcount) *
                      (uint64_t)p * (uint64_t)p;
}

static int fallback(const void *margs, MPI_Comm comm, int large, const shmcoll_mpi_how_t *how) {
    const alltoall_args_t *a = margs;
#if MPI_VERSION >= 4
    if (large && a->varying)
        return SHMCOLL_PMPI_FORMS_C(how, Alltoallv, Ialltoallv, a->sendbuf, a->sendcounts,
                                    a->sdispls, a->sendtype, a->recvbuf, a->recvcounts, a->rdispls,
                                    a->recvtype, comm);
    if (large)
        return SHMCOLL_PMPI_FORMS_C(how, Alltoall, Ialltoall, a->sendbuf, a->sendcount, a->sendtype,
                                    a->recvbuf, a->recvcount, a->recvtype, comm);
#endif
    if (a->varying)
        return SHMCOLL_PMPI_FORMS(how, Alltoallv, Ialltoallv, a->sendbuf, a->sendcounts, a->sdispls,
                                  a->sendtype, a->recvbuf, a->recvcounts, a->rdispls, a->recvtype,
                                  comm);
    return SHMCOLL_PMPI_FORMS(how, Alltoall, Ialltoall, a->sendbuf, (int)a->sendcount, a->sendtype,
                              a->recvbuf, (int)a->recvcount, a->recvtype, comm);
}

static const shmcoll_mpi_coll_desc_t descs[2] = {
    {SHMCOLL_MPI_ALLTOALL, SHMCOLL_MPI_NAMES(Alltoall, Ialltoall), prepare, payload, fallback,
     sizeof(alltoall_args_t)},
    {SHMCOLL_MPI_ALLTOALLV, SHMCOLL_MPI_NAMES(Alltoallv, Ialltoallv), prepare, payload, fallback,
     sizeof(alltoall_args_t)},
};

static int alltoall_any(const void *sendbuf, MPI_Count sendcount, const void *sendcounts,
                        const void *sdispls, MPI_Datatype sendtype, void *recvbuf,
                        MPI_Count recvcount, const void *recvcounts, const void *rdispls,
                        MPI_Datatype recvtype, int varying, MPI_Comm comm, int large,
                        const shmcoll_mpi_how_t *how) {
    const alltoall_args_t a = {sendbuf,   sendcount,  sendcounts, sdispls,  sendtype, recvbuf,
                               recvcount, recvcounts, rdispls,    recvtype, varying,  large};
    return shmcoll_mpi_coll_call(&descs[varying], &a, comm, large, how);
}

SHMCOLL_API int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return alltoall_any(sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount, NULL, NULL,
                        recvtype, 0, comm, 0, NULL);
}

SHMCOLL_API int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request *request) {
    return alltoall_any(sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount, NULL, NULL,
                        recvtype, 0, comm, 0, SHMCOLL_MPI_NONBLOCKING_HOW(request));
}

#if SHMCOLL_MPI_HAVE_PERSISTENT
SHMCOLL_API int SHMCOLL_MPI_INIT(Alltoall)(const void *sendbuf, int sendcount,
                                           MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                           MPI_Request *request) {
    return alltoall_any(sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount, NULL, NULL,
                        recvtype, 0, comm, 0, SHMCOLL_MPI_PERSISTENT_HOW(info, request));
}
#endif

SHMCOLL_API int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
    return alltoall_any(sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0, recvcounts, rdispls,
                        recvtype, 1, comm, 0, NULL);
}

SHMCOLL_API int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                               MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                               const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Request *request) {
    return alltoall_any(sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0, recvcounts, rdispls,
                        recvtype, 1, comm, 0, SHMCOLL_MPI_NONBLOCKING_HOW(request));
}

#if SHMCOLL_MPI_HAVE_PERSISTENT
SHMCOLL_API int SHMCOLL_MPI_INIT(Alltoallv)(const void *sendbuf, const int sendcounts[],
                                            const int sdispls[], MPI_Datatype sendtype,
                                            void *recvbuf, const int recvcounts[],
                                            const int rdispls[], MPI_Datatype recvtype,
                                            MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    return alltoall_any(sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0, recvcounts, rdispls,
                        recvtype, 1, comm, 0, SHMCOLL_MPI_PERSISTENT_HOW(info, request));
}
#endif

#if MPI_VERSION >= 4
SHMCOLL_API int MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm) {
    return alltoall_any(sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount, NULL, NULL,
                        recvtype, 0, comm, 1, NULL);
}

SHMCOLL_API int MPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Request *request) {
    return alltoall_any(sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount, NULL, NULL,
                        recvtype, 0, comm, 1, SHMCOLL_MPI_NONBLOCKING_HOW(request));
}

SHMCOLL_API int MPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                    MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    return alltoall_any(sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount, NULL, NULL,
                        recvtype, 0, comm, 1, SHMCOLL_MPI_PERSISTENT_HOW(info, request));
}

SHMCOLL_API int MPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                                const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                MPI_Datatype recvtype, MPI_Comm comm) {
    return alltoall_any(sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0, recvcounts, rdispls,
                        recvtype, 1, comm, 1, NULL);
}

SHMCOLL_API int MPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                                 const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                 const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
    return alltoall_any(sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0, recvcounts, rdispls,
                        recvtype, 1, comm, 1, SHMCOLL_MPI_NONBLOCKING_HOW(request));
}

SHMCOLL_API int MPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                     const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                     const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                     MPI_Request *request) {
    return alltoall_any(sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0, recvcounts, rdispls,
                        recvtype, 1, comm, 1, SHMCOLL_MPI_PERSISTENT_HOW(info, request));
}
#endif

/* MPI_IN_PLACE on all ranks or none; alltoall: one block size for every send and receive;
 * alltoallv's pairs are not checked (check.h). */
void shmcoll_mpi_check_alltoall(const void *margs, int rank, int size, shmcoll_mpi_check_t *check) {
    const alltoall_args_t *a = margs;
    const int in_place = a->sendbuf == MPI_IN_PLACE;
    check->field[SHMCOLL_MPI_CHECK_IN_PLACE] = in_place;
    if (a->varying) return;
    check->uniform = 1;
    if (!in_place) check->send = shmcoll_mpi_check_bytes(a->sendtype, a->sendcount);
    check->recv = shmcoll_mpi_check_bytes(a->recvtype, a->recvcount);
}
