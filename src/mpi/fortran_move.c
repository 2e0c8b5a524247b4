/* Fortran bindings (mpif.h, `use mpi`; Open MPI's mpi_f08) of MPI_BARRIER and of the collectives
 * that move data without reducing it: MPI_BCAST, MPI_GATHER(V), MPI_SCATTER(V), MPI_ALLGATHER(V)
 * and MPI_ALLTOALL(V).
 *
 * Each converts its Fortran arguments (see fortran.h) and calls the C entry point, so a Fortran
 * call takes exactly the path of the same C call. Every choice buffer goes through the sentinel
 * translation, the receive buffers too: MPI_IN_PLACE is the receive buffer of a scatter's root,
 * and MPI_BOTTOM may be any buffer. */
#include "mpi/fortran.h"

#include <mpi.h>

static void barrier(const MPI_Fint *comm, MPI_Fint *ierror) {
    int rc = MPI_Barrier(PMPI_Comm_f2c(*comm));
    if (ierror) *ierror = rc;
}
SHMCOLL_MPI_FORTRAN_EXPORT(barrier, mpi_barrier, MPI_BARRIER);
#if defined(MPICH)
/* MPICH's mpi_f08 MPI_Barrier calls PMPI_Barrier directly, unlike its other mpi_f08 collectives
 * (see fortran.h); its arguments are those of Open MPI's, served by the same body. */
SHMCOLL_API extern __typeof__(barrier) mpi_barrier_f08_ __attribute__((alias("barrier")));
#endif

static void bcast(void *buffer, const MPI_Fint *count, const MPI_Fint *datatype,
                  const MPI_Fint *root, const MPI_Fint *comm, MPI_Fint *ierror) {
    int rc = MPI_Bcast(shmcoll_mpi_fortran_buffer_f2c(buffer), *count, PMPI_Type_f2c(*datatype),
                       *root, PMPI_Comm_f2c(*comm));
    if (ierror) *ierror = rc;
}
SHMCOLL_MPI_FORTRAN_EXPORT(bcast, mpi_bcast, MPI_BCAST);

static void gather(void *sendbuf, const MPI_Fint *sendcount, const MPI_Fint *sendtype,
                   void *recvbuf, const MPI_Fint *recvcount, const MPI_Fint *recvtype,
                   const MPI_Fint *root, const MPI_Fint *comm, MPI_Fint *ierror) {
    int rc = MPI_Gather(shmcoll_mpi_fortran_buffer_f2c(sendbuf), *sendcount,
                        PMPI_Type_f2c(*sendtype), shmcoll_mpi_fortran_buffer_f2c(recvbuf),
                        *recvcount, PMPI_Type_f2c(*recvtype), *root, PMPI_Comm_f2c(*comm));
    if (ierror) *ierror = rc;
}
SHMCOLL_MPI_FORTRAN_EXPORT(gather, mpi_gather, MPI_GATHER);

static void gatherv(void *sendbuf, const MPI_Fint *sendcount, const MPI_Fint *sendtype,
                    void *recvbuf, const MPI_Fint *recvcounts, const MPI_Fint *displs,
                    const MPI_Fint *recvtype, const MPI_Fint *root, const MPI_Fint *comm,
                    MPI_Fint *ierror) {
    int rc = MPI_Gatherv(shmcoll_mpi_fortran_buffer_f2c(sendbuf), *sendcount,
                         PMPI_Type_f2c(*sendtype), shmcoll_mpi_fortran_buffer_f2c(recvbuf),
                         recvcounts, displs, PMPI_Type_f2c(*recvtype), *root, PMPI_Comm_f2c(*comm));
    if (ierror) *ierror = rc;
}
SHMCOLL_MPI_FORTRAN_EXPORT(gatherv, mpi_gatherv, MPI_GATHERV);

static void scatter(void *sendbuf, const MPI_Fint *sendcount, const MPI_Fint *sendtype,
                    void *recvbuf, const MPI_Fint *recvcount, const MPI_Fint *recvtype,
                    const MPI_Fint *root, const MPI_Fint *comm, MPI_Fint *ierror) {
    int rc = MPI_Scatter(shmcoll_mpi_fortran_buffer_f2c(sendbuf), *sendcount,
                         PMPI_Type_f2c(*sendtype), shmcoll_mpi_fortran_buffer_f2c(recvbuf),
                         *recvcount, PMPI_Type_f2c(*recvtype), *root, PMPI_Comm_f2c(*comm));
    if (ierror) *ierror = rc;
}
SHMCOLL_MPI_FORTRAN_EXPORT(scatter, mpi_scatter, MPI_SCATTER);

