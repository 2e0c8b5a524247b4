/* The persistent collectives by their MPI-4 names (MPI_*_init) in the MPI tests. */
#ifndef SHMCOLL_TESTS_MPI_PERSISTENT_NAMES_H
#define SHMCOLL_TESTS_MPI_PERSISTENT_NAMES_H

#include <mpi.h>

/* Open MPI 4 has the persistent collectives as an extension, named MPIX_*_init. */
#if MPI_VERSION < 4 && defined(OPEN_MPI)
#include <mpi-ext.h>
#define MPI_Allreduce_init            MPIX_Allreduce_init
#define MPI_Reduce_init               MPIX_Reduce_init
#define MPI_Scan_init                 MPIX_Scan_init
#define MPI_Exscan_init               MPIX_Exscan_init
#define MPI_Reduce_scatter_block_init MPIX_Reduce_scatter_block_init
#define MPI_Reduce_scatter_init       MPIX_Reduce_scatter_init
#define MPI_Allgather_init            MPIX_Allgather_init
#define MPI_Allgatherv_init           MPIX_Allgatherv_init
#define MPI_Gather_init               MPIX_Gather_init
#define MPI_Gatherv_init              MPIX_Gatherv_init
#define MPI_Scatter_init              MPIX_Scatter_init
#define MPI_Scatterv_init             MPIX_Scatterv_init
#define MPI_Alltoall_init             MPIX_Alltoall_init
#define MPI_Alltoallv_init            MPIX_Alltoallv_init
#define MPI_Bcast_init                MPIX_Bcast_init
#define MPI_Barrier_init              MPIX_Barrier_init
#endif

#endif
