/* Fortran binding of MPI_FINALIZE.
 *
 * shmcoll's MPI_Finalize reports the statistics (SHMCOLL_STATS=1) and destroys the teams while MPI
 * still works (init.c). Open MPI's Fortran MPI_FINALIZE, and the mpi_f08 one of both MPI libraries,
 * call PMPI_Finalize directly and would skip both; so MPI_FINALIZE, like the collectives, is
 * served here and calls the C entry point. (MPI_INIT and MPI_INIT_THREAD: fortran_init.c.) */
#include "mpi/fortran.h"

#include <mpi.h>

static void finalize(MPI_Fint *ierror) {
    int rc = MPI_Finalize();
    if (ierror) *ierror = rc;
}
SHMCOLL_MPI_FORTRAN_EXPORT(finalize, mpi_finalize, MPI_FINALIZE);
#if defined(MPICH)
/* MPICH's mpi_f08 MPI_Finalize calls PMPI_Finalize directly; its only argument is the optional
 * ierror, as in Open MPI's. */
SHMCOLL_API extern __typeof__(finalize) mpi_finalize_f08_ __attribute__((alias("finalize")));
#endif
