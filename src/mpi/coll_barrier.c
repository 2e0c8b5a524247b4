/* MPI_Barrier over shared memory. */
#include "mpi/call.h"

#include "coll/coll.h"
#include "shmcoll.h"

SHMCOLL_API int MPI_Barrier(MPI_Comm comm) {
    shmcoll_mpi_call_t call;
    shmcoll_status_t status =
        shmcoll_mpi_call_begin(&call, comm, SHMCOLL_MPI_BARRIER, "MPI_Barrier");
    if (status == SHMCOLL_OK) status = call.team ? shmcoll_barrier(call.team) : SHMCOLL_OK;
    if (status != SHMCOLL_ERR_NOT_SUPPORTED) return shmcoll_mpi_call_end(&call, status);
    shmcoll_mpi_call_fallback(&call);
    return PMPI_Barrier(comm);
}
