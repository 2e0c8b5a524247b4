/* The heap rows' task: agree whether every buffer lies in a shared heap, then move each block
 * once (heap_move.c, heap_reduce.c) or run the inner row in the same task.
 *
 * Step 1 (the agreement): every member claims the step and writes into its slot where its send
 * and receive buffers lie (address, heap reference: coll/heap_internal.h) and whether it works
 * in place, posts, and reads every other member's post. From the posts alone — the same on
 * every member — all derive the path: which buffers each kind needs in heaps, and spanning how
 * many bytes (known to all: counts of the non-v kinds, allgatherv's layout, reductions' spans):
 *   bcast          the root's buffer (every buffer: the root writes a first share, SPLIT)
 *   scatter        the root's send buffer           gather   the root's receive buffer
 *   allgather(v)   every receive buffer (PUSH: each member writes its block everywhere, reading
 *                  it once), else every block's source (PULL)
 *   alltoall       every send buffer (PULL), else every receive buffer (PUSH)
 *   allreduce      every input and every receive buffer
 *   reduce         every input and the root's receive buffer
 *   reduce_scatter every input
 * Nobody decides alone: a member whose peer's arena cannot be mapped here still takes the heap
 * path, copying through cross-memory attach (heap_access.c). The single-copy reductions
 * (params.attach) take the path whatever the posts say: a peer's buffer outside a heap is read
 * and written through cross-memory attach alike, piece by piece through the bounce half of the
 * member's slot, so every input is read where the application left it (in memory, not in a core's
 * cache as a slot that a peer just wrote is) and each member folds its own block at once.
 *
 * bcast, scatter and gather go nowhere without the root's buffer in a heap, which the root's
 * post alone tells: when it is not, the root goes on to the inner row at once and the members
 * after reading the root's post only. The root then never waits for the members in the
 * agreement, and keeps running a call ahead in the pipelines it streams (a bcast of 256 KiB from
 * ordinary buffers took 17 us with a full agreement against 10 without any).
 *
 * The inner row (params.inner: the selector's choice without the heap rows) ran its init when
 * the task started, as it would have without the heap row; when the agreement says no, the
 * task becomes that row and runs its progress from its start, on the steps after the
 * agreement, which every member acknowledges first: the row's claims then find every slot of the
 * agreement's parity free, as after any step. */
#include "coll/coll.h"
#include "coll/heap_internal.h"
#include "heap/peer.h"

#include <string.h>

/* Bytes each member's receive buffer spans in allgather(v): the end of its last block. */
static size_t gather_span(const shmcoll_task_t *task) {
    const coll_bytes_t blocks = coll_recv_blocks(task->args);
    size_t span = 0;
    for (int q = 0; q < task->ch->size; q++) {
        const size_t end = coll_bytes_displ(&blocks, q) + coll_bytes_count(&blocks, q);
        span = end > span ? end : span;
    }
    return span;
}

/* Bytes of a reduction's input and of its result at the members that hold it. */
static size_t input_span(const shmcoll_task_t *task) {
    const coll_blocks_t blocks = coll_task_blocks(task);
    return shmcoll_reduce_op_span(task->args->op, blocks.n);
}

static int reduction(const shmcoll_task_t *task) {
    return shmcoll_coll_kinds[task->args->kind].reduces;
}

/* Whether the heap row can serve the call (shared values), beyond what its supports() saw: the
 * reductions fold through two halves of the member's slot. */
static int applies(const shmcoll_task_t *task) {
    const shmcoll_coll_args_t *a = task->args;
    if (task->ch->size < 2 || sizeof(coll_heap_post_t) > task->ch->chunk) return 0;
    if (reduction(task))
        return coll_op_usable(a->op) && a->op->extent <= task->ch->chunk / 2 &&
               !(coll_scatters(task) && !a->sendbuf);
    if (a->kind == SHMCOLL_KIND_ALLTOALL) return a->sendbuf != NULL;
    return 1;
}

