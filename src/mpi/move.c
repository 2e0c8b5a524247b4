/* What the data-movement collectives share. See move.h. */
#include "mpi/move.h"
#include "mpi/library_checks.h"
#include "mpi/request.h"

int shmcoll_mpi_move_call(const shmcoll_mpi_coll_desc_t descs[2], const void *sendbuf,
                          MPI_Count sendcount, const void *sendcounts, const void *sdispls,
                          MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                          const void *recvcounts, const void *rdispls, MPI_Datatype recvtype,
                          int root, int varying, MPI_Comm comm, int large,
                          const shmcoll_mpi_how_t *how) {
    shmcoll_mpi_move_args_t a;
    memset(&a, 0, sizeof a); /* its padding too: see shmcoll_mpi_coll_call */
    a.coll = descs[varying].coll;
    a.send.buf = (void *)sendbuf;
    a.send.count = sendcount;
    a.send.counts = sendcounts;
    a.send.displs = sdispls;
    a.send.datatype = sendtype;
    a.recv.buf = recvbuf;
    a.recv.count = recvcount;
    a.recv.counts = recvcounts;
    a.recv.displs = rdispls;
    a.recv.datatype = recvtype;
    a.root = root;
    a.varying = varying;
    a.wide = large;
    const char *refused =
        shmcoll_mpi_refused_move(a.coll, sendbuf, sendcount, sendcounts, sdispls, sendtype, recvbuf,
                                 recvcount, recvcounts, rdispls, recvtype, root, large, comm);
    if (refused) return shmcoll_mpi_coll_refused(&descs[varying], &a, comm, large, how, refused);
    return shmcoll_mpi_coll_call(&descs[varying], &a, comm, large, how);
}

MPI_Datatype *shmcoll_mpi_move_types(void *margs, int i) {
    shmcoll_mpi_move_args_t *a = margs;
    return i == 0 ? &a->send.datatype : i == 1 ? &a->recv.datatype : NULL;
}

const void **shmcoll_mpi_move_arrays(void *margs, int i, int rank, int size, size_t *bytes) {
    shmcoll_mpi_move_args_t *a = margs;
    if (!a->varying || i < 0 || i > 3) return NULL;
    shmcoll_mpi_side_t *side = i < 2 ? &a->send : &a->recv;
    /* The v-side of each collective: gatherv's receive side and scatterv's send side at the root
     * only, allgatherv's receive side everywhere, both of alltoallv's. */
    const int at_root = rank == a->root;
    const int significant = a->coll == SHMCOLL_MPI_ALLTOALLV    ? 1
                            : a->coll == SHMCOLL_MPI_ALLGATHERV ? i >= 2
                            : a->coll == SHMCOLL_MPI_GATHERV    ? i >= 2 && at_root
                            : a->coll == SHMCOLL_MPI_SCATTERV   ? i < 2 && at_root
                                                                : 0;
    if (!significant) return NULL;
    const size_t element = i % 2 ? (a->wide ? sizeof(MPI_Aint) : sizeof(int))
                                 : (a->wide ? sizeof(MPI_Count) : sizeof(int));
    *bytes = (size_t)size * element;
    return i % 2 ? &side->displs : &side->counts;
}

