/* MPI reduction operations as shmcoll_reduce_op_t.
 *
 * A predefined (type, op) pair with a kernel reduces through the kernel. Any other combination
 * on a contiguous layout (user-defined ops, predefined ops on derived types, predefined types
 * without a kernel) reduces through a trampoline that calls PMPI_Reduce_local, so MPI itself
 * computes every element exactly as it would in PMPI_Reduce. Everything else falls back. */
#ifndef SHMCOLL_MPI_OP_H
#define SHMCOLL_MPI_OP_H

#include "core/reduce_op.h"
#include "core/status.h"

#include <mpi.h>

/* What the trampoline needs; lives on the wrapper's stack for the duration of one call. */
typedef struct shmcoll_mpi_op_ctx {
    MPI_Datatype datatype;
    MPI_Op op;
    MPI_Count extent;
    MPI_Count type_size; /* MPI_Type_size: count * type_size is the payload of a call */
} shmcoll_mpi_op_ctx_t;

/* Builds the names used in messages (part of the one-time setup, after the datatype table). */
void shmcoll_mpi_op_init(void);

/* Describes reducing `datatype` with `op`; ctx->type_size is set whenever the datatype is valid.
 *
 * rop->size is the element's data span (end of its last data byte), which for MPI_SHORT_INT is
 * its extent 8, not its size 6 (short at 0, int at 4): shmcoll_reduce_op_span() must cover the
 * int of the last element. SHMCOLL_ERR_NOT_SUPPORTED with *reason set when shmcoll
 * cannot reduce them; reduce and allreduce arguments are the same on all ranks, so all agree. */
shmcoll_status_t shmcoll_mpi_op_translate(MPI_Datatype datatype, MPI_Op op,
                                          shmcoll_mpi_op_ctx_t *ctx, shmcoll_reduce_op_t *rop,
                                          const char **reason);

/* Copies count elements (their data bytes, not the gaps of pair types) from src to dst: the
 * reduction over one process. */
void shmcoll_mpi_op_copy(void *dst, const void *src, size_t count, const shmcoll_reduce_op_t *rop);

#endif