static shmcoll_status_t heap_init(shmcoll_task_t *task) {
    coll_heap_t *h = coll_heap_state(task);
    *h = (coll_heap_t){0};
    const shmcoll_task_ops_t *inner = task->params.inner;
    if (task->params.attach) return applies(task) ? SHMCOLL_OK : SHMCOLL_ERR_NOT_SUPPORTED;
    if (!inner) return SHMCOLL_ERR_NOT_SUPPORTED;
    if (!applies(task)) { /* the inner row alone, as if the heap row were not there */
        task->ops = inner;
        task->algo = task->params.inner_name;
        return inner->init(task);
    }
    SHMCOLL_CHECK(inner->init(task));
    h->inner_ready = 1;
    return SHMCOLL_OK;
}

/* This member's post: its send and receive buffers (those the kind has here). */
static void post_mine(shmcoll_task_t *task) {
    const shmcoll_coll_args_t *a = task->args;
    coll_heap_post_t *post =
        shmcoll_channel_buffer(task->ch, task->ch->rank, coll_heap_state(task)->step);
    memset(post, 0, sizeof *post);
    const void *bufs[2] = {a->sendbuf, a->recvbuf};
    for (int i = 0; i < 2; i++) {
        post->buf[i].addr = (uintptr_t)bufs[i];
        if (bufs[i]) shmcoll_coll_heap_locate(task, bufs[i], &post->buf[i].ref);
    }
    post->in_place = a->sendbuf == NULL;
    shmcoll_channel_post(task->ch, coll_heap_state(task)->step);
}

/* Whether member q's buffer `which` lies in a heap over `bytes` bytes. */
static int in_heap(shmcoll_task_t *task, int q, int which, size_t bytes) {
    const coll_heap_buf_t *b = coll_heap_buf(task, q, which);
    return b->addr && b->ref.nonce && b->ref.limit >= bytes;
}

static int all_in_heap(shmcoll_task_t *task, int which, size_t bytes) {
    for (int q = 0; q < task->ch->size; q++)
        if (!in_heap(task, q, which, bytes)) return 0;
    return 1;
}

/* Allgather(v)'s sources: each member's own block, in its send buffer or in place. */
static int sources_in_heap(shmcoll_task_t *task) {
    const coll_bytes_t blocks = coll_recv_blocks(task->args);
    for (int q = 0; q < task->ch->size; q++) {
        const size_t n = coll_bytes_count(&blocks, q);
        const int ok = coll_heap_post(task, q)->in_place
                           ? in_heap(task, q, COLL_HEAP_RECV, coll_bytes_displ(&blocks, q) + n)
                           : in_heap(task, q, COLL_HEAP_SEND, n);
        if (n && !ok) return 0;
    }
    return 1;
}

/* The root's buffer without which the kind's path is none (bcast, scatter, gather), or -1. */
static int root_buffer(const shmcoll_task_t *task) {
    switch (task->args->kind) {
    case SHMCOLL_KIND_BCAST:
    case SHMCOLL_KIND_GATHER:
        return COLL_HEAP_RECV;
    case SHMCOLL_KIND_SCATTER:
        return COLL_HEAP_SEND;
    default:
        return -1;
    }
}

