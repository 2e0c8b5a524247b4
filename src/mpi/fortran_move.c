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

SHMCOLL_MPI_FORTRAN_PROCEDURE(barrier, mpi_barrier, MPI_BARRIER, (const MPI_Fint *comm),
                              MPI_Barrier(PMPI_Comm_f2c(*comm)));
#if defined(MPICH)
/* MPICH's mpi_f08 MPI_Barrier calls PMPI_Barrier directly, unlike its other mpi_f08 collectives
 * (see fortran.h); its arguments are those of Open MPI's, served by the same body. */
SHMCOLL_API extern __typeof__(barrier) mpi_barrier_f08_ __attribute__((alias("barrier")));
#endif

SHMCOLL_MPI_FORTRAN_PROCEDURE(bcast, mpi_bcast, MPI_BCAST,
                              (void *buffer, const MPI_Fint *count, const MPI_Fint *datatype,
                               const MPI_Fint *root, const MPI_Fint *comm),
                              MPI_Bcast(shmcoll_mpi_fortran_buffer_f2c(buffer), *count,
                                        PMPI_Type_f2c(*datatype), *root, PMPI_Comm_f2c(*comm)));

/* The procedures of one block per rank on both sides, or p at the root: MPI_GATHER, MPI_SCATTER
 * (with the root's parameter `root_param` and its C argument `root_arg`, in parentheses with
 * their commas), MPI_ALLGATHER and MPI_ALLTOALL (without: empty). */
#define BLOCKS(body, lower, upper, function, root_param, root_arg)                                 \
    SHMCOLL_MPI_FORTRAN_PROCEDURE(                                                                 \
        body, lower, upper,                                                                        \
        (void *sendbuf, const MPI_Fint *sendcount, const MPI_Fint *sendtype, void *recvbuf,        \
         const MPI_Fint *recvcount, const MPI_Fint *recvtype,                                      \
         SHMCOLL_MPI_UNPAREN root_param const MPI_Fint *comm),                                     \
        function(shmcoll_mpi_fortran_buffer_f2c(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype),    \
                 shmcoll_mpi_fortran_buffer_f2c(recvbuf), *recvcount, PMPI_Type_f2c(*recvtype),    \
                 SHMCOLL_MPI_UNPAREN root_arg PMPI_Comm_f2c(*comm)))
BLOCKS(gather, mpi_gather, MPI_GATHER, MPI_Gather, (const MPI_Fint *root, ), (*root, ));
BLOCKS(scatter, mpi_scatter, MPI_SCATTER, MPI_Scatter, (const MPI_Fint *root, ), (*root, ));
BLOCKS(allgather, mpi_allgather, MPI_ALLGATHER, MPI_Allgather, (), ());
BLOCKS(alltoall, mpi_alltoall, MPI_ALLTOALL, MPI_Alltoall, (), ());

/* MPI_GATHERV and MPI_ALLGATHERV: the same with counts and displacements on the receive side. */
#define GATHERV(body, lower, upper, function, root_param, root_arg)                                \
    SHMCOLL_MPI_FORTRAN_PROCEDURE(                                                                 \
        body, lower, upper,                                                                        \
        (void *sendbuf, const MPI_Fint *sendcount, const MPI_Fint *sendtype, void *recvbuf,        \
         const MPI_Fint *recvcounts, const MPI_Fint *displs, const MPI_Fint *recvtype,             \
         SHMCOLL_MPI_UNPAREN root_param const MPI_Fint *comm),                                     \
        function(shmcoll_mpi_fortran_buffer_f2c(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype),    \
                 shmcoll_mpi_fortran_buffer_f2c(recvbuf), recvcounts, displs,                      \
                 PMPI_Type_f2c(*recvtype), SHMCOLL_MPI_UNPAREN root_arg PMPI_Comm_f2c(*comm)))
GATHERV(gatherv, mpi_gatherv, MPI_GATHERV, MPI_Gatherv, (const MPI_Fint *root, ), (*root, ));
GATHERV(allgatherv, mpi_allgatherv, MPI_ALLGATHERV, MPI_Allgatherv, (), ());

SHMCOLL_MPI_FORTRAN_PROCEDURE(scatterv, mpi_scatterv, MPI_SCATTERV,
                              (void *sendbuf, const MPI_Fint *sendcounts, const MPI_Fint *displs,
                               const MPI_Fint *sendtype, void *recvbuf, const MPI_Fint *recvcount,
                               const MPI_Fint *recvtype, const MPI_Fint *root,
                               const MPI_Fint *comm),
                              MPI_Scatterv(shmcoll_mpi_fortran_buffer_f2c(sendbuf), sendcounts,
                                           displs, PMPI_Type_f2c(*sendtype),
                                           shmcoll_mpi_fortran_buffer_f2c(recvbuf), *recvcount,
                                           PMPI_Type_f2c(*recvtype), *root, PMPI_Comm_f2c(*comm)));

SHMCOLL_MPI_FORTRAN_PROCEDURE(
    alltoallv, mpi_alltoallv, MPI_ALLTOALLV,
    (void *sendbuf, const MPI_Fint *sendcounts, const MPI_Fint *sdispls, const MPI_Fint *sendtype,
     void *recvbuf, const MPI_Fint *recvcounts, const MPI_Fint *rdispls, const MPI_Fint *recvtype,
     const MPI_Fint *comm),
    MPI_Alltoallv(shmcoll_mpi_fortran_buffer_f2c(sendbuf), sendcounts, sdispls,
                  PMPI_Type_f2c(*sendtype), shmcoll_mpi_fortran_buffer_f2c(recvbuf), recvcounts,
                  rdispls, PMPI_Type_f2c(*recvtype), PMPI_Comm_f2c(*comm)));
