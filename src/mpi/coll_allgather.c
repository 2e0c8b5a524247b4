/* MPI_Allgather and MPI_Allgatherv (and their MPI-4 large-count twins) over shared memory.
 *
 * Every rank's block goes to every rank. Only the receive side is significant everywhere (recvcount
 * or recvcounts, and recvtype, whose signature byte counts all ranks share), so the decision and
 * the number of bytes per block come from it; each rank maps its own send and receive layouts to
 * those bytes (blocks.h). MPI_IN_PLACE (at all ranks): a rank's block is already in its place in
 * recvbuf, and the send arguments are ignored. */
#include "mpi/move.h"

#include "shmcoll.h"

static shmcoll_status_t prepare(shmcoll_mpi_call_t *call, const void *margs) {
    const shmcoll_mpi_move_args_t *a = margs;
    const int p = call->state->size, me = call->state->rank;
    const int in_place = a->send.buf == MPI_IN_PLACE;
    shmcoll_mpi_blocks_t *send = &call->send, *recv = &call->recv;
    if ((a->varying && !a->recv.counts) ||
        shmcoll_mpi_move_blocks(call, a, &a->recv, p, recv, call->sizes, call->sizes + p) !=
            SHMCOLL_OK ||
        (!in_place &&
         (shmcoll_mpi_move_blocks(call, a, &a->send, 1, send, NULL, NULL) != SHMCOLL_OK ||
          send->total != shmcoll_mpi_blocks_bytes(recv, me))))
        return shmcoll_mpi_call_invalid(call, "invalid arguments");
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
    if (!call->group)
        return shmcoll_mpi_call_self(call, shmcoll_mpi_blocks_at(recv, 0), send->base, send->total);
    return shmcoll_mpi_call_describe(
        call, a->varying ? SHMCOLL_KIND_ALLGATHERV : SHMCOLL_KIND_ALLGATHER,
        shmcoll_mpi_call_sendbuf(in_place, send->base), recv->base, recv->block, 0);
}

/* Payload for the statistics (stats.h): the blocks of all ranks, which every rank knows. */
static void payload(shmcoll_mpi_call_t *call, const void *margs) {
    const shmcoll_mpi_move_args_t *a = margs;
    call->bytes = shmcoll_mpi_move_bytes(a, &a->recv, call->state->size);
}

static const shmcoll_mpi_coll_desc_t descs[2] =
    SHMCOLL_MPI_MOVE_DESCS(prepare, payload, SHMCOLL_MPI_ALLGATHER, Allgather, Iallgather,
                           SHMCOLL_MPI_ALLGATHERV, Allgatherv, Iallgatherv);

SHMCOLL_MPI_MOVE_ENTRIES(Allgather, Iallgather, SHMCOLL_MPI_MOVE_PARAMS, SHMCOLL_MPI_MOVE_NAMES,
                         descs, 0)

/* Allgatherv's parameters, with the count and displacement types of its form (call.h). */
#define ALLGATHERV_PARAMS(Count, Displ)                                                            \
    (const void *sendbuf, Count sendcount, MPI_Datatype sendtype, void *recvbuf,                   \
     const Count recvcounts[], const Displ displs[], MPI_Datatype recvtype, MPI_Comm comm)
SHMCOLL_MPI_ENTRIES(Allgatherv, Iallgatherv, ALLGATHERV_PARAMS,
                    (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm),
                    shmcoll_mpi_move_call,
                    (descs, sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, 0, recvcounts,
                     displs, recvtype, 0, 1, comm))

/* MPI_IN_PLACE on all ranks or none; allgather: one block size for every send and receive;
 * allgatherv: the same recvcounts (in bytes) everywhere, each matching its sender (check.h). */
void shmcoll_mpi_check_allgather(const void *margs, int rank, int size,
                                 shmcoll_mpi_check_t *check) {
    const shmcoll_mpi_move_args_t *a = margs;
    const int in_place = a->send.buf == MPI_IN_PLACE;
    check->field[SHMCOLL_MPI_CHECK_IN_PLACE] = in_place;
    if (!in_place) check->send = shmcoll_mpi_check_bytes(a->send.datatype, a->send.count);
    if (!a->varying) {
        check->uniform = 1;
        check->recv = shmcoll_mpi_check_bytes(a->recv.datatype, a->recv.count);
        return;
    }
    const int64_t unit = shmcoll_mpi_check_bytes(a->recv.datatype, 1);
    check->field[SHMCOLL_MPI_CHECK_COUNTS] =
        shmcoll_mpi_check_counts_hash(a->recv.counts, a->wide, size, unit);
    check->counts = a->recv.counts;
    check->wide = a->wide;
    check->unit = unit;
}
