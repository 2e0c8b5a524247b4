/* User reduction functions of the team tests, for what the predefined kernels cannot show:
 *  - the product of 2x2 integer-valued matrices (4 doubles): not commutative, so any order of the
 *    factors but the canonical one gives a different matrix;
 *  - (sum, max) of 64-bit integers: commutative, through the user-function paths;
 *  - the sum of three int32 followed by 4 bytes of padding the function never touches (size 12,
 *    extent 16).
 * Each has MPI's user-function shape: inout[i] = in[i] op inout[i], `in` being the left operand
 * (the lower ranks); the context is unused. */
#ifndef SHMCOLL_TESTS_USER_OPS_H
#define SHMCOLL_TESTS_USER_OPS_H

#include <stddef.h>
#include <stdint.h>

typedef struct mat2 {
    double a, b, c, d; /* [[a b] [c d]] */
} mat2_t;

/* l x r. */
mat2_t user_ops_mat2_mul(const mat2_t *l, const mat2_t *r);

void user_ops_mat2_product(const void *in, void *inout, size_t n, void *ctx);

/* Element i of `rank`'s input in the tree tests: one of six shears, signed permutations and
 * reflections, so every product over up to 64 ranks is exact whatever the association. */
mat2_t user_ops_mat2_input(int rank, size_t i, uint64_t seed);

typedef struct summax {
    int64_t sum, max;
} summax_t;

void user_ops_summax(const void *in, void *inout, size_t n, void *ctx);

void user_ops_int3_sum(const void *in, void *inout, size_t n, void *ctx);

#endif
