/* Data movement over shared heaps: every block copied once, straight between the members'
 * buffers, in the step of the agreement (heap_agree.c).
 *
 * Direction (KNEM-coll, seed 001): where one buffer feeds many, its readers pull in parallel
 * (bcast, scatter: every member reads its part from the root); where many feed one, the writers
 * push (gather: every member writes its block into the root's buffer); all-to-all exchanges
 * read (or write, when only the receive buffers lie in heaps) from the right-hand neighbour on,
 * so that the p readers spread over p sources.
 *   bcast       PULL: members read the root's buffer whole; the root only waits. SPLIT (every
 *               buffer in a heap): the root writes the first s/p bytes into every member's
 *               buffer while they read the rest, so the root's core works too: (p-1)s/p each
 *               instead of s (half the time at p = 2).
 *   allgather   PUSH (every receive buffer in a heap): each member reads its block once, in
 *               pieces that stay in its cache, and writes each piece into every receive buffer:
 *               one read of a block instead of p. PULL: each member reads every other's block.
 * DAV: 2 bytes per byte moved (one copy), e.g. bcast 2s(p-1), allgather 2p x (all blocks),
 * alltoall 2p^2 b, scatter and gather 2pb (the root's own block included, unless in place).
 * Synchronisation: the agreement step, then every member acknowledges it once done with its
 * copies; a member whose buffers others read or write waits until all have (its buffers may
 * change as soon as it returns): every member of allgather and alltoall, the root of bcast,
 * scatter and gather, and SPLIT's members for the root, which writes into their buffers. */
#include "coll/heap_internal.h"

/* Pieces of a block a pushing member copies to every destination before the next: small enough
 * to stay in its own cache between the reads. */
#define PUSH_PIECE ((size_t)256 << 10)

static size_t min_size(size_t a, size_t b) {
    return a < b ? a : b;
}

static shmcoll_status_t bcast(shmcoll_task_t *task) {
    const shmcoll_coll_args_t *a = task->args;
    const int me = task->ch->rank, p = task->ch->size, root = a->root;
    char *buf = a->recvbuf;
    const coll_heap_mode_t mode = (coll_heap_mode_t)coll_heap_state(task)->mode;
    /* SPLIT: the root's share, whole cache lines */
    const size_t first = mode == COLL_HEAP_SPLIT ? a->count / (size_t)p / 64 * 64 : 0;
    if (me != root)
        return coll_heap_pull(task, root, COLL_HEAP_RECV, first, buf + first, a->count - first);
    for (size_t at = 0; at < first; at += PUSH_PIECE)
        for (int i = 1; i < p; i++)
            SHMCOLL_CHECK(coll_heap_push(task, (root + i) % p, COLL_HEAP_RECV, at, buf + at,
                                         min_size(PUSH_PIECE, first - at)));
    return SHMCOLL_OK;
}

static shmcoll_status_t scatter(shmcoll_task_t *task) {
    const shmcoll_coll_args_t *a = task->args;
    const int me = task->ch->rank;
    const size_t b = a->count;
    if (me != a->root)
        return coll_heap_pull(task, a->root, COLL_HEAP_SEND, (size_t)me * b, a->recvbuf, b);
    if (a->recvbuf) coll_heap_copy(task, a->recvbuf, (const char *)a->sendbuf + (size_t)me * b, b);
    return SHMCOLL_OK;
}

static shmcoll_status_t gather(shmcoll_task_t *task) {
    const shmcoll_coll_args_t *a = task->args;
    const int me = task->ch->rank;
    const size_t b = a->count;
    if (me != a->root)
        return coll_heap_push(task, a->root, COLL_HEAP_RECV, (size_t)me * b, a->sendbuf, b);
    if (a->sendbuf) coll_heap_copy(task, (char *)a->recvbuf + (size_t)me * b, a->sendbuf, b);
    return SHMCOLL_OK;
}

