/* Translation of (MPI_Datatype, MPI_Op) into a shmcoll_reduce_op_t. See op.h. */
#include "mpi/op.h"
#include "mpi/datatype.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    shmcoll_opcode_t opcode;
} op_names[] = {
    {"MPI_SUM", SHMCOLL_OP_SUM},       {"MPI_MAX", SHMCOLL_OP_MAX},
    {"MPI_MIN", SHMCOLL_OP_MIN},       {"MPI_PROD", SHMCOLL_OP_PROD},
    {"MPI_MAXLOC", SHMCOLL_OP_MAXLOC}, {"MPI_MINLOC", SHMCOLL_OP_MINLOC},
    {"MPI_BAND", SHMCOLL_OP_BAND},     {"MPI_BOR", SHMCOLL_OP_BOR},
    {"MPI_BXOR", SHMCOLL_OP_BXOR},     {"MPI_LAND", SHMCOLL_OP_LAND},
    {"MPI_LOR", SHMCOLL_OP_LOR},       {"MPI_LXOR", SHMCOLL_OP_LXOR},
};
#define NOPS ((int)(sizeof op_names / sizeof op_names[0]))

/* "MPI_SUM/MPI_DOUBLE" for every (table row, op), made once so a call formats nothing. */
static char kernel_names[SHMCOLL_MPI_DATATYPE_MAX][NOPS][48];

/* Predefined op handles are compared at run time, like datatypes (addresses in Open MPI). */
static int op_index(MPI_Op op) {
    const MPI_Op handles[NOPS] = {MPI_SUM,  MPI_MAX, MPI_MIN,  MPI_PROD, MPI_MAXLOC, MPI_MINLOC,
                                  MPI_BAND, MPI_BOR, MPI_BXOR, MPI_LAND, MPI_LOR,    MPI_LXOR};
    for (int i = 0; i < NOPS; i++)
        if (handles[i] == op) return i;
    return -1;
}

void shmcoll_mpi_op_init(void) {
    for (int row = 0; row < SHMCOLL_MPI_DATATYPE_MAX; row++)
        for (int i = 0; i < NOPS; i++)
            snprintf(kernel_names[row][i], sizeof kernel_names[row][i], "%s/%s", op_names[i].name,
                     shmcoll_mpi_datatype_name(row));
}

/* inout = in op inout through MPI itself; MPI's int count is covered in pieces. */
static void reduce_local(const void *in, void *inout, size_t n, void *ctx_) {
    const shmcoll_mpi_op_ctx_t *ctx = ctx_;
#if MPI_VERSION >= 4
    PMPI_Reduce_local_c(in, inout, (MPI_Count)n, ctx->datatype, ctx->op);
#else
    const char *src = in;
    char *dst = inout;
    while (n > 0) {
        int piece = n > INT_MAX ? INT_MAX : (int)n;
        PMPI_Reduce_local(src, dst, piece, ctx->datatype, ctx->op);
        src += (size_t)piece * (size_t)ctx->extent;
        dst += (size_t)piece * (size_t)ctx->extent;
        n -= (size_t)piece;
    }
#endif
}

shmcoll_status_t shmcoll_mpi_op_translate(MPI_Datatype datatype, MPI_Op op,
                                          shmcoll_mpi_op_ctx_t *ctx, shmcoll_reduce_op_t *rop,
                                          const char **reason) {
    shmcoll_mpi_layout_t layout;
    if (op == MPI_OP_NULL || shmcoll_mpi_datatype_layout(datatype, &layout) != SHMCOLL_OK) {
        *reason = "invalid datatype or op";
        return SHMCOLL_ERR_INVALID;
    }
    *ctx = (shmcoll_mpi_op_ctx_t){
        .datatype = datatype, .op = op, .extent = layout.extent, .type_size = layout.size};
    int index = op_index(op);
    /* The pair types with gaps (MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT,
     * MPI_LONG_DOUBLE_INT) go to the MPI library: MPI writes only an element's data, and a
     * program may keep its own data in the gaps (a struct's third field beside MPI_DOUBLE_INT's
     * double and int), which shmcoll's algorithms, moving whole element spans through its
     * buffers and into the receive buffer, overwrote. */
    if (layout.predefined && !layout.contiguous) {
        *reason = "a pair type with gaps (MPI writes only its data, never its gaps)";
        return SHMCOLL_ERR_NOT_SUPPORTED;
    }
    if (layout.predefined && index >= 0) {
        shmcoll_reduce_fn kernel = shmcoll_kernel_reduce(layout.dtype, op_names[index].opcode);
        if (kernel) {
            *rop = (shmcoll_reduce_op_t){.kernel = kernel,
                                         .size = (size_t)layout.size,
                                         .extent = (size_t)layout.extent,
                                         .data_end = (size_t)layout.span,
                                         .commutative = 1,
                                         .name = kernel_names[layout.index][index]};
            return SHMCOLL_OK;
        }
    }
    if (index >= 0 && !layout.predefined && !shmcoll_mpi_datatype_predefined(datatype)) {
        *reason = "a predefined op on a derived datatype";
        return SHMCOLL_ERR_NOT_SUPPORTED;
    }
    if (!layout.contiguous) {
        *reason = "non-contiguous datatype";
        return SHMCOLL_ERR_NOT_SUPPORTED;
    }
    int commutative = 1;
    if (index < 0 && PMPI_Op_commutative(op, &commutative) != MPI_SUCCESS) {
        *reason = "invalid op";
        return SHMCOLL_ERR_NOT_SUPPORTED;
    }
    *rop = (shmcoll_reduce_op_t){.kernel = NULL,
                                 .user_fn = reduce_local,
                                 .user_ctx = ctx,
                                 .size = (size_t)layout.size,
                                 .extent = (size_t)layout.extent,
                                 .data_end = (size_t)layout.span,
                                 .commutative = commutative,
                                 .name = index >= 0 ? op_names[index].name : "user-defined op"};
    return SHMCOLL_OK;
}

/* The layouts reductions take have no gaps (shmcoll_mpi_op_translate): the span is the data. */
size_t shmcoll_mpi_op_copy(void *dst, const void *src, size_t count,
                           const shmcoll_reduce_op_t *rop) {
    if (dst == src) return 0;
    size_t bytes = shmcoll_reduce_op_span(rop, count);
    memcpy(dst, src, bytes);
    return bytes;
}
