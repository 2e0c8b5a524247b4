/* k-nomial trees over the step protocol: broadcast, reduction and barrier (sharm's k-nomial
 * reduce; the tree algorithm of Jocksch et al., section 2.3). The tree is patterns/knomial.h:
 * ranks relative to the root written in base k, a member's children set one digit below its
 * lowest non-zero digit. In shared memory all children of a member read its slot at once, so what
 * costs time is the depth of the tree (the most non-zero digits, the "height" below), not the
 * number of children: k trades hops (small k) against readers per slot (large k; k >= p is
 * the flat tree).
 *
 * Broadcast. The message moves in chunks (a buffer each, or the 64-byte inline area of the post
 * flag for tiny messages). A member at depth l handles chunk c in step c + l: it waits for its
 * parent's post of the previous step, copies the parent's slot into its own slot when it has
 * children and posts, then copies its slot out into its buffer; a leaf copies the parent's slot
 * straight out. Successive chunks occupy successive tree levels at once, so for long messages
 * every level copies concurrently, and two parities let a parent fill chunk c+1 while its
 * children read chunk c. Steps: chunks + height. Synchronisation: one wait per chunk per member
 * (its parent), one claim per chunk per inner member.
 *   DAV (s bytes, p > 1): 2s(p + I), I the number of members other than the root that have
 *   children: the root copies in once, every other member copies out once, inner members also
 *   copy into their own slot. Binary tree, p a power of two: s(3p - 2).
 *
 * Reduction. The same schedule reversed: a member at depth l handles chunk c in step
 * c + height - l, when its children (depth l+1) have posted their partial results of the previous
 * step. It folds its own input with the children's partials into its slot (the tree root: into
 * the receive buffer) and posts; a leaf copies its input into its slot. A member's subtree is the
 * contiguous relative rank range [v, v + k^i), and its children's subtrees follow it in order, so
 * folding x_v, then the children in ascending relative rank, yields the canonical order over the
 * subtree. Relative ranks are canonical only when the tree is rooted at rank 0: non-commutative
 * ops therefore reduce over the tree rooted at 0, and rank 0 posts the result for the real root,
 * which copies it out one step later ("detour"). Steps: chunks + height (+1 with the detour).
 *   DAV (s bytes, predefined kernels): 3s(p-1) + 2sL, L the number of leaves (each contribution
 *   is combined once, each leaf copies its input in), + 2s with the detour. Binary tree, p a
 *   power of two: s(4p - 3). User functions of non-commutative ops add a copy per fold (their
 *   in/inout shape needs the right operand in the output).
 *
 * Barrier. Arrival flows up (a member posts once its children have posted), release flows down
 * (a member posts once its parent has posted the release); the root's single post is both.
 * Flags only, no claims. Steps: 2 height + 1; synchronisation: each member waits for its children
 * and for its parent. */
#include "coll/algos_tree.h"
#include "coll/coll_internal.h"
#include "patterns/knomial.h"

#include <stdlib.h>

#define STACK_CHILDREN 64

int shmcoll_coll_knomial_height(int p, int k) {
    /* Walk the digits of p-1 from the top: either keep the top digit (one more non-zero digit
     * above, go on with the rest) or lower it by one, after which every digit below may be k-1. */
    int best = 0, above = 0;
    long long n = (long long)p - 1;
    while (n > 0) {
        long long place = 1;
        int below = 0;
        while (place * k <= n) place *= k, below++;
        const long long top = n / place;
        const int lowered = above + (top > 1) + below;
        if (lowered > best) best = lowered;
        above++;
        n %= place;
    }
    return above > best ? above : best;
}

/* The tree as one member sees it. */
typedef struct tree_view {
    int parent; /* -1 at the root */
    int depth;
    int nchildren;
    int *children;         /* in ascending relative rank (the fold order of the reduction) */
    const void **operands; /* nchildren + 1 entries for the reduction's fold */
    int stack[STACK_CHILDREN];
    const void *stack_operands[STACK_CHILDREN + 1];
} tree_view_t;

