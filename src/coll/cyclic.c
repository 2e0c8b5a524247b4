/* Multi-radix cyclic shift allreduce (Jocksch et al., section 2.2; Bruck and Ho without the
 * rotations): a reduce-scatter and an allgather for ANY team size, primes included, with per-step
 * radices whose product may exceed p (patterns/cyclic.h). Commutative ops only: a member's
 * partial results gather contributions in rotated order.
 *
 * The vector is processed in rounds of at most one buffer, cut into p blocks of whole cache
 * lines; a slot holds a round at its natural offsets. Member r's "window" is the blocks r, r+1,
 * ... (mod p), so it may wrap around the end of the vector (two element ranges). Per round,
 * 2n + 1 steps for n radices:
 *   step 0      member r copies its input into its slot except its own window of the first
 *               reduce-scatter step (it folds that straight from the input);
 *   step t      (reduce-scatter step j = n - t, stride S, radix F) member r folds its window
 *               of S blocks with the pieces of the members behind it, r - d*S for d < F, each
 *               covering the first min(S, p - d*S) blocks of the window, into its slot. After
 *               the last of these steps member r holds block r fully reduced;
 *   step n+1+j  (allgather step j) member r copies its window and the window prefixes of the
 *               members ahead, r + d*S, into its slot; the last step writes the receive buffer.
 * Each block is reduced by one member only, then copied, so results are bitwise identical
 * everywhere. In place works: the receive buffer is written last, after the input's last read.
 * Waits only for the peers whose (non-empty) data a member reads: F - 1 per step. As a task, the
 * driver of radix_run.c makes the waits, claims, posts and acks; the step functions here say whom
 * it waits for and do the copies and folds between them.
 *
 * DAV per round of s bytes (predefined kernels, size = extent; independent of the block cut),
 * with S_j the stride of step j and w_j = min(S_j, p):
 *     s [ 2(p - S_(n-1)) + 3(p-1) + 2 (w_1 + ... + w_(n-1) + p) + 2 sum_{j: F_j = 2} (S_j - c_j) ]
 *   copy in, the p-1 combinations of every element, the allgather's copies, and, when the product
 *   of the radices exceeds p and the shortened step has radix 2, a copy of the S_j - c_j blocks
 *   of the window that its one piece, c_j = min(S_j, p - S_j) blocks, does not cover (a radix
 *   above 2 still has a full piece to combine them with).
 *   {p}: s(7p-5); {2,2,2} for p = 8: 57s; {2,2,2} for p = 7: 2(3) + 18 + 2(2+4+7) + 2(1) = 52s;
 *   {4,4} for p = 13: 88s. */
#include "coll/radix_default.h"
#include "coll/coll.h"
#include "coll/coll_internal.h"
#include "coll/radix_run.h"
#include "patterns/cyclic.h"

/* The element ranges (at most two) of `count` blocks from block `first` on, mod p. */
typedef struct window {
    int nranges;
    size_t lo[2], hi[2];
} window_t;

static window_t window_of(const shmcoll_task_t *task, const coll_radix_run_t *cy, int first,
                          int count) {
    const int p = task->ch->size;
    const size_t per = cy->blocks.per, n = cy->blocks.n;
    window_t w = {.nranges = 0};
    first %= p;
    while (count > 0) {
        const int take = first + count <= p ? count : p - first;
        const size_t a = (size_t)first * per, z = (size_t)(first + take) * per;
        w.lo[w.nranges] = a < n ? a : n;
        w.hi[w.nranges] = z < n ? z : n;
        w.nranges++;
        count -= take;
        first = 0;
    }
    return w;
}

static int window_empty(const window_t *w) {
    for (int i = 0; i < w->nranges; i++)
        if (w->hi[i] > w->lo[i]) return 0;
    return 1;
}

static const char *at(const shmcoll_task_t *task, const void *base, size_t element) {
    return (const char *)base + element * task->args->op->extent;
}

static char *slot_of(const shmcoll_task_t *task, const coll_radix_run_t *cy, int r, uint64_t step) {
    return (char *)coll_slot(task->ch, r, step, cy->use_inline);
}

/* Copy a window between two buffers laid out as the round. */
static void copy_window(shmcoll_task_t *task, char *dst, const char *src, const window_t *w,
                        int out) {
    const shmcoll_reduce_op_t *op = task->args->op;
    for (int i = 0; i < w->nranges; i++) {
        if (w->hi[i] <= w->lo[i]) continue;
        const size_t offset = w->lo[i] * op->extent;
        const size_t bytes = shmcoll_reduce_op_span(op, w->hi[i] - w->lo[i]);
        if (out)
            coll_copy_out(task, dst + offset, src + offset, bytes);
        else
            coll_copy(task, dst + offset, src + offset, bytes);
    }
}

/* out = fold of the first m operand buffers over a window. */
static void fold_window(shmcoll_task_t *task, coll_radix_run_t *cy, int m, char *out,
                        const window_t *w) {
    const shmcoll_reduce_op_t *op = task->args->op;
    for (int i = 0; i < w->nranges; i++) {
        if (w->hi[i] <= w->lo[i]) continue;
        for (int k = 0; k < m; k++) cy->x[k] = at(task, cy->bases[k], w->lo[i]);
        shmcoll_coll_fold_ordered(task, op, cy->x, m, out + w->lo[i] * op->extent,
                                  w->hi[i] - w->lo[i]);
    }
}