/* The path, from every member's post (the same on every member), and the working set. */
static coll_heap_mode_t decide(shmcoll_task_t *task) {
    const shmcoll_coll_args_t *a = task->args;
    const int p = task->ch->size, root = a->root;
    const size_t b = a->count, all = (size_t)p * b;
    switch (a->kind) {
    case SHMCOLL_KIND_BCAST:
        task->working_set = all;
        if (!in_heap(task, root, COLL_HEAP_RECV, b)) return COLL_HEAP_NONE;
        return all_in_heap(task, COLL_HEAP_RECV, b) ? COLL_HEAP_SPLIT : COLL_HEAP_PULL;
    case SHMCOLL_KIND_SCATTER:
        task->working_set = 2 * all;
        return in_heap(task, root, COLL_HEAP_SEND, all) ? COLL_HEAP_PULL : COLL_HEAP_NONE;
    case SHMCOLL_KIND_GATHER:
        task->working_set = 2 * all;
        return in_heap(task, root, COLL_HEAP_RECV, all) ? COLL_HEAP_PUSH : COLL_HEAP_NONE;
    case SHMCOLL_KIND_ALLGATHER:
    case SHMCOLL_KIND_ALLGATHERV: {
        const size_t span = gather_span(task);
        task->working_set = (size_t)p * 2 * span;
        if (all_in_heap(task, COLL_HEAP_RECV, span)) return COLL_HEAP_PUSH;
        return sources_in_heap(task) ? COLL_HEAP_PULL : COLL_HEAP_NONE;
    }
    case SHMCOLL_KIND_ALLTOALL:
        task->working_set = 2 * (size_t)p * all;
        if (all_in_heap(task, COLL_HEAP_SEND, all)) return COLL_HEAP_PULL;
        return all_in_heap(task, COLL_HEAP_RECV, all) ? COLL_HEAP_PUSH : COLL_HEAP_NONE;
    default: { /* the reductions */
        const size_t span = input_span(task);
        task->working_set = 2 * (size_t)p * span;
        if (task->params.attach) return COLL_HEAP_REDUCE; /* wherever the buffers lie */
        if (!all_in_heap(task, COLL_HEAP_INPUT, span)) return COLL_HEAP_NONE;
        if (a->kind == SHMCOLL_KIND_ALLREDUCE && !all_in_heap(task, COLL_HEAP_RECV, span))
            return COLL_HEAP_NONE;
        if (a->kind == SHMCOLL_KIND_REDUCE && !in_heap(task, root, COLL_HEAP_RECV, span))
            return COLL_HEAP_NONE;
        return COLL_HEAP_REDUCE;
    }
    }
}

/* The agreement said no: the task becomes its inner row, from that row's start, once this
 * member has acknowledged the agreement (it read every post: the row may claim its slots). */
static shmcoll_status_t run_inner(shmcoll_task_t *task) {
    shmcoll_channel_ack(task->ch, coll_heap_state(task)->step);
    task->ops = task->params.inner;
    task->algo = task->params.inner_name;
    task->pc = 0;
    return task->ops->progress(task);
}

static shmcoll_status_t heap_progress(shmcoll_task_t *task) {
    coll_heap_t *h = coll_heap_state(task);
    shmcoll_channel_t *ch = task->ch;
    SHMCOLL_RESUME_BEGIN(&h->pc);
    h->step = shmcoll_channel_next_step(ch);
    SHMCOLL_AWAIT(task, &h->pc, shmcoll_channel_test_claim(ch, h->step, &task->wait));
    post_mine(task);
    if (root_buffer(task) >= 0) { /* the root's post alone may say no */
        if (ch->rank != task->args->root)
            SHMCOLL_AWAIT(task, &h->pc,
                          shmcoll_channel_test_post(ch, task->args->root, h->step, &task->wait));
        if (!in_heap(task, task->args->root, root_buffer(task), 0)) return run_inner(task);
    }
    SHMCOLL_AWAIT(task, &h->pc, shmcoll_channel_test_all(ch, h->step, &task->wait));
    {
        const size_t inner_working_set = task->working_set;
        h->mode = decide(task);
        if (h->mode == COLL_HEAP_NONE) {
            task->working_set = inner_working_set;
            return run_inner(task);
        }
    }
    coll_heap_views_reset(task);
    SHMCOLL_AWAIT_TEST(&h->pc, reduction(task) ? coll_heap_reduce(task) : coll_heap_move(task));
    SHMCOLL_RESUME_END(&h->pc);
}

static void heap_fini(shmcoll_task_t *task) {
    coll_heap_t *h = coll_heap_state(task);
    coll_heap_views_release(task);
    if (task->status == SHMCOLL_ERR_PEER_DEAD) /* nothing of the dead one stays mapped */
        for (int q = 0; q < task->ch->size; q++)
            if (!shmcoll_shm_process_alive(task->team->pids[q]))
                shmcoll_heap_peer_forget(task->team->pids[q]);
    if (h->inner_ready && task->params.inner->fini) task->params.inner->fini(task);
}

const shmcoll_task_ops_t shmcoll_coll_heap_ops = {
    .init = heap_init, .progress = heap_progress, .fini = heap_fini};
