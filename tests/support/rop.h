/* The reduction ops of the reduce-scatter and scan team tests ("rop": reduction op under test): a
 * predefined kernel for a (type, op) pair, possibly declared non-commutative so that the
 * canonical-order path runs with a kernel, or one of two user ops (user_ops.h): the
 * non-commutative 2x2 matrix product and the commutative (sum, max) of int64.
 *
 * Every member can generate any member's input for any op, so a reference is folded locally in
 * rank order with the scalar oracle or the user function. Failures are described through
 * team_cases_fail. */
#ifndef SHMCOLL_TESTS_ROP_H
#define SHMCOLL_TESTS_ROP_H

#include "kernels/reduce_op.h"
#include "kernels/kernels.h"

#include <stddef.h>
#include <stdint.h>

typedef enum rop_kind { ROP_KERNEL, ROP_MAT2, ROP_SUMMAX } rop_kind_t;

typedef struct rop {
    rop_kind_t kind;
    shmcoll_dtype_t dtype; /* kernel ops */
    shmcoll_opcode_t opcode;
    int commutative; /* kernel ops: 0 forces the canonical-order path with a kernel */
} rop_t;

/* Entries of an op table: a kernel, the same kernel declared non-commutative, a user op. */
#define ROP_PAIR(dt, op)                                                                           \
    { ROP_KERNEL, SHMCOLL_DT_##dt, SHMCOLL_OP_##op, 1 }
#define ROP_PAIR_NC(dt, op)                                                                        \
    { ROP_KERNEL, SHMCOLL_DT_##dt, SHMCOLL_OP_##op, 0 }
#define ROP_USER(kind)                                                                             \
    { kind, SHMCOLL_DT_BYTE, SHMCOLL_OP_SUM, 0 }

/* The op to pass to the library; -1 when there is no kernel. */
int rop_make(const rop_t *r, shmcoll_reduce_op_t *op);

/* "SUM/INT32", "SUM/INT32 (as non-commutative)", "user 2x2 matrix product", ... */
void rop_name(const rop_t *r, char *text, size_t len);

size_t rop_extent(const rop_t *r);

/* A misalignment that keeps the element's own alignment. */
size_t rop_align(const rop_t *r);

/* Bytes from the first element to the last data byte of n elements. */
size_t rop_span(const rop_t *r, size_t n);

/* Elements [first, first + n) of `rank`'s input; 0 on success. */
int rop_fill(const rop_t *r, int rank, int p, uint64_t seed, size_t first, size_t n, void *out);

/* out = x(lo) op ... op x(hi) over elements [first, first + n), in rank order; hi >= lo. 0 on
 * success. */
int rop_reference(const rop_t *r, int p, uint64_t seed, int lo, int hi, size_t first, size_t n,
                  void *out);

/* Compares n result elements with the reference; describes the first wrong one. */
int rop_check(const rop_t *r, const void *got, const void *want, size_t n, const char *desc);

#endif