/* Step 0: the input goes into the slot, except the window this member folds itself. */
static window_t published(const shmcoll_task_t *task, const coll_radix_run_t *cy) {
    const int p = task->ch->size, stride = shmcoll_pattern_cyclic_stride(&cy->f, cy->f.nsteps - 1);
    return window_of(task, cy, task->ch->rank + stride, p - stride);
}

static int publish_writes(shmcoll_task_t *task, coll_radix_run_t *cy) {
    const window_t w = published(task, cy);
    return !window_empty(&w);
}

static void publish(shmcoll_task_t *task, coll_radix_run_t *cy) {
    const window_t w = published(task, cy);
    copy_window(task, slot_of(task, cy, task->ch->rank, cy->step), cy->input, &w, 0);
}

/* Reduce-scatter step j, reading the step before: the window shrinks to S blocks. Operand d >= 1
 * is the piece of the member d*S behind, waited for when not empty. */
static int reduce_scatter_begin(shmcoll_task_t *task, coll_radix_run_t *cy) {
    const window_t all =
        window_of(task, cy, task->ch->rank, shmcoll_pattern_cyclic_stride(&cy->f, cy->j));
    return !window_empty(&all);
}

static int reduce_scatter_peer(shmcoll_task_t *task, coll_radix_run_t *cy, int d) {
    const int p = task->ch->size, me = task->ch->rank;
    if (d == 0) return -1;
    const window_t piece =
        window_of(task, cy, me, shmcoll_pattern_cyclic_count(p, &cy->f, cy->j, d));
    return window_empty(&piece) ? -1 : shmcoll_pattern_cyclic_behind(p, &cy->f, cy->j, d, me);
}

static void reduce_scatter(shmcoll_task_t *task, coll_radix_run_t *cy) {
    const int p = task->ch->size, me = task->ch->rank, j = cy->j, radix = cy->f.radix[j];
    const int stride = shmcoll_pattern_cyclic_stride(&cy->f, j);
    const int shortest = shmcoll_pattern_cyclic_count(p, &cy->f, j, radix - 1);
    const uint64_t step = cy->step;
    cy->bases[0] =
        j == cy->f.nsteps - 1 ? (const void *)cy->input : slot_of(task, cy, me, step - 1);
    for (int d = 1; d < radix; d++)
        cy->bases[d] =
            slot_of(task, cy, shmcoll_pattern_cyclic_behind(p, &cy->f, j, d, me), step - 1);
    char *out = slot_of(task, cy, me, step);
    /* Every piece covers the first `shortest` blocks; only the last may end there. */
    const window_t head = window_of(task, cy, me, shortest);
    fold_window(task, cy, radix, out, &head);
    if (shortest < stride) {
        const window_t tail = window_of(task, cy, me + shortest, stride - shortest);
        fold_window(task, cy, radix - 1, out, &tail);
    }
}

/* Allgather step j, reading the step before: the window grows to min(S F, p) blocks, from its
 * own S blocks (part 0) and the window prefixes of the members d*S ahead (parts d >= 1). The last
 * step fills recvbuf. */
static int allgather_begin(shmcoll_task_t *task, coll_radix_run_t *cy) {
    if (cy->last) return 0;
    const window_t grown = window_of(
        task, cy, task->ch->rank, shmcoll_pattern_cyclic_window(task->ch->size, &cy->f, cy->j + 1));
    return !window_empty(&grown);
}

/* Part d's window and the member it comes from. */
static window_t part(const shmcoll_task_t *task, const coll_radix_run_t *cy, int d, int *from) {
    const int p = task->ch->size, me = task->ch->rank;
    if (d == 0) {
        *from = me;
        return window_of(task, cy, me, shmcoll_pattern_cyclic_stride(&cy->f, cy->j));
    }
    *from = shmcoll_pattern_cyclic_ahead(p, &cy->f, cy->j, d, me);
    return window_of(task, cy, *from, shmcoll_pattern_cyclic_count(p, &cy->f, cy->j, d));
}

static int allgather_peer(shmcoll_task_t *task, coll_radix_run_t *cy, int d) {
    int from;
    const window_t w = part(task, cy, d, &from);
    return d == 0 || !window_empty(&w) ? from : -1;
}

static void allgather_copy(shmcoll_task_t *task, coll_radix_run_t *cy, int d) {
    int from;
    const window_t w = part(task, cy, d, &from);
    char *target = cy->last ? cy->recvbuf : slot_of(task, cy, task->ch->rank, cy->step);
    copy_window(task, target, slot_of(task, cy, from, cy->step - 1), &w, cy->last);
}

static const coll_radix_steps_t cyclic_steps = COLL_RADIX_STEPS(SHMCOLL_COLL_RADIX_CYCLIC, 1);

/* params.factors, or the default factorisation of the team size (radix_run.h). NOT_SUPPORTED for
 * an op that does not commute: before the default factorisation is looked up, after a given one
 * is checked (INVALID first). */
static shmcoll_status_t cyclic_init(shmcoll_task_t *task) {
    const int commutative = task->args->op->commutative;
    if (!commutative && !task->params.factors) return SHMCOLL_ERR_NOT_SUPPORTED;
    SHMCOLL_CHECK(shmcoll_coll_radix_init(task, &cyclic_steps));
    return commutative ? SHMCOLL_OK : SHMCOLL_ERR_NOT_SUPPORTED;
}

const shmcoll_task_ops_t shmcoll_coll_allreduce_cyclic_ops = {
    .init = cyclic_init, .progress = shmcoll_coll_radix_progress};
