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
#include "coll/coll.h"
#include "coll/coll_internal.h"
#include "patterns/knomial.h"

/* The tree as one member sees it, and where its walk through the steps of the tree stands (each
 * algorithm's state starts with it). Children are not listed: child c (in ascending relative
 * rank, the fold order of the reduction) is computed when needed (tree_child), so the view is a
 * few numbers whatever p and k, and lives in the task's state. */
typedef struct tree_view {
    int p, k, root; /* k clamped (clamp_radix) */
    int v;          /* this member's rank relative to the root */
    int parent;     /* -1 at the root */
    int depth;
    int nchildren;
    int height; /* of the whole tree */
    size_t i;   /* the step in hand, counted from 0 */
    int j;      /* the child waited for */
    uint64_t step;
} tree_view_t;

/* k >= p gives the same (flat) tree as k = p; clamping keeps the places small. */
static int clamp_radix(int p, int k) {
    return k > p ? (p > 2 ? p : 2) : k;
}

/* The children of v set one digit below its lowest non-zero one (every digit for the root) to
 * 1..k-1 (patterns/knomial.h). In ascending relative rank they are place by place from the
 * lowest, digit by digit, and once one lies beyond p so do all that follow: they are a prefix
 * of that sequence, child c at place k^(c / (k-1)) with digit c % (k-1) + 1. */
static void tree_view_init(tree_view_t *t, int p, int radix, int root, int rank) {
    const int k = clamp_radix(p, radix);
    t->p = p;
    t->k = k;
    t->root = root;
    t->v = (rank - root + p) % p;
    t->parent = shmcoll_pattern_knomial_parent(p, k, root, rank);
    t->depth = shmcoll_pattern_knomial_depth(p, k, root, rank);
    t->height = shmcoll_pattern_knomial_height(p, k);
    t->nchildren = 0;
    for (long long place = 1; place < p && (t->v == 0 || (t->v / place) % k == 0); place *= k)
        for (int d = 1; d < k && t->v + d * place < p; d++) t->nchildren++;
}

static int tree_child(const tree_view_t *t, int c) {
    long long place = 1;
    for (int i = 0; i < c / (t->k - 1); i++) place *= t->k;
    const long long v = t->v + (long long)(c % (t->k - 1) + 1) * place;
    return (int)((v + t->root) % t->p);
}

/* ---- Broadcast ------------------------------------------------------------------------------ */

typedef struct bcast_knomial {
    tree_view_t t;
    int use_inline;
    size_t piece, chunks;
} bcast_knomial_t;

static shmcoll_status_t bcast_knomial_init(shmcoll_task_t *task) {
    bcast_knomial_t *s = SHMCOLL_TASK_STATE(task, bcast_knomial_t);
    const int p = task->ch->size;
    const size_t bytes = task->args->count;
    if (task->params.radix < 2) return SHMCOLL_ERR_INVALID; /* a caller's error, as before */
    tree_view_init(&s->t, p, task->params.radix, task->args->root, task->ch->rank);
    s->use_inline = bytes <= SHMCOLL_INLINE_BYTES;
    s->piece = s->use_inline ? SHMCOLL_INLINE_BYTES : task->ch->chunk;
    s->chunks = coll_div_ceil(bytes, s->piece);
    if (p > 1) coll_declare_working_set(task, 2 * bytes, bytes); /* YHCCL Algorithm 3 */
    return SHMCOLL_OK;
}

