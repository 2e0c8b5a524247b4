/* Fortran bindings (mpif.h, `use mpi`; Open MPI's mpi_f08) of the reducing collectives: MPI_REDUCE,
 * MPI_ALLREDUCE, MPI_REDUCE_SCATTER_BLOCK, MPI_REDUCE_SCATTER, MPI_SCAN and MPI_EXSCAN.
 *
 * Each converts its Fortran arguments (see fortran.h) and calls the C entry point, so a Fortran
 * call takes exactly the path of the same C call; with Open MPI the same bodies serve mpi_f08. */
#include "mpi/fortran.h"

#include <mpi.h>

/* Every reducing procedure: (sendbuf, recvbuf, count, datatype, op[, root], comm), `root_param`
 * and `root_arg` the root's parameter and C argument with their commas (in parentheses; empty
 * without a root). `count_arg` is the C count: *count, or the array itself for MPI_REDUCE_SCATTER,
 * whose third argument is recvcounts. */
#define REDUCTION(body, lower, upper, function, count_arg, root_param, root_arg)                   \
    SHMCOLL_MPI_FORTRAN_PROCEDURE(                                                                 \
        body, lower, upper,                                                                        \
        (void *sendbuf, void *recvbuf, const MPI_Fint *count, const MPI_Fint *datatype,            \
         const MPI_Fint *op, SHMCOLL_MPI_UNPAREN root_param const MPI_Fint *comm),                 \
        function(shmcoll_mpi_fortran_buffer_f2c(sendbuf), shmcoll_mpi_fortran_buffer_f2c(recvbuf), \
                 count_arg, PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op),                            \
                 SHMCOLL_MPI_UNPAREN root_arg PMPI_Comm_f2c(*comm)))
REDUCTION(reduce, mpi_reduce, MPI_REDUCE, MPI_Reduce, *count, (const MPI_Fint *root, ), (*root, ));
REDUCTION(allreduce, mpi_allreduce, MPI_ALLREDUCE, MPI_Allreduce, *count, (), ());
REDUCTION(reduce_scatter_block, mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK,
          MPI_Reduce_scatter_block, *count, (), ());
REDUCTION(reduce_scatter, mpi_reduce_scatter, MPI_REDUCE_SCATTER, MPI_Reduce_scatter, count, (),
          ());
REDUCTION(scan, mpi_scan, MPI_SCAN, MPI_Scan, *count, (), ());
REDUCTION(exscan, mpi_exscan, MPI_EXSCAN, MPI_Exscan, *count, (), ());