static int relative(int p, int root, int rank) {
    return (rank - root + p) % p;
}

static shmcoll_status_t tree_view_init(tree_view_t *t, int p, int k, int root, int rank) {
    t->parent = shmcoll_pattern_knomial_parent(p, k, root, rank);
    t->depth = shmcoll_pattern_knomial_depth(p, k, root, rank);
    const int most = shmcoll_pattern_knomial_max_children(p, k);
    t->children = t->stack;
    t->operands = t->stack_operands;
    if (most > STACK_CHILDREN) {
        t->children = malloc((size_t)most * sizeof(int));
        t->operands = malloc((size_t)(most + 1) * sizeof(void *));
        if (!t->children || !t->operands) {
            free(t->children);
            free(t->operands);
            return SHMCOLL_ERR_NO_MEMORY;
        }
    }
    t->nchildren = shmcoll_pattern_knomial_children(p, k, root, rank, t->children);
    /* The pattern lists the largest subtree first; the fold wants ascending relative ranks. */
    for (int i = 1; i < t->nchildren; i++)
        for (int j = i;
             j > 0 && relative(p, root, t->children[j]) < relative(p, root, t->children[j - 1]);
             j--) {
            int swap = t->children[j];
            t->children[j] = t->children[j - 1];
            t->children[j - 1] = swap;
        }
    return SHMCOLL_OK;
}

static void tree_view_fini(tree_view_t *t) {
    if (t->children != t->stack) free(t->children);
    if (t->operands != t->stack_operands) free(t->operands);
}

/* k >= p gives the same (flat) tree as k = p; clamping keeps the child arrays small. */
static int clamp_radix(int p, int k) {
    return k > p ? (p > 2 ? p : 2) : k;
}

/* ---- Broadcast ------------------------------------------------------------------------------ */

static shmcoll_status_t bcast_steps(shmcoll_team_t *team, char *buf, size_t bytes,
                                    const tree_view_t *t, size_t height) {
    shmcoll_channel_t *ch = &team->channel;
    const int me = ch->rank;
    const int use_inline = bytes <= SHMCOLL_INLINE_BYTES;
    const size_t piece = use_inline ? SHMCOLL_INLINE_BYTES : ch->chunk;
    const size_t chunks = coll_div_ceil(bytes, piece), depth = (size_t)t->depth;
    coll_declare_working_set(team, 2 * bytes, bytes); /* YHCCL Algorithm 3 */
    uint64_t step = ch->step;
    for (size_t i = 0; i < chunks + height; i++) {
        step = shmcoll_channel_next_step(ch);
        if (i >= depth && i - depth < chunks) {
            const size_t offset = (i - depth) * piece;
            const size_t n = coll_round_bytes(bytes, i - depth, piece);
            void *mine = (void *)coll_slot(ch, me, step, use_inline);
            if (t->parent < 0) {
                SHMCOLL_CHECK(shmcoll_channel_claim(ch, step));
                coll_copy(team, mine, buf + offset, n);
                shmcoll_channel_post(ch, step);
            } else {
                SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, t->parent, step - 1));
                const void *from = coll_slot(ch, t->parent, step - 1, use_inline);
                if (t->nchildren) {
                    SHMCOLL_CHECK(shmcoll_channel_claim(ch, step));
                    coll_copy(team, mine, from, n);
                    shmcoll_channel_post(ch, step);
                    /* Done with the parent's slot: the copy out reads our own. */
                    shmcoll_channel_ack(ch, step - 1);
                    from = mine;
                }
                coll_copy_out(team, buf + offset, from, n);
            }
        }
        shmcoll_channel_ack(ch, step - 1);
    }
    shmcoll_channel_ack(ch, step);
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_coll_bcast_knomial(shmcoll_team_t *team, void *buf, size_t bytes, int root,
                                            int k) {
    const int p = team->size;
    if (root < 0 || root >= p || k < 2) return SHMCOLL_ERR_INVALID;
    if (p == 1 || bytes == 0) return SHMCOLL_OK;
    k = clamp_radix(p, k);
    tree_view_t t;
    SHMCOLL_CHECK(tree_view_init(&t, p, k, root, team->rank));
    shmcoll_status_t status =
        bcast_steps(team, buf, bytes, &t, (size_t)shmcoll_coll_knomial_height(p, k));
    tree_view_fini(&t);
    return status;
}