static shmcoll_status_t bcast_knomial_progress(shmcoll_task_t *task) {
    bcast_knomial_t *s = SHMCOLL_TASK_STATE(task, bcast_knomial_t);
    shmcoll_channel_t *ch = task->ch;
    char *buf = task->args->recvbuf;
    tree_view_t *t = &s->t;
    const size_t bytes = task->args->count, depth = (size_t)t->depth;
    SHMCOLL_RESUME_BEGIN(&task->pc);
    if (t->p == 1) return SHMCOLL_OK;
    for (t->i = 0; t->i < s->chunks + (size_t)t->height; t->i++) {
        t->step = shmcoll_channel_next_step(ch);
        if (t->i >= depth && t->i - depth < s->chunks) {
            if (t->parent < 0) {
                SHMCOLL_AWAIT(
                    task, &task->pc,
                    shmcoll_channel_test_claim_slot(ch, t->step, s->use_inline, &task->wait));
                coll_copy(task, (void *)coll_slot(ch, ch->rank, t->step, s->use_inline),
                          buf + (t->i - depth) * s->piece,
                          coll_round_bytes(bytes, t->i - depth, s->piece));
                shmcoll_channel_post(ch, t->step);
            } else {
                SHMCOLL_AWAIT(task, &task->pc,
                              shmcoll_channel_test_post(ch, t->parent, t->step - 1, &task->wait));
                if (t->nchildren) {
                    SHMCOLL_AWAIT(
                        task, &task->pc,
                        shmcoll_channel_test_claim_slot(ch, t->step, s->use_inline, &task->wait));
                    void *mine = (void *)coll_slot(ch, ch->rank, t->step, s->use_inline);
                    const size_t n = coll_round_bytes(bytes, t->i - depth, s->piece);
                    coll_copy(task, mine, coll_slot(ch, t->parent, t->step - 1, s->use_inline), n);
                    shmcoll_channel_post(ch, t->step);
                    /* Done with the parent's slot: the copy out reads our own. */
                    shmcoll_channel_ack(ch, t->step - 1);
                    coll_copy_out(task, buf + (t->i - depth) * s->piece, mine, n);
                } else {
                    coll_copy_out(task, buf + (t->i - depth) * s->piece,
                                  coll_slot(ch, t->parent, t->step - 1, s->use_inline),
                                  coll_round_bytes(bytes, t->i - depth, s->piece));
                }
            }
        }
        shmcoll_channel_ack(ch, t->step - 1);
    }
    shmcoll_channel_ack(ch, t->step);
    SHMCOLL_RESUME_END(&task->pc);
}

const shmcoll_task_ops_t shmcoll_coll_bcast_knomial_ops = {.init = bcast_knomial_init,
                                                           .progress = bcast_knomial_progress};

/* ---- Reduction ------------------------------------------------------------------------------ */

typedef struct reduce_knomial {
    tree_view_t t;
    size_t per, chunks;
    size_t first; /* the step of this member's chunk 0 */
    int use_inline;
    int single; /* p = 1: the input is the result */
    int root, detour;
    int to_slot; /* this member folds into its slot: all but the tree root, which does only on
                    the detour, or in place with a user function that cannot write over its left
                    operand */
} reduce_knomial_t;

static shmcoll_status_t reduce_knomial_init(shmcoll_task_t *task) {
    reduce_knomial_t *s = SHMCOLL_TASK_STATE(task, reduce_knomial_t);
    const shmcoll_reduce_op_t *op = task->args->op;
    const size_t count = task->args->count;
    const int p = task->ch->size, root = coll_reduction_root(task);
    if (task->params.radix < 2) return SHMCOLL_ERR_INVALID; /* a caller's error, as before */
    if (root == COLL_ALL) return SHMCOLL_ERR_NOT_SUPPORTED; /* reduce only */
    const size_t span = shmcoll_reduce_op_span(op, count);
    s->use_inline = span <= SHMCOLL_INLINE_BYTES;
    s->per = s->use_inline ? count : task->ch->chunk / op->extent;
    if (s->per == 0) return SHMCOLL_ERR_NOT_SUPPORTED;
    s->single = p == 1;
    if (s->single) return SHMCOLL_OK;
    const int tree_root = op->commutative ? root : 0;
    tree_view_init(&s->t, p, task->params.radix, tree_root, task->ch->rank);
    s->chunks = coll_div_ceil(count, s->per);
    s->first = (size_t)(s->t.height - s->t.depth);
    s->root = root;
    s->detour = tree_root != root;
    s->to_slot =
        s->t.parent >= 0 || s->detour || (!task->args->sendbuf && !op->kernel && !op->commutative);
    coll_declare_working_set(task, 2 * span, span);
    return SHMCOLL_OK;
}

