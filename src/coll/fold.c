/* The ordered fold the tree and multi-radix reductions share. */
#include "coll/coll_internal.h"

/* Kernels and commutative ops fold from the left and may write over x[0] (in place at the
 * root); a non-commutative user function has the shape inout = in op inout, so it folds from the
 * right and out must differ from every operand. */
void shmcoll_coll_fold_ordered(shmcoll_task_t *task, const shmcoll_reduce_op_t *op,
                               const void *const *x, int m, void *out, size_t n) {
    if (m == 1) {
        coll_copy(task, out, x[0], shmcoll_reduce_op_span(op, n));
        return;
    }
    if (op->kernel || op->commutative) {
        coll_reduce(task, op, x[0], x[1], out, n);
        for (int j = 2; j < m; j++) coll_reduce(task, op, out, x[j], out, n);
        return;
    }
    const void *right = x[m - 1];
    for (int j = m - 2; j >= 0; j--) {
        coll_reduce(task, op, x[j], right, out, n);
        right = out;
    }
}
