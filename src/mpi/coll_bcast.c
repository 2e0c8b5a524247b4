/* MPI_Bcast (and MPI-4's MPI_Bcast_c) over shared memory.
 *
 * MPI only requires the type *signatures* to match across ranks: the root may send 4 MPI_INT
 * while a receiver uses a vector type of the same 4 ints. So the decision and the protocol use
 * nothing but the signature's byte count (count * type size, equal on all ranks), and each rank
 * maps its own layout to those bytes (blocks.h): a dense layout is moved where it lies, any other
 * is packed into a temporary at the root and unpacked at the receivers. */
#include "mpi/blocks.h"
#include "mpi/call.h"

#include "coll/coll.h"
#include "shmcoll.h"

static shmcoll_status_t serve(shmcoll_mpi_call_t *call, void *buf, MPI_Count count,
                              MPI_Datatype datatype, int root) {
    shmcoll_mpi_layout_t layout;
    if (count < 0 || root < 0 || root >= call->state->size ||
        shmcoll_mpi_datatype_layout(datatype, &layout) != SHMCOLL_OK)
        return shmcoll_mpi_call_reject(call, "invalid arguments");
    const size_t bytes = (size_t)count * (size_t)layout.size;
    if (bytes == 0) return shmcoll_mpi_call_local(call, "empty");
    if (!call->team) return shmcoll_mpi_call_local(call, "self");

    const int is_root = call->state->rank == root;
    shmcoll_mpi_blocks_t data;
    shmcoll_mpi_blocks_init_one(&data, buf, count, datatype, &layout);
    shmcoll_status_t status = shmcoll_mpi_blocks_map(&data);
    if (status == SHMCOLL_OK && is_root) status = shmcoll_mpi_blocks_pack(&data, -1, call->comm);
    if (status == SHMCOLL_OK) status = shmcoll_bcast(call->team, data.base, bytes, root);
    if (status == SHMCOLL_OK && !is_root) status = shmcoll_mpi_blocks_unpack(&data, -1, call->comm);
    shmcoll_mpi_blocks_free(&data);
    return status;
}

static int bcast(void *buf, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 int large) {
    shmcoll_mpi_call_t call;
    shmcoll_status_t status =
        shmcoll_mpi_call_begin(&call, comm, SHMCOLL_MPI_BCAST, large ? "MPI_Bcast_c" : "MPI_Bcast");
    call.bytes = shmcoll_mpi_call_bytes(datatype, count);
    if (status == SHMCOLL_OK) status = serve(&call, buf, count, datatype, root);
    if (status != SHMCOLL_ERR_NOT_SUPPORTED) return shmcoll_mpi_call_end(&call, status);
    shmcoll_mpi_call_fallback(&call);
#if MPI_VERSION >= 4
    if (large) return PMPI_Bcast_c(buf, count, datatype, root, comm);
#endif
    return PMPI_Bcast(buf, (int)count, datatype, root, comm);
}

SHMCOLL_API int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    return bcast(buffer, count, datatype, root, comm, 0);
}

#if MPI_VERSION >= 4
SHMCOLL_API int MPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                            MPI_Comm comm) {
    return bcast(buffer, count, datatype, root, comm, 1);
}
#endif