/* ---- Reduction ------------------------------------------------------------------------------ */

/* out = x[0] op x[1] op ... op x[m-1] over n elements, m >= 1, in this order. Kernels and
 * commutative ops fold from the left and may write over x[0] (in place at the root); a
 * non-commutative user function has the shape inout = in op inout, so it folds from the right
 * and out must differ from every operand. */
void shmcoll_coll_fold_ordered(shmcoll_team_t *team, const shmcoll_reduce_op_t *op,
                               const void *const *x, int m, void *out, size_t n) {
    if (m == 1) {
        coll_copy(team, out, x[0], shmcoll_reduce_op_span(op, n));
        return;
    }
    if (op->kernel || op->commutative) {
        coll_reduce(team, op, x[0], x[1], out, n);
        for (int j = 2; j < m; j++) coll_reduce(team, op, out, x[j], out, n);
        return;
    }
    const void *right = x[m - 1];
    for (int j = m - 2; j >= 0; j--) {
        coll_reduce(team, op, x[j], right, out, n);
        right = out;
    }
}

typedef struct reduce_plan {
    const shmcoll_reduce_op_t *op;
    const char *input;
    char *recvbuf;
    size_t count, per, chunks, height;
    int use_inline;
    int root, tree_root;
    int in_slot; /* the tree root folds into its slot (detour, or in place with a user function
                    that cannot write over its left operand) */
} reduce_plan_t;

/* This member's share of chunk c in the step `step`: fold its input with its children's
 * partials of the previous step. */
static shmcoll_status_t reduce_chunk(shmcoll_team_t *team, const reduce_plan_t *r,
                                     const tree_view_t *t, size_t c, uint64_t step) {
    shmcoll_channel_t *ch = &team->channel;
    const shmcoll_reduce_op_t *op = r->op;
    const size_t lo = c * r->per, n = r->count - lo < r->per ? r->count - lo : r->per;
    const void **x = t->operands;
    x[0] = r->input + lo * op->extent;
    for (int j = 0; j < t->nchildren; j++) {
        SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, t->children[j], step - 1));
        x[j + 1] = coll_slot(ch, t->children[j], step - 1, r->use_inline);
    }
    const int is_root = t->parent < 0, to_slot = !is_root || r->in_slot;
    void *result; /* recvbuf only at the root: elsewhere it may be NULL */
    if (to_slot) {
        SHMCOLL_CHECK(shmcoll_channel_claim(ch, step));
        result = (void *)coll_slot(ch, ch->rank, step, r->use_inline);
    } else {
        result = r->recvbuf + lo * op->extent;
    }
    shmcoll_coll_fold_ordered(team, op, x, t->nchildren + 1, result, n);
    if (to_slot) shmcoll_channel_post(ch, step);
    shmcoll_channel_ack(ch, step - 1);
    if (is_root && to_slot && r->root == ch->rank)
        coll_copy_out(team, r->recvbuf + lo * op->extent, result, shmcoll_reduce_op_span(op, n));
    return SHMCOLL_OK;
}