static shmcoll_status_t reduce_knomial_progress(shmcoll_task_t *task) {
    reduce_knomial_t *s = SHMCOLL_TASK_STATE(task, reduce_knomial_t);
    shmcoll_channel_t *ch = task->ch;
    const shmcoll_reduce_op_t *op = task->args->op;
    const size_t count = task->args->count;
    char *recvbuf = task->args->recvbuf;
    const char *input = coll_input(task);
    const int me = ch->rank;
    tree_view_t *t = &s->t;
    const size_t height = (size_t)t->height;
    SHMCOLL_RESUME_BEGIN(&task->pc);
    if (s->single) {
        coll_copy(task, recvbuf, input, shmcoll_reduce_op_span(op, count));
        return SHMCOLL_OK;
    }
    for (t->i = 0; t->i < s->chunks + height + (size_t)s->detour; t->i++) {
        t->step = shmcoll_channel_next_step(ch);
        /* The detour first: it reads the previous step, which the tree work below ends by
         * posting this one. */
        if (s->detour && me == s->root && t->i > height && t->i - height - 1 < s->chunks) {
            SHMCOLL_AWAIT(task, &task->pc,
                          shmcoll_channel_test_post(ch, t->root, t->step - 1, &task->wait));
            const size_t lo = (t->i - height - 1) * s->per;
            const size_t n = count - lo < s->per ? count - lo : s->per;
            coll_copy_out(task, recvbuf + lo * op->extent,
                          coll_slot(ch, t->root, t->step - 1, s->use_inline),
                          shmcoll_reduce_op_span(op, n));
        }
        /* This member's share of chunk i - first: fold its input with its children's partials
         * of the previous step. */
        if (t->i >= s->first && t->i - s->first < s->chunks) {
            for (t->j = 0; t->j < t->nchildren; t->j++)
                SHMCOLL_AWAIT(
                    task, &task->pc,
                    shmcoll_channel_test_post(ch, tree_child(t, t->j), t->step - 1, &task->wait));
            if (s->to_slot)
                SHMCOLL_AWAIT(
                    task, &task->pc,
                    shmcoll_channel_test_claim_slot(ch, t->step, s->use_inline, &task->wait));
            const size_t lo = (t->i - s->first) * s->per;
            const size_t n = count - lo < s->per ? count - lo : s->per;
            const void **x = task->lane->ptrs; /* nchildren + 1 <= p operands */
            x[0] = input + lo * op->extent;
            for (int j = 0; j < t->nchildren; j++)
                x[j + 1] = coll_slot(ch, tree_child(t, j), t->step - 1, s->use_inline);
            /* recvbuf only at the tree root: elsewhere it may be NULL */
            void *result = s->to_slot ? (void *)coll_slot(ch, me, t->step, s->use_inline)
                                      : recvbuf + lo * op->extent;
            shmcoll_coll_fold_ordered(task, op, x, t->nchildren + 1, result, n);
            if (s->to_slot) shmcoll_channel_post(ch, t->step);
            shmcoll_channel_ack(ch, t->step - 1);
            if (t->parent < 0 && s->to_slot && s->root == me)
                coll_copy_out(task, recvbuf + lo * op->extent, result,
                              shmcoll_reduce_op_span(op, n));
        }
        shmcoll_channel_ack(ch, t->step - 1);
    }
    shmcoll_channel_ack(ch, t->step);
    SHMCOLL_RESUME_END(&task->pc);
}

const shmcoll_task_ops_t shmcoll_coll_reduce_knomial_ops = {.init = reduce_knomial_init,
                                                            .progress = reduce_knomial_progress};

/* ---- Barrier -------------------------------------------------------------------------------- */

/* Its state is the tree view alone. */
static shmcoll_status_t barrier_knomial_init(shmcoll_task_t *task) {
    if (task->params.radix < 2) return SHMCOLL_ERR_INVALID; /* a caller's error, as before */
    tree_view_init(SHMCOLL_TASK_STATE(task, tree_view_t), task->ch->size, task->params.radix, 0,
                   task->ch->rank);
    return SHMCOLL_OK;
}

static shmcoll_status_t barrier_knomial_progress(shmcoll_task_t *task) {
    tree_view_t *t = SHMCOLL_TASK_STATE(task, tree_view_t);
    shmcoll_channel_t *ch = task->ch;
    const size_t arrival = (size_t)(t->height - t->depth), release = (size_t)(t->height + t->depth);
    SHMCOLL_RESUME_BEGIN(&task->pc);
    if (t->p == 1) return SHMCOLL_OK;
    for (t->i = 0; t->i <= 2 * (size_t)t->height; t->i++) {
        t->step = shmcoll_channel_next_step(ch);
        if (t->i == arrival) { /* arrival: the whole subtree is here */
            for (t->j = 0; t->j < t->nchildren; t->j++)
                SHMCOLL_AWAIT(
                    task, &task->pc,
                    shmcoll_channel_test_post(ch, tree_child(t, t->j), t->step - 1, &task->wait));
            shmcoll_channel_post(ch, t->step); /* at the root: the release */
        }
        if (t->parent >= 0 && t->i == release) { /* release */
            SHMCOLL_AWAIT(task, &task->pc,
                          shmcoll_channel_test_post(ch, t->parent, t->step - 1, &task->wait));
            if (t->nchildren) shmcoll_channel_post(ch, t->step);
        }
    }
    shmcoll_channel_ack(ch, t->step);
    SHMCOLL_RESUME_END(&task->pc);
}

const shmcoll_task_ops_t shmcoll_coll_barrier_knomial_ops = {.init = barrier_knomial_init,
                                                             .progress = barrier_knomial_progress};
