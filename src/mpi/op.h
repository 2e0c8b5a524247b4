/* MPI reduction operations as shmcoll_reduce_op_t.
 *
 * The paths, tried in this order:
 *   - a predefined (type, op) pair with a kernel reduces through the kernel;
 *   - a predefined op on a derived datatype goes to the MPI library, which reports it: MPI allows
 *     predefined ops only on predefined types for reductions (unlike MPI_Accumulate), and both
 *     MPICH and Open MPI refuse even MPI_Type_dup(MPI_DOUBLE) with MPI_SUM;
 *   - any other combination on a contiguous layout (user-defined ops, predefined types without a
 *     kernel) reduces through a trampoline that calls PMPI_Reduce_local, so MPI itself computes
 *     every element exactly as it would in PMPI_Reduce;
 *   - everything else falls back: the shared-memory algorithms move whole element spans, so a
 *     type with gaps (the pair types MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT and
 *     MPI_LONG_DOUBLE_INT among them) would have its gaps in the receive buffer overwritten,
 *     which MPI never does, and a user-defined op expects the type's own layout.
 * Reductions take the same datatype and op on all ranks (MPI requires it), so all ranks choose
 * the same path and the same shmcoll_reduce_op_t. */
#ifndef SHMCOLL_MPI_OP_H
#define SHMCOLL_MPI_OP_H

#include "kernels/reduce_op.h"
#include "base/status.h"

#include <mpi.h>

/* What the trampoline and the network (mpi/net.c) need: the call's datatype and op. */
typedef struct shmcoll_mpi_op_ctx {
    MPI_Datatype datatype;
    MPI_Op op;
    MPI_Count extent;
    MPI_Count type_size; /* MPI_Type_size: count * type_size is the payload of a call */
} shmcoll_mpi_op_ctx_t;

/* Builds the names used in messages (part of the one-time setup, after the datatype table). */
void shmcoll_mpi_op_init(void);

/* Describes reducing `datatype` with `op`; ctx is set whenever the datatype is valid.
 *
 * The layouts it takes have no gaps, so an element's data is its extent.
 * SHMCOLL_ERR_INVALID with *reason set for a null op or an invalid datatype, NOT_SUPPORTED when
 * shmcoll cannot reduce them. */
shmcoll_status_t shmcoll_mpi_op_translate(MPI_Datatype datatype, MPI_Op op,
                                          shmcoll_mpi_op_ctx_t *ctx, shmcoll_reduce_op_t *rop,
                                          const char **reason);

/* Copies count elements from src to dst: the reduction over one process. Returns the bytes
 * copied. */
size_t shmcoll_mpi_op_copy(void *dst, const void *src, size_t count,
                           const shmcoll_reduce_op_t *rop);

#endif