static shmcoll_status_t reduce_steps(shmcoll_team_t *team, const reduce_plan_t *r,
                                     const tree_view_t *t) {
    shmcoll_channel_t *ch = &team->channel;
    const int detour = r->tree_root != r->root, me = ch->rank;
    const size_t first = r->height - (size_t)t->depth; /* the step of this member's chunk 0 */
    uint64_t step = ch->step;
    for (size_t i = 0; i < r->chunks + r->height + (size_t)detour; i++) {
        step = shmcoll_channel_next_step(ch);
        /* The detour first: it reads the previous step, which the tree work below ends by
         * posting this one. */
        if (detour && me == r->root && i > r->height && i - r->height - 1 < r->chunks) {
            const size_t lo = (i - r->height - 1) * r->per;
            const size_t n = r->count - lo < r->per ? r->count - lo : r->per;
            SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, r->tree_root, step - 1));
            coll_copy_out(team, r->recvbuf + lo * r->op->extent,
                          coll_slot(ch, r->tree_root, step - 1, r->use_inline),
                          shmcoll_reduce_op_span(r->op, n));
        }
        if (i >= first && i - first < r->chunks)
            SHMCOLL_CHECK(reduce_chunk(team, r, t, i - first, step));
        shmcoll_channel_ack(ch, step - 1);
    }
    shmcoll_channel_ack(ch, step);
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_coll_reduce_knomial(shmcoll_team_t *team, const void *sendbuf,
                                             void *recvbuf, size_t count,
                                             const shmcoll_reduce_op_t *op, int root, int k) {
    shmcoll_channel_t *ch = &team->channel;
    const int p = team->size, me = team->rank;
    if (root < 0 || root >= p || k < 2) return SHMCOLL_ERR_INVALID;
    if (count == 0) return SHMCOLL_OK;
    if (op->size == 0 || op->extent < op->size || (!op->kernel && !op->user_fn))
        return SHMCOLL_ERR_NOT_SUPPORTED;
    const size_t span = shmcoll_reduce_op_span(op, count);
    const int use_inline = span <= SHMCOLL_INLINE_BYTES;
    const size_t per = use_inline ? count : ch->chunk / op->extent;
    if (per == 0) return SHMCOLL_ERR_NOT_SUPPORTED;
    const void *input = sendbuf ? sendbuf : recvbuf;
    if (p == 1) {
        coll_copy(team, recvbuf, input, span);
        return SHMCOLL_OK;
    }
    k = clamp_radix(p, k);
    const int tree_root = op->commutative ? root : 0;
    const reduce_plan_t r = {
        .op = op,
        .input = input,
        .recvbuf = recvbuf,
        .count = count,
        .per = per,
        .chunks = coll_div_ceil(count, per),
        .height = (size_t)shmcoll_coll_knomial_height(p, k),
        .use_inline = use_inline,
        .root = root,
        .tree_root = tree_root,
        .in_slot = tree_root != root || (!sendbuf && !op->kernel && !op->commutative),
    };
    coll_declare_working_set(team, 2 * span, span);
    tree_view_t t;
    SHMCOLL_CHECK(tree_view_init(&t, p, k, tree_root, me));
    shmcoll_status_t status = reduce_steps(team, &r, &t);
    tree_view_fini(&t);
    return status;
}

/* ---- Barrier -------------------------------------------------------------------------------- */

shmcoll_status_t shmcoll_coll_barrier_knomial(shmcoll_team_t *team, int k) {
    shmcoll_channel_t *ch = &team->channel;
    const int p = team->size;
    if (k < 2) return SHMCOLL_ERR_INVALID;
    if (p == 1) return SHMCOLL_OK;
    k = clamp_radix(p, k);
    tree_view_t t;
    SHMCOLL_CHECK(tree_view_init(&t, p, k, 0, team->rank));
    const int height = shmcoll_coll_knomial_height(p, k);
    shmcoll_status_t status = SHMCOLL_OK;
    uint64_t step = ch->step;
    for (int i = 0; i <= 2 * height; i++) {
        step = shmcoll_channel_next_step(ch);
        if (i == height - t.depth) { /* arrival: the whole subtree is here */
            for (int j = 0; j < t.nchildren; j++)
                SHMCOLL_CHECK_GOTO(shmcoll_channel_wait_post(ch, t.children[j], step - 1), status,
                                   out);
            shmcoll_channel_post(ch, step); /* at the root: the release */
        }
        if (t.parent >= 0 && i == height + t.depth) { /* release */
            SHMCOLL_CHECK_GOTO(shmcoll_channel_wait_post(ch, t.parent, step - 1), status, out);
            if (t.nchildren) shmcoll_channel_post(ch, step);
        }
    }
    shmcoll_channel_ack(ch, step);
out:
    tree_view_fini(&t);
    return status;
}
