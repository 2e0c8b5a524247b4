/* MPI_Alltoall and MPI_Alltoallv (and their MPI-4 large-count twins) over shared memory.
 *
 * Block r of rank q's send buffer becomes block q of rank r's receive buffer. For alltoall every
 * block has the same byte count on every rank, which decides; for alltoallv each rank knows only
 * its own blocks, and the core agrees on the longest before moving anything. MPI_IN_PLACE (at all
 * ranks): the blocks to send are in recvbuf, described by the receive arguments, and are replaced;
 * a rank that packs, packs its whole receive side first and unpacks it afterwards. */
#include "mpi/move.h"

#include "shmcoll.h"

static shmcoll_status_t prepare(shmcoll_mpi_call_t *call, const void *margs) {
    const shmcoll_mpi_move_args_t *a = margs;
    const int p = call->state->size;
    const int in_place = a->send.buf == MPI_IN_PLACE;
    if (a->varying && (!a->recv.counts || (!in_place && !a->send.counts)))
        return shmcoll_mpi_call_invalid(call, "invalid arguments");
    shmcoll_mpi_blocks_t *send = &call->send, *recv = &call->recv;
    if (shmcoll_mpi_move_blocks(call, a, &a->recv, p, recv, call->sizes, call->sizes + p) !=
            SHMCOLL_OK ||
        (!in_place && shmcoll_mpi_move_blocks(call, a, &a->send, p, send, call->sizes + 2 * p,
                                              call->sizes + 3 * p) != SHMCOLL_OK) ||
        (!a->varying && !in_place && send->block != recv->block))
        return shmcoll_mpi_call_invalid(call, "invalid arguments");
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
    if (!call->group)
        return shmcoll_mpi_call_self(call, shmcoll_mpi_blocks_at(recv, 0),
                                     shmcoll_mpi_blocks_at(send, 0),
                                     shmcoll_mpi_blocks_bytes(recv, 0));
    return shmcoll_mpi_call_describe(
        call, a->varying ? SHMCOLL_KIND_ALLTOALLV : SHMCOLL_KIND_ALLTOALL,
        shmcoll_mpi_call_sendbuf(in_place, send->base), recv->base, recv->block, 0);
}

/* Payload for the statistics (stats.h): p * p blocks for alltoall; for alltoallv each rank's own
 * blocks (in place, those of its receive side). */
static void payload(shmcoll_mpi_call_t *call, const void *margs) {
    const shmcoll_mpi_move_args_t *a = margs;
    const int p = call->state->size;
    const uint64_t mine =
        shmcoll_mpi_move_bytes(a, a->send.buf == MPI_IN_PLACE ? &a->recv : &a->send, p);
    if (a->varying)
        call->share = mine;
    else
        call->bytes = mine * (uint64_t)p;
}

static const shmcoll_mpi_coll_desc_t descs[2] =
    SHMCOLL_MPI_MOVE_DESCS(prepare, payload, SHMCOLL_MPI_ALLTOALL, Alltoall, Ialltoall,
                           SHMCOLL_MPI_ALLTOALLV, Alltoallv, Ialltoallv);

SHMCOLL_MPI_MOVE_ENTRIES(Alltoall, Ialltoall, SHMCOLL_MPI_MOVE_PARAMS, SHMCOLL_MPI_MOVE_NAMES,
                         descs, 0)

/* Alltoallv's parameters, with the count and displacement types of its form (call.h). */
#define ALLTOALLV_PARAMS(Count, Displ)                                                             \
    (const void *sendbuf, const Count sendcounts[], const Displ sdispls[], MPI_Datatype sendtype,  \
     void *recvbuf, const Count recvcounts[], const Displ rdispls[], MPI_Datatype recvtype,        \
     MPI_Comm comm)
SHMCOLL_MPI_ENTRIES(Alltoallv, Ialltoallv, ALLTOALLV_PARAMS,
                    (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                     comm),
                    shmcoll_mpi_move_call,
                    (descs, sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0, recvcounts,
                     rdispls, recvtype, 0, 1, comm))

/* MPI_IN_PLACE on all ranks or none; alltoall: one block size for every send and receive;
 * alltoallv's pairs are not checked (check.h). */
void shmcoll_mpi_check_alltoall(const void *margs, int rank, int size, shmcoll_mpi_check_t *check) {
    const shmcoll_mpi_move_args_t *a = margs;
    const int in_place = a->send.buf == MPI_IN_PLACE;
    check->field[SHMCOLL_MPI_CHECK_IN_PLACE] = in_place;
    if (a->varying) return;
    check->uniform = 1;
    if (!in_place) check->send = shmcoll_mpi_check_bytes(a->send.datatype, a->send.count);
    check->recv = shmcoll_mpi_check_bytes(a->recv.datatype, a->recv.count);
}