int shmcoll_mpi_move_fallback(const void *margs, MPI_Comm comm, int large,
                              const shmcoll_mpi_how_t *how) {
    const shmcoll_mpi_move_args_t *a = margs;
    const shmcoll_mpi_side_t *s = &a->send, *r = &a->recv;
    switch (a->coll) {
    case SHMCOLL_MPI_ALLGATHER:
        return SHMCOLL_PMPI_CALL(how, large, Allgather, Iallgather, s->buf, s->count, s->datatype,
                                 r->buf, r->count, r->datatype, comm);
    case SHMCOLL_MPI_ALLGATHERV:
        return SHMCOLL_PMPI_CALL(how, large, Allgatherv, Iallgatherv, s->buf, s->count, s->datatype,
                                 r->buf, r->counts, r->displs, r->datatype, comm);
    case SHMCOLL_MPI_GATHER:
        return SHMCOLL_PMPI_CALL(how, large, Gather, Igather, s->buf, s->count, s->datatype, r->buf,
                                 r->count, r->datatype, a->root, comm);
    case SHMCOLL_MPI_GATHERV:
        return SHMCOLL_PMPI_CALL(how, large, Gatherv, Igatherv, s->buf, s->count, s->datatype,
                                 r->buf, r->counts, r->displs, r->datatype, a->root, comm);
    case SHMCOLL_MPI_SCATTER:
        return SHMCOLL_PMPI_CALL(how, large, Scatter, Iscatter, s->buf, s->count, s->datatype,
                                 r->buf, r->count, r->datatype, a->root, comm);
    case SHMCOLL_MPI_SCATTERV:
        return SHMCOLL_PMPI_CALL(how, large, Scatterv, Iscatterv, s->buf, s->counts, s->displs,
                                 s->datatype, r->buf, r->count, r->datatype, a->root, comm);
    case SHMCOLL_MPI_ALLTOALL:
        return SHMCOLL_PMPI_CALL(how, large, Alltoall, Ialltoall, s->buf, s->count, s->datatype,
                                 r->buf, r->count, r->datatype, comm);
    default: /* SHMCOLL_MPI_ALLTOALLV */
        return SHMCOLL_PMPI_CALL(how, large, Alltoallv, Ialltoallv, s->buf, s->counts, s->displs,
                                 s->datatype, r->buf, r->counts, r->displs, r->datatype, comm);
    }
}

shmcoll_status_t shmcoll_mpi_move_blocks(shmcoll_mpi_call_t *call, const shmcoll_mpi_move_args_t *a,
                                         const shmcoll_mpi_side_t *side, int n,
                                         shmcoll_mpi_blocks_t *b, size_t *bytes, size_t *offsets) {
    SHMCOLL_CHECK(shmcoll_mpi_blocks_init(b, side->buf, side->count, side->counts, side->displs,
                                          a->wide, side->datatype, n, bytes, offsets));
    call->derived |= !b->layout.predefined;
    if (side->counts) { /* what a repeat must find unchanged (repeat.h) */
        const size_t count = a->wide ? sizeof(MPI_Count) : sizeof(int);
        const size_t displ = a->wide ? sizeof(MPI_Aint) : sizeof(int);
        shmcoll_mpi_call_array(call, side->counts, (size_t)n * count);
        shmcoll_mpi_call_array(call, side->displs, (size_t)n * displ);
    }
    return SHMCOLL_OK;
}

size_t shmcoll_mpi_move_key(const void *margs, const shmcoll_mpi_comm_t *state) {
    const shmcoll_mpi_move_args_t *a = margs;
    const int scatter = a->coll == SHMCOLL_MPI_SCATTER;
    const shmcoll_mpi_side_t *own = scatter ? &a->recv : &a->send;
    const shmcoll_mpi_side_t *block =
        own->buf == MPI_IN_PLACE ? (scatter ? &a->send : &a->recv) : own;
    return shmcoll_mpi_call_bytes(block->datatype, block->count);
}

size_t shmcoll_mpi_move_key_v(const void *margs, const shmcoll_mpi_comm_t *state) {
    const shmcoll_mpi_move_args_t *a = margs;
    if (a->coll == SHMCOLL_MPI_ALLGATHERV) {
        MPI_Count longest = 0;
        for (int j = 0; a->recv.counts && j < state->size; j++) {
            const MPI_Count c = shmcoll_mpi_count_at(a->recv.counts, a->wide, j);
            longest = c > longest ? c : longest;
        }
        return shmcoll_mpi_call_bytes(a->recv.datatype, longest);
    }
    if (a->coll == SHMCOLL_MPI_ALLTOALLV) {
        const shmcoll_mpi_side_t *side = a->send.buf == MPI_IN_PLACE ? &a->recv : &a->send;
        return shmcoll_mpi_move_bytes(a, side, state->size) / (size_t)state->size;
    }
    const int scatter = a->coll == SHMCOLL_MPI_SCATTERV;
    const shmcoll_mpi_side_t *own = scatter ? &a->recv : &a->send;
    const shmcoll_mpi_side_t *all = scatter ? &a->send : &a->recv;
    if (own->buf != MPI_IN_PLACE) return shmcoll_mpi_call_bytes(own->datatype, own->count);
    if (!all->counts) return 0;
    return shmcoll_mpi_call_bytes(all->datatype,
                                  shmcoll_mpi_count_at(all->counts, a->wide, state->rank));
}

