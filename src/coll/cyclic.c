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
 * Waits only for the peers whose (non-empty) data a member reads: F - 1 per step.
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
#include "coll/algos_tree.h"
#include "coll/coll_internal.h"
#include "coll/radix_run.h"
#include "patterns/cyclic.h"

/* The element ranges (at most two) of `count` blocks from block `first` on, mod p. */
typedef struct window {
    int nranges;
    size_t lo[2], hi[2];
} window_t;

static window_t window_of(const coll_radix_run_t *cy, int first, int count) {
    const int p = cy->team->size;
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

static const char *at(const coll_radix_run_t *cy, const void *base, size_t element) {
    return (const char *)base + element * cy->op->extent;
}

static char *slot_of(const coll_radix_run_t *cy, int r, uint64_t step) {
    return (char *)coll_slot(&cy->team->channel, r, step, cy->use_inline);
}

/* Copy a window between two buffers laid out as the round. */
static void copy_window(const coll_radix_run_t *cy, char *dst, const char *src, const window_t *w,
                        int out) {
    for (int i = 0; i < w->nranges; i++) {
        if (w->hi[i] <= w->lo[i]) continue;
        const size_t offset = w->lo[i] * cy->op->extent;
        const size_t bytes = shmcoll_reduce_op_span(cy->op, w->hi[i] - w->lo[i]);
        if (out)
            coll_copy_out(cy->team, dst + offset, src + offset, bytes);
        else
            coll_copy(cy->team, dst + offset, src + offset, bytes);
    }
}

/* out = fold of the first m operand buffers over a window. */
static void fold_window(coll_radix_run_t *cy, int m, char *out, const window_t *w) {
    for (int i = 0; i < w->nranges; i++) {
        if (w->hi[i] <= w->lo[i]) continue;
        for (int k = 0; k < m; k++) cy->x[k] = at(cy, cy->bases[k], w->lo[i]);
        shmcoll_coll_fold_ordered(cy->team, cy->op, cy->x, m, out + w->lo[i] * cy->op->extent,
                                  w->hi[i] - w->lo[i]);
    }
}

/* Step 0: the input goes into the slot, except the window this member folds itself. */
static shmcoll_status_t publish_input(coll_radix_run_t *cy, const char *input, uint64_t step) {
    shmcoll_channel_t *ch = &cy->team->channel;
    const int p = ch->size, stride = shmcoll_pattern_cyclic_stride(cy->f, cy->f->nsteps - 1);
    const window_t w = window_of(cy, ch->rank + stride, p - stride);
    if (!window_empty(&w)) {
        SHMCOLL_CHECK(shmcoll_channel_claim(ch, step));
        copy_window(cy, slot_of(cy, ch->rank, step), input, &w, 0);
    }
    shmcoll_channel_post(ch, step);
    return SHMCOLL_OK;
}

/* Reduce-scatter step j, reading the step before `step`: the window shrinks to S blocks. */
static shmcoll_status_t reduce_scatter_step(coll_radix_run_t *cy, int j, uint64_t step,
                                            const char *input) {
    shmcoll_channel_t *ch = &cy->team->channel;
    const int p = ch->size, me = ch->rank, radix = cy->f->radix[j];
    const int stride = shmcoll_pattern_cyclic_stride(cy->f, j);
    const int shortest = shmcoll_pattern_cyclic_count(p, cy->f, j, radix - 1);
    const window_t all = window_of(cy, me, stride);
    if (!window_empty(&all)) {
        cy->bases[0] = j == cy->f->nsteps - 1 ? (const void *)input : slot_of(cy, me, step - 1);
        for (int d = 1; d < radix; d++) {
            const int behind = shmcoll_pattern_cyclic_behind(p, cy->f, j, d, me);
            const window_t piece = window_of(cy, me, shmcoll_pattern_cyclic_count(p, cy->f, j, d));
            if (!window_empty(&piece))
                SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, behind, step - 1));
            cy->bases[d] = slot_of(cy, behind, step - 1);
        }
        SHMCOLL_CHECK(shmcoll_channel_claim(ch, step));
        char *out = slot_of(cy, me, step);
        /* Every piece covers the first `shortest` blocks; only the last may end there. */
        const window_t head = window_of(cy, me, shortest);
        fold_window(cy, radix, out, &head);
        if (shortest < stride) {
            const window_t tail = window_of(cy, me + shortest, stride - shortest);
            fold_window(cy, radix - 1, out, &tail);
        }
    }
    shmcoll_channel_post(ch, step);
    shmcoll_channel_ack(ch, step - 1);
    return SHMCOLL_OK;
}

