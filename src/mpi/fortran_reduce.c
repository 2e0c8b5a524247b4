/* Fortran bindings (mpif.h, `use mpi`; Open MPI's mpi_f08) of the reducing collectives: MPI_REDUCE,
 * MPI_ALLREDUCE, MPI_REDUCE_SCATTER_BLOCK, MPI_REDUCE_SCATTER, MPI_SCAN and MPI_EXSCAN.
 *
 * Each converts its Fortran arguments (see fortran.h) and calls the C entry point, so a Fortran
 * call takes exactly the path of the same C call; with Open MPI the same bodies serve mpi_f08. */
#include "mpi/fortran.h"

#include <mpi.h>

static void reduce(void *sendbuf, void *recvbuf, const MPI_Fint *count, const MPI_Fint *datatype,
                   const MPI_Fint *op, const MPI_Fint *root, const MPI_Fint *comm,
                   MPI_Fint *ierror) {
    int rc =
        MPI_Reduce(shmcoll_mpi_fortran_buffer_f2c(sendbuf), shmcoll_mpi_fortran_buffer_f2c(recvbuf),
                   *count, PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op), *root, PMPI_Comm_f2c(*comm));
    if (ierror) *ierror = rc;
}
SHMCOLL_MPI_FORTRAN_EXPORT(reduce, mpi_reduce, MPI_REDUCE);

static void allreduce(void *sendbuf, void *recvbuf, const MPI_Fint *count, const MPI_Fint *datatype,
                      const MPI_Fint *op, const MPI_Fint *comm, MPI_Fint *ierror) {
    int rc = MPI_Allreduce(shmcoll_mpi_fortran_buffer_f2c(sendbuf),
                           shmcoll_mpi_fortran_buffer_f2c(recvbuf), *count,
                           PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm));
    if (ierror) *ierror = rc;
}
SHMCOLL_MPI_FORTRAN_EXPORT(allreduce, mpi_allreduce, MPI_ALLREDUCE);

static void reduce_scatter_block(void *sendbuf, void *recvbuf, const MPI_Fint *recvcount,
                                 const MPI_Fint *datatype, const MPI_Fint *op, const MPI_Fint *comm,
                                 MPI_Fint *ierror) {
    int rc = MPI_Reduce_scatter_block(
        shmcoll_mpi_fortran_buffer_f2c(sendbuf), shmcoll_mpi_fortran_buffer_f2c(recvbuf),
        *recvcount, PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm));
    if (ierror) *ierror = rc;
}
SHMCOLL_MPI_FORTRAN_EXPORT(reduce_scatter_block, mpi_reduce_scatter_block,
                           MPI_REDUCE_SCATTER_BLOCK);

static void reduce_scatter(void *sendbuf, void *recvbuf, const MPI_Fint *recvcounts,
                           const MPI_Fint *datatype, const MPI_Fint *op, const MPI_Fint *comm,
                           MPI_Fint *ierror) {
    int rc = MPI_Reduce_scatter(shmcoll_mpi_fortran_buffer_f2c(sendbuf),
                                shmcoll_mpi_fortran_buffer_f2c(recvbuf), recvcounts,
                                PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm));
    if (ierror) *ierror = rc;
}
SHMCOLL_MPI_FORTRAN_EXPORT(reduce_scatter, mpi_reduce_scatter, MPI_REDUCE_SCATTER);

static void scan(void *sendbuf, void *recvbuf, const MPI_Fint *count, const MPI_Fint *datatype,
                 const MPI_Fint *op, const MPI_Fint *comm, MPI_Fint *ierror) {
    int rc =
        MPI_Scan(shmcoll_mpi_fortran_buffer_f2c(sendbuf), shmcoll_mpi_fortran_buffer_f2c(recvbuf),
                 *count, PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm));
    if (ierror) *ierror = rc;
}
SHMCOLL_MPI_FORTRAN_EXPORT(scan, mpi_scan, MPI_SCAN);

static void exscan(void *sendbuf, void *recvbuf, const MPI_Fint *count, const MPI_Fint *datatype,
                   const MPI_Fint *op, const MPI_Fint *comm, MPI_Fint *ierror) {
    int rc =
        MPI_Exscan(shmcoll_mpi_fortran_buffer_f2c(sendbuf), shmcoll_mpi_fortran_buffer_f2c(recvbuf),
                   *count, PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm));
    if (ierror) *ierror = rc;
}
SHMCOLL_MPI_FORTRAN_EXPORT(exscan, mpi_exscan, MPI_EXSCAN);
