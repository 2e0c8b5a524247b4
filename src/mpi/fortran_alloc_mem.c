/* Fortran bindings of MPI_ALLOC_MEM and MPI_FREE_MEM (fortran.h).
 *
 * Open MPI's Fortran layer calls PMPI_Alloc_mem directly, and so does MPICH's mpi_f08
 * MPI_Alloc_mem: without these bindings a Fortran program would never get memory from shmcoll's
 * shared heap. MPI_ALLOC_MEM's BASEPTR is an INTEGER(KIND=MPI_ADDRESS_KIND) (a Cray pointer) or,
 * in `use mpi` and mpi_f08, a TYPE(C_PTR): both are one address passed by reference, which is
 * all the C_PTR variant (mpi_alloc_mem_cptr) differs in. MPI_FREE_MEM takes the memory itself. */
#include "mpi/fortran.h"

#include <mpi.h>
#include <stddef.h>

static void alloc_mem(MPI_Aint *size, MPI_Fint *info, void **baseptr, MPI_Fint *ierror) {
    void *memory = NULL;
    int rc = MPI_Alloc_mem(*size, PMPI_Info_f2c(*info), &memory);
    if (rc == MPI_SUCCESS) *baseptr = memory;
    if (ierror) *ierror = rc;
}
SHMCOLL_MPI_FORTRAN_EXPORT(alloc_mem, mpi_alloc_mem, MPI_ALLOC_MEM);
SHMCOLL_MPI_FORTRAN_NAMES(alloc_mem, mpi_alloc_mem_cptr, MPI_ALLOC_MEM_CPTR);
#if defined(MPICH)
/* MPICH's mpi_f08 MPI_Alloc_mem calls PMPI_Alloc_mem directly (its MPI_Free_mem the C entry). */
SHMCOLL_API extern __typeof__(alloc_mem) mpi_alloc_mem_f08_ __attribute__((alias("alloc_mem")));
#endif

static void free_mem(void *base, MPI_Fint *ierror) {
    int rc = MPI_Free_mem(base);
    if (ierror) *ierror = rc;
}
SHMCOLL_MPI_FORTRAN_EXPORT(free_mem, mpi_free_mem, MPI_FREE_MEM);