/* Allgather step j, reading the step before `step`: the window grows to min(S F, p) blocks. The
 * last step fills recvbuf. */
static shmcoll_status_t allgather_step(coll_radix_run_t *cy, int j, uint64_t step, char *recvbuf) {
    shmcoll_channel_t *ch = &cy->team->channel;
    const int p = ch->size, me = ch->rank, radix = cy->f->radix[j];
    const int last = j == cy->f->nsteps - 1, stride = shmcoll_pattern_cyclic_stride(cy->f, j);
    char *target = recvbuf;
    if (!last) {
        const window_t grown = window_of(cy, me, shmcoll_pattern_cyclic_window(p, cy->f, j + 1));
        if (!window_empty(&grown)) SHMCOLL_CHECK(shmcoll_channel_claim(ch, step));
        target = slot_of(cy, me, step);
    }
    const window_t own = window_of(cy, me, stride);
    copy_window(cy, target, slot_of(cy, me, step - 1), &own, last);
    for (int d = 1; d < radix; d++) {
        const int ahead = shmcoll_pattern_cyclic_ahead(p, cy->f, j, d, me);
        const window_t piece = window_of(cy, ahead, shmcoll_pattern_cyclic_count(p, cy->f, j, d));
        if (window_empty(&piece)) continue;
        SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, ahead, step - 1));
        copy_window(cy, target, slot_of(cy, ahead, step - 1), &piece, last);
    }
    if (!last) shmcoll_channel_post(ch, step);
    shmcoll_channel_ack(ch, step - 1);
    return SHMCOLL_OK;
}

static shmcoll_status_t cyclic_round(coll_radix_run_t *cy, const char *input, char *recvbuf,
                                     size_t n) {
    shmcoll_channel_t *ch = &cy->team->channel;
    const int nsteps = cy->f->nsteps;
    cy->blocks = coll_blocks_equal(cy->op, n, ch->size);
    uint64_t step = shmcoll_channel_next_step(ch);
    SHMCOLL_CHECK(publish_input(cy, input, step));
    for (int j = nsteps - 1; j >= 0; j--) {
        step = shmcoll_channel_next_step(ch);
        SHMCOLL_CHECK(reduce_scatter_step(cy, j, step, input));
    }
    for (int j = 0; j < nsteps; j++) {
        step = shmcoll_channel_next_step(ch);
        SHMCOLL_CHECK(allgather_step(cy, j, step, recvbuf));
    }
    shmcoll_channel_ack(ch, step);
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_coll_allreduce_cyclic_radix(shmcoll_team_t *team, const void *sendbuf,
                                                     void *recvbuf, size_t count,
                                                     const shmcoll_reduce_op_t *op,
                                                     const shmcoll_pattern_radix_t *f) {
    if (shmcoll_pattern_cyclic_check(team->size, f) != SHMCOLL_OK) return SHMCOLL_ERR_INVALID;
    if (!op->commutative) return SHMCOLL_ERR_NOT_SUPPORTED;
    return shmcoll_coll_radix_run(team, sendbuf, recvbuf, count, op, f, cyclic_round);
}

shmcoll_status_t shmcoll_coll_allreduce_cyclic(shmcoll_team_t *team, const void *sendbuf,
                                               void *recvbuf, size_t count,
                                               const shmcoll_reduce_op_t *op) {
    if (!op->commutative) return SHMCOLL_ERR_NOT_SUPPORTED;
    shmcoll_pattern_radix_t f;
    SHMCOLL_CHECK(shmcoll_coll_radix_default(SHMCOLL_COLL_RADIX_CYCLIC, team->size, &f));
    return shmcoll_coll_allreduce_cyclic_radix(team, sendbuf, recvbuf, count, op, &f);
}
