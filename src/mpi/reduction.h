/* The part of the reduction wrappers (reduce, allreduce, scan, exscan) between starting a call
 * and ending it: translating (datatype, op), the empty and one-process cases, and running the
 * shared-memory algorithm. */
#ifndef SHMCOLL_MPI_REDUCTION_H
#define SHMCOLL_MPI_REDUCTION_H

#include "mpi/call.h"

#include "core/reduce_op.h"

/* A collective of coll/ with the shape of shmcoll_reduce (sendbuf NULL: the input is in recvbuf);
 * `root` is ignored by those without one. */
typedef shmcoll_status_t (*shmcoll_mpi_reduction_fn)(shmcoll_team_t *team, const void *sendbuf,
                                                     void *recvbuf, size_t count,
                                                     const shmcoll_reduce_op_t *op, int root);

/* Serves count elements of datatype reduced with op, by `fn`. `result_here`: this rank receives
 * a result in recvbuf (the root of reduce; every rank of allreduce and scan; all but rank 0 of
 * exscan); elsewhere recvbuf is not touched. A send buffer equal to a significant receive buffer
 * is read as MPI_IN_PLACE: erroneous in MPI, but it keeps this rank in step with the others
 * instead of diverging to the library. */
shmcoll_status_t shmcoll_mpi_reduction_serve(shmcoll_mpi_call_t *call, shmcoll_mpi_reduction_fn fn,
                                             const void *sendbuf, void *recvbuf, MPI_Count count,
                                             MPI_Datatype datatype, MPI_Op op, int root,
                                             int result_here);

#endif