static void scatterv(void *sendbuf, const MPI_Fint *sendcounts, const MPI_Fint *displs,
                     const MPI_Fint *sendtype, void *recvbuf, const MPI_Fint *recvcount,
                     const MPI_Fint *recvtype, const MPI_Fint *root, const MPI_Fint *comm,
                     MPI_Fint *ierror) {
    int rc = MPI_Scatterv(shmcoll_mpi_fortran_buffer_f2c(sendbuf), sendcounts, displs,
                          PMPI_Type_f2c(*sendtype), shmcoll_mpi_fortran_buffer_f2c(recvbuf),
                          *recvcount, PMPI_Type_f2c(*recvtype), *root, PMPI_Comm_f2c(*comm));
    if (ierror) *ierror = rc;
}
SHMCOLL_MPI_FORTRAN_EXPORT(scatterv, mpi_scatterv, MPI_SCATTERV);

static void allgather(void *sendbuf, const MPI_Fint *sendcount, const MPI_Fint *sendtype,
                      void *recvbuf, const MPI_Fint *recvcount, const MPI_Fint *recvtype,
                      const MPI_Fint *comm, MPI_Fint *ierror) {
    int rc = MPI_Allgather(shmcoll_mpi_fortran_buffer_f2c(sendbuf), *sendcount,
                           PMPI_Type_f2c(*sendtype), shmcoll_mpi_fortran_buffer_f2c(recvbuf),
                           *recvcount, PMPI_Type_f2c(*recvtype), PMPI_Comm_f2c(*comm));
    if (ierror) *ierror = rc;
}
SHMCOLL_MPI_FORTRAN_EXPORT(allgather, mpi_allgather, MPI_ALLGATHER);

static void allgatherv(void *sendbuf, const MPI_Fint *sendcount, const MPI_Fint *sendtype,
                       void *recvbuf, const MPI_Fint *recvcounts, const MPI_Fint *displs,
                       const MPI_Fint *recvtype, const MPI_Fint *comm, MPI_Fint *ierror) {
    int rc = MPI_Allgatherv(shmcoll_mpi_fortran_buffer_f2c(sendbuf), *sendcount,
                            PMPI_Type_f2c(*sendtype), shmcoll_mpi_fortran_buffer_f2c(recvbuf),
                            recvcounts, displs, PMPI_Type_f2c(*recvtype), PMPI_Comm_f2c(*comm));
    if (ierror) *ierror = rc;
}
SHMCOLL_MPI_FORTRAN_EXPORT(allgatherv, mpi_allgatherv, MPI_ALLGATHERV);

static void alltoall(void *sendbuf, const MPI_Fint *sendcount, const MPI_Fint *sendtype,
                     void *recvbuf, const MPI_Fint *recvcount, const MPI_Fint *recvtype,
                     const MPI_Fint *comm, MPI_Fint *ierror) {
    int rc = MPI_Alltoall(shmcoll_mpi_fortran_buffer_f2c(sendbuf), *sendcount,
                          PMPI_Type_f2c(*sendtype), shmcoll_mpi_fortran_buffer_f2c(recvbuf),
                          *recvcount, PMPI_Type_f2c(*recvtype), PMPI_Comm_f2c(*comm));
    if (ierror) *ierror = rc;
}
SHMCOLL_MPI_FORTRAN_EXPORT(alltoall, mpi_alltoall, MPI_ALLTOALL);

static void alltoallv(void *sendbuf, const MPI_Fint *sendcounts, const MPI_Fint *sdispls,
                      const MPI_Fint *sendtype, void *recvbuf, const MPI_Fint *recvcounts,
                      const MPI_Fint *rdispls, const MPI_Fint *recvtype, const MPI_Fint *comm,
                      MPI_Fint *ierror) {
    int rc = MPI_Alltoallv(shmcoll_mpi_fortran_buffer_f2c(sendbuf), sendcounts, sdispls,
                           PMPI_Type_f2c(*sendtype), shmcoll_mpi_fortran_buffer_f2c(recvbuf),
                           recvcounts, rdispls, PMPI_Type_f2c(*recvtype), PMPI_Comm_f2c(*comm));
    if (ierror) *ierror = rc;
}
SHMCOLL_MPI_FORTRAN_EXPORT(alltoallv, mpi_alltoallv, MPI_ALLTOALLV);