static shmcoll_status_t allgather(shmcoll_task_t *task) {
    const shmcoll_coll_args_t *a = task->args;
    const int me = task->ch->rank, p = task->ch->size;
    const coll_bytes_t blocks = coll_recv_blocks(a);
    char *recv = a->recvbuf;
    if (coll_heap_state(task)->mode == COLL_HEAP_PUSH) {
        const size_t displ = coll_bytes_displ(&blocks, me), n = coll_bytes_count(&blocks, me);
        const char *mine = a->sendbuf ? (const char *)a->sendbuf : recv + displ;
        for (size_t at = 0; at < n; at += PUSH_PIECE) {
            const size_t len = min_size(PUSH_PIECE, n - at);
            for (int i = 0; i < p; i++) {
                const int q = (me + i) % p;
                if (q == me)
                    coll_heap_copy(task, recv + displ + at, mine + at, len);
                else
                    SHMCOLL_CHECK(
                        coll_heap_push(task, q, COLL_HEAP_RECV, displ + at, mine + at, len));
            }
        }
        return SHMCOLL_OK;
    }
    if (a->sendbuf)
        coll_heap_copy(task, recv + coll_bytes_displ(&blocks, me), a->sendbuf,
                       coll_bytes_count(&blocks, me));
    for (int i = 1; i < p; i++) {
        const int q = (me + i) % p;
        const size_t displ = coll_bytes_displ(&blocks, q), n = coll_bytes_count(&blocks, q);
        if (coll_heap_post(task, q)->in_place)
            SHMCOLL_CHECK(coll_heap_pull(task, q, COLL_HEAP_RECV, displ, recv + displ, n));
        else
            SHMCOLL_CHECK(coll_heap_pull(task, q, COLL_HEAP_SEND, 0, recv + displ, n));
    }
    return SHMCOLL_OK;
}

static shmcoll_status_t alltoall(shmcoll_task_t *task) {
    const shmcoll_coll_args_t *a = task->args;
    const int me = task->ch->rank, p = task->ch->size;
    const size_t b = a->count;
    const char *send = a->sendbuf;
    char *recv = a->recvbuf;
    const int pull = coll_heap_state(task)->mode == COLL_HEAP_PULL;
    coll_heap_copy(task, recv + (size_t)me * b, send + (size_t)me * b, b);
    for (int i = 1; i < p; i++) {
        const int q = (me + i) % p;
        if (pull)
            SHMCOLL_CHECK(
                coll_heap_pull(task, q, COLL_HEAP_SEND, (size_t)me * b, recv + (size_t)q * b, b));
        else
            SHMCOLL_CHECK(
                coll_heap_push(task, q, COLL_HEAP_RECV, (size_t)me * b, send + (size_t)q * b, b));
    }
    return SHMCOLL_OK;
}

shmcoll_status_t coll_heap_move(shmcoll_task_t *task) {
    coll_heap_t *h = coll_heap_state(task);
    shmcoll_channel_t *ch = task->ch;
    SHMCOLL_RESUME_BEGIN(&h->bpc);
    switch (task->args->kind) {
    case SHMCOLL_KIND_BCAST:
        SHMCOLL_CHECK(bcast(task));
        break;
    case SHMCOLL_KIND_SCATTER:
        SHMCOLL_CHECK(scatter(task));
        break;
    case SHMCOLL_KIND_GATHER:
        SHMCOLL_CHECK(gather(task));
        break;
    case SHMCOLL_KIND_ALLGATHER:
    case SHMCOLL_KIND_ALLGATHERV:
        SHMCOLL_CHECK(allgather(task));
        break;
    default:
        SHMCOLL_CHECK(alltoall(task));
    }
    shmcoll_channel_ack(ch, h->step);
    /* Who else touches this member's buffers: everyone in the exchanges, the other members at a
     * root; the root, at the members of SPLIT, which it writes into. */
    if (!shmcoll_coll_kinds[task->args->kind].rooted || ch->rank == task->args->root)
        SHMCOLL_AWAIT(task, &h->bpc, shmcoll_channel_test_done(ch, h->step, &task->wait));
    else if (h->mode == COLL_HEAP_SPLIT)
        SHMCOLL_AWAIT(
            task, &h->bpc,
            shmcoll_channel_test_claim_one(ch, h->step + 2, task->args->root, &task->wait));
    SHMCOLL_RESUME_END(&h->bpc);
}
