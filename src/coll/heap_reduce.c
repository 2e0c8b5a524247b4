/* Reductions over shared heaps: every member reduces its block straight from all members' input
 * buffers, where they lie; nothing is copied in.
 *
 * The vector is cut into p blocks (reduce_scatter: the members' blocks; reduce and allreduce:
 * equal blocks on cache-line boundaries). Member j folds block j of the p inputs in rank order
 * (x(p-2) op x(p-1) first, then x(r) op acc: the canonical order MPI requires of
 * non-commutative ops, and one fixed order per element, so allreduce's results are bitwise
 * identical everywhere), piece by piece through its slot (two halves: the running result and,
 * where a peer's input cannot be mapped, a bounce buffer), the last fold writing straight to
 * the destination:
 *   reduce_scatter  into its own receive buffer                  DAV 3s(p-1)
 *   reduce          into block j of the root's receive buffer    DAV 3s(p-1)
 *   allreduce       into block j of its own receive buffer, then it reads every other block
 *                   from its owner's receive buffer as soon as that owner posts it
 *                                                                DAV 3s(p-1) + 2s(p-1) = s(5p-5)
 * against the movement-avoiding chain's s(3p-1), s(3p+1) and s(5p-1) (coll/reduce_ma.c), which
 * must copy every slice into shared memory before anyone can read it. At p = 2 that is 5s
 * against 9s for allreduce.
 *
 * Steps: the agreement, then a second step the member claims for its slot (free at once: every
 * member posted the agreement) and posts once its block is reduced. Reduce and reduce_scatter
 * end when every member has posted it (nobody reads an input any more), acknowledging it for the
 * claims of later steps; allreduce members read the other blocks after their owners' posts,
 * acknowledge, and wait for all acknowledgements (their receive buffers are read until then). In
 * place, member j writes only block j of its buffer before the second step, which only j itself
 * reads, and block q only after member q posted (q has read member j's block q then). */
#include "coll/heap_internal.h"

/* Where member j's block goes: this member's own memory, or (reduce) the root's buffer at `at`. */
typedef struct destination {
    char *local;
    int root;
    size_t at;
} destination_t;

/* The last fold of a piece: out = a op b, where out may be a (in place) and b the running
 * result in `acc`. A user function has the shape inout = in op inout only, so a
 * non-commutative one with out == a folds into acc first and copies. */
static void fold_last(shmcoll_task_t *task, const void *a, const void *b, void *out, char *acc,
                      size_t n) {
    const shmcoll_reduce_op_t *op = task->args->op;
    if (out == a && !op->kernel && !op->commutative) {
        coll_reduce(task, op, a, b, acc, n);
        coll_copy(task, out, acc, shmcoll_reduce_op_span(op, n));
        return;
    }
    coll_reduce(task, op, a, b, out, n);
}

/* Folds elements [first, first + len) of the p inputs into `dst`. */
static shmcoll_status_t fold_block(shmcoll_task_t *task, size_t first, size_t len,
                                   const destination_t *dst) {
    const shmcoll_reduce_op_t *op = task->args->op;
    const int p = task->ch->size;
    const size_t ext = op->extent, half = task->ch->chunk / 2 / 64 * 64;
    char *acc = shmcoll_channel_buffer(task->ch, task->ch->rank, coll_heap_state(task)->step2);
    char *bounce = acc + half;
    const size_t piece = half / ext;
    char *remote = dst->local ? NULL : coll_heap_view(task, dst->root, COLL_HEAP_RECV);
    for (size_t o = 0; o < len; o += piece) {
        const size_t n = len - o < piece ? len - o : piece, at = (first + o) * ext;
        const size_t span = shmcoll_reduce_op_span(op, n);
        char *out = dst->local ? dst->local + o * ext : remote ? remote + dst->at + o * ext : acc;
        const void *a, *b;
        SHMCOLL_CHECK(coll_heap_read(task, p - 1, COLL_HEAP_INPUT, at, span, acc, &b));
        for (int r = p - 2; r > 0; r--) {
            SHMCOLL_CHECK(coll_heap_read(task, r, COLL_HEAP_INPUT, at, span, bounce, &a));
            coll_reduce(task, op, a, b, acc, n);
            b = acc;
        }
        SHMCOLL_CHECK(coll_heap_read(task, 0, COLL_HEAP_INPUT, at, span, bounce, &a));
        fold_last(task, a, b, out, acc, n);
        if (out == acc) /* the root's buffer is not mapped here */
            SHMCOLL_CHECK(
                coll_heap_push(task, dst->root, COLL_HEAP_RECV, dst->at + o * ext, acc, span));
    }
    return SHMCOLL_OK;
}

/* This member's block and where it goes. */
static shmcoll_status_t fold_mine(shmcoll_task_t *task) {
    const shmcoll_coll_args_t *a = task->args;
    const int me = task->ch->rank;
    const coll_blocks_t blocks = coll_task_blocks(task);
    size_t first, len;
    coll_block_at(&blocks, me, &first, &len);
    if (!len) return SHMCOLL_OK;
    const size_t ext = a->op->extent;
    destination_t dst = {.local = (char *)a->recvbuf + first * ext};
    if (coll_scatters(task)) dst.local = a->recvbuf;
    if (a->kind == SHMCOLL_KIND_REDUCE && me != a->root)
        dst = (destination_t){.root = a->root, .at = first * ext};
    return fold_block(task, first, len, &dst);
}

shmcoll_status_t coll_heap_reduce(shmcoll_task_t *task) {
    coll_heap_t *h = coll_heap_state(task);
    shmcoll_channel_t *ch = task->ch;
    const int me = ch->rank, p = ch->size;
    SHMCOLL_RESUME_BEGIN(&h->bpc);
    h->step2 = shmcoll_channel_next_step(ch);
    SHMCOLL_AWAIT(task, &h->bpc, shmcoll_channel_test_claim(ch, h->step2, &task->wait));
    SHMCOLL_CHECK(fold_mine(task));
    shmcoll_channel_post(ch, h->step2);
    if (task->args->kind != SHMCOLL_KIND_ALLREDUCE) {
        SHMCOLL_AWAIT(task, &h->bpc, shmcoll_channel_test_all(ch, h->step2, &task->wait));
        shmcoll_channel_ack(ch, h->step2); /* what later claims of its parity look at */
    } else {
        for (h->i = 1; h->i < p; h->i++) {
            SHMCOLL_AWAIT(task, &h->bpc,
                          shmcoll_channel_test_post(ch, (me + h->i) % p, h->step2, &task->wait));
            const int q = (me + h->i) % p;
            const coll_blocks_t blocks = coll_task_blocks(task);
            const size_t ext = task->args->op->extent;
            size_t first, len;
            coll_block(&blocks, q, &first, &len);
            SHMCOLL_CHECK(coll_heap_pull(task, q, COLL_HEAP_RECV, first * ext,
                                         (char *)task->args->recvbuf + first * ext,
                                         shmcoll_reduce_op_span(task->args->op, len)));
        }
        shmcoll_channel_ack(ch, h->step2);
        SHMCOLL_AWAIT(task, &h->bpc, shmcoll_channel_test_done(ch, h->step2, &task->wait));
    }
    SHMCOLL_RESUME_END(&h->bpc);
}
