/* Force-included (-include) into MPICH's test suite when it is built against Open MPI 4, which
 * provides MPI-4's persistent collectives only under their pre-standard names, MPIX_*_init, in
 * its pcollreq extension (mpi-ext.h), with the same arguments. Mapping the standard names lets
 * MPICH's tests of persistent collectives (coll/p_*) build and run under Open MPI too, and so
 * test shmcoll's persistent collectives there. */
#ifndef SHMCOLL_OMPI4_PERSISTENT_H
#define SHMCOLL_OMPI4_PERSISTENT_H
#include <mpi.h>
#if defined(OPEN_MPI) && MPI_VERSION < 4
#include <mpi-ext.h>
#define MPI_Allgather_init            MPIX_Allgather_init
#define MPI_Allgatherv_init           MPIX_Allgatherv_init
#define MPI_Allreduce_init            MPIX_Allreduce_init
#define MPI_Alltoall_init             MPIX_Alltoall_init
#define MPI_Alltoallv_init            MPIX_Alltoallv_init
#define MPI_Alltoallw_init            MPIX_Alltoallw_init
#define MPI_Barrier_init              MPIX_Barrier_init
#define MPI_Bcast_init                MPIX_Bcast_init
#define MPI_Exscan_init               MPIX_Exscan_init
#define MPI_Gather_init               MPIX_Gather_init
#define MPI_Gatherv_init              MPIX_Gatherv_init
#define MPI_Reduce_init               MPIX_Reduce_init
#define MPI_Reduce_scatter_init       MPIX_Reduce_scatter_init
#define MPI_Reduce_scatter_block_init MPIX_Reduce_scatter_block_init
#define MPI_Scan_init                 MPIX_Scan_init
#define MPI_Scatter_init              MPIX_Scatter_init
#define MPI_Scatterv_init             MPIX_Scatterv_init
#define MPI_Neighbor_allgather_init   MPIX_Neighbor_allgather_init
#define MPI_Neighbor_allgatherv_init  MPIX_Neighbor_allgatherv_init
#define MPI_Neighbor_alltoall_init    MPIX_Neighbor_alltoall_init
#define MPI_Neighbor_alltoallv_init   MPIX_Neighbor_alltoallv_init
#define MPI_Neighbor_alltoallw_init   MPIX_Neighbor_alltoallw_init
#endif
#endif
