/* How a collective reduces: the element layout and the function that combines two vectors.
 *
 * Built by the caller (the MPI layer, or a test) once per call. Predefined (type, op) pairs use a
 * kernel from kernels/; anything else (user-defined ops, predefined ops on derived types) goes
 * through `user_fn`, which has MPI's in/inout shape. */
#ifndef SHMCOLL_KERNELS_REDUCE_OP_H
#define SHMCOLL_KERNELS_REDUCE_OP_H

#include "kernels/kernels.h"

#include <stddef.h>

/* inout[i] = in[i] op inout[i], i < n (the shape of an MPI user function). */
typedef void (*shmcoll_user_reduce_fn)(const void *in, void *inout, size_t n, void *ctx);

typedef struct shmcoll_reduce_op {
    shmcoll_reduce_fn kernel;       /* predefined kernel, or NULL to use user_fn */
    shmcoll_user_reduce_fn user_fn; /* used when kernel is NULL */
    void *user_ctx;
    size_t size;      /* bytes of data in one element */
    size_t extent;    /* bytes between consecutive elements (>= size) */
    size_t data_end;  /* offset past an element's last data byte (MPI's true extent; 0: size) */
    int commutative;  /* 0: the result must be x0 op x1 op ... op x(p-1), in rank order */
    const char *name; /* for messages, e.g. "MPI_SUM/MPI_DOUBLE" */
} shmcoll_reduce_op_t;

/* Bytes spanned by n elements: the last element ends at its last data byte, not its extent, so a
 * buffer of pair types is never touched past its final data byte. */
static inline size_t shmcoll_reduce_op_span(const shmcoll_reduce_op_t *op, size_t n) {
    return n ? (n - 1) * op->extent + (op->data_end ? op->data_end : op->size) : 0;
}

#endif