uint64_t shmcoll_mpi_move_bytes(const shmcoll_mpi_move_args_t *a, const shmcoll_mpi_side_t *side,
                                int n) {
    return side->counts ? shmcoll_mpi_call_bytes_sum(side->datatype, side->counts, a->wide, n)
                        : shmcoll_mpi_call_bytes(side->datatype, side->count * n);
}

shmcoll_status_t shmcoll_mpi_move_rooted_prepare(shmcoll_mpi_call_t *call,
                                                 const shmcoll_mpi_move_args_t *a, int scatter) {
    const int p = call->state->size, root = a->root, is_root = call->state->rank == root;
    const shmcoll_mpi_side_t *own = scatter ? &a->recv : &a->send;
    const shmcoll_mpi_side_t *all = scatter ? &a->send : &a->recv;
    shmcoll_mpi_blocks_t *send = &call->send, *recv = &call->recv;
    shmcoll_mpi_blocks_t *own_blocks = scatter ? recv : send, *all_blocks = scatter ? send : recv;
    const int in_place = own->buf == MPI_IN_PLACE;
    if (root < 0 || root >= p || (in_place && !is_root) ||
        (is_root && a->varying && !all->counts) ||
        (!in_place &&
         shmcoll_mpi_move_blocks(call, a, own, 1, own_blocks, NULL, NULL) != SHMCOLL_OK) ||
        (is_root && shmcoll_mpi_move_blocks(call, a, all, p, all_blocks, call->sizes,
                                            call->sizes + p) != SHMCOLL_OK) ||
        (is_root && !in_place && own_blocks->total != shmcoll_mpi_blocks_bytes(all_blocks, root)))
        return shmcoll_mpi_call_invalid(call, "invalid arguments");
    /* Every rank knows the block size of gather and scatter; the sizes of their v-variants only
     * the root. */
    const size_t block = is_root ? all_blocks->block : own_blocks->total;
    if (!a->varying && block == 0) return shmcoll_mpi_call_local(call, "empty");
    if (!call->group && in_place) return shmcoll_mpi_call_local(call, "self");

    /* Which sides this rank has; an in-place root's own block stays where it is. */
    const int sends = scatter ? is_root : !in_place, receives = scatter ? !in_place : is_root;
    const int skip = in_place ? root : -1;
    if (sends) {
        SHMCOLL_CHECK(shmcoll_mpi_blocks_map(send));
        SHMCOLL_CHECK(shmcoll_mpi_blocks_pack(send, scatter ? skip : -1, call->comm));
    }
    if (receives) SHMCOLL_CHECK(shmcoll_mpi_blocks_map(recv));
    call->unpack = receives;
    call->unpack_skip = scatter ? -1 : skip;
    if (!call->group)
        return shmcoll_mpi_call_self(call, shmcoll_mpi_blocks_at(recv, 0),
                                     shmcoll_mpi_blocks_at(send, 0), own_blocks->total);
    const shmcoll_coll_kind_t kind =
        scatter ? (a->varying ? SHMCOLL_KIND_SCATTERV : SHMCOLL_KIND_SCATTER)
                : (a->varying ? SHMCOLL_KIND_GATHERV : SHMCOLL_KIND_GATHER);
    return shmcoll_mpi_call_describe(call, kind,
                                     sends ? shmcoll_mpi_call_sendbuf(0, send->base) : NULL,
                                     receives ? recv->base : NULL, block, root);
}

void shmcoll_mpi_move_check_rooted(const shmcoll_mpi_move_args_t *a, int scatter, int rank,
                                   shmcoll_mpi_check_t *check) {
    const shmcoll_mpi_side_t *own = scatter ? &a->recv : &a->send;
    const shmcoll_mpi_side_t *all = scatter ? &a->send : &a->recv;
    int64_t *own_bytes = scatter ? &check->recv : &check->send;
    int64_t *all_bytes = scatter ? &check->send : &check->recv;
    check->field[SHMCOLL_MPI_CHECK_ROOT] = a->root;
    if (own->buf != MPI_IN_PLACE) *own_bytes = shmcoll_mpi_check_bytes(own->datatype, own->count);
    check->uniform = !a->varying;
    if (rank != a->root) return;
    if (!a->varying) {
        *all_bytes = shmcoll_mpi_check_bytes(all->datatype, all->count);
        return;
    }
    check->counts = all->counts;
    check->wide = a->wide;
    check->unit = shmcoll_mpi_check_bytes(all->datatype, 1);
    check->against_recv = scatter;
}
