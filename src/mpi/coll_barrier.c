/* MPI_Barrier. */
#include "mpi/request.h"
#include "mpi/check.h"

#include "shmcoll.h"

static shmcoll_status_t prepare(shmcoll_mpi_call_t *call, const void *margs) {
    call->args.kind = SHMCOLL_KIND_BARRIER;
    return call->group ? SHMCOLL_OK : shmcoll_mpi_call_local(call, "self");
}

static void payload(shmcoll_mpi_call_t *call, const void *margs) {}

/* One size band: no message. */
static size_t key(const void *margs, const shmcoll_mpi_comm_t *state) {
    return 0;
}

static int fallback(const void *margs, MPI_Comm comm, int large, const shmcoll_mpi_how_t *how) {
    return SHMCOLL_PMPI_FORMS(how, Barrier, Ibarrier, comm);
}

static const shmcoll_mpi_coll_desc_t barrier_desc = {SHMCOLL_MPI_BARRIER,
                                                     SHMCOLL_MPI_NAMES(Barrier, Ibarrier),
                                                     prepare,
                                                     payload,
                                                     fallback,
                                                     0,
                                                     key,
                                                     NULL,
                                                     NULL,
                                                     0};

/* Its three forms; MPI has no large-count barrier. */
SHMCOLL_MPI_FORMS_DEFINE(MPI_Barrier, PMPI_Barrier, MPI_Ibarrier, SHMCOLL_MPI_INIT(Barrier),
                         (MPI_Comm comm), (comm), 0, shmcoll_mpi_coll_call,
                         (&barrier_desc, NULL, comm))

/* Nothing but the collective itself to agree on (check.h). */
void shmcoll_mpi_check_barrier(const void *margs, int rank, int size, shmcoll_mpi_check_t *check) {}
