/* MPI_Barrier. */
#include "mpi/call.h"

#include "shmcoll.h"

static shmcoll_status_t prepare(shmcoll_mpi_call_t *call, const void *margs) {
    call->args.kind = SHMCOLL_KIND_BARRIER;
    return call->group ? SHMCOLL_OK : shmcoll_mpi_call_local(call, "self");
}

static void payload(shmcoll_mpi_call_t *call, const void *margs) {}

static int fallback(const void *margs, MPI_Comm comm, int large) {
    return PMPI_Barrier(comm);
}

static const shmcoll_mpi_coll_desc_t barrier_desc = {
    SHMCOLL_MPI_BARRIER, {"MPI_Barrier", "MPI_Barrier"}, prepare, payload, fallback};

SHMCOLL_API int MPI_Barrier(MPI_Comm comm) {
    return shmcoll_mpi_coll_run(&barrier_desc, NULL, comm, 0);
}
