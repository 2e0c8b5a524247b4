/* Single-copy data movement: members expose their own buffers and the others copy straight
 * between private buffers with cross-memory attach (shm/cma.h), so a block moves once, where
 * copy-in/copy-out through shared slots moves it twice and synchronises once per chunk.
 *
 * One step per collective, whatever the size: each exposing member writes its buffer's address
 * (and, for the v-variants, the address of its byte-displacement array) into the aux area of
 * its post block and posts (the inline area stays free for small blocks of the same step); the
 * others wait for that post, copy, and acknowledge the step. An exposing member finishes only once
 * every other member has acknowledged, since its buffer may change as soon as it returns. DAV is 2
 * bytes per byte moved, the minimum for a copy.
 *
 * Direction (KNEM-coll): the non-root members do the copies, so they run in parallel instead of
 * queueing at the root: bcast and scatter read from the root, gather writes into the root.
 * Allgather and alltoall read, each member visiting the others from its right-hand neighbour on,
 * so that the p readers spread over p sources.
 *
 * A buffer that lies in its owner's shared heap (coll/heap.h) is published with its place in the
 * heap: the member that copies from or into it maps the owner's arena (once, cached) and copies
 * at memory speed instead of calling cross-memory attach. Each block's road follows from what
 * its reader or writer finds in the post it waits for anyway, so nothing needs agreeing.
 *
 * As tasks: the copies through process_vm_readv/writev are system calls that never wait for a
 * peer, so they run inside progress; the waits (the claim before exposing, a peer's post, the
 * acknowledgements an exposing member collects) are the resume points. */
#include "coll/coll.h"
#include "coll/coll_internal.h"
#include "coll/heap.h"
#include "shm/cma.h"

#include <string.h>

/* What an exposing member publishes: where its buffer is, where its displacements are (0:
 * uniform blocks), where a reader finds its block's displacement in the member's slot for the
 * step (stride: at index x stride; 0: only in the array, read by cross-memory attach, one more
 * system call per block), and where the buffer lies when in a shared heap (coll/heap.h). */
typedef struct exposed {
    uintptr_t base;
    uintptr_t displs;
    uint64_t stride;
    shmcoll_heap_ref_t heap;
} exposed_t;

_Static_assert(sizeof(exposed_t) <= SHMCOLL_AUX_BYTES, "the exposed buffer fits a post's aux area");

/* What this member exposes of `base`, its stride not set yet. */
static exposed_t exposing(const void *base, const size_t *displs) {
    exposed_t mine = {.base = (uintptr_t)base, .displs = (uintptr_t)displs};
    shmcoll_heap_ref(base, &mine.heap);
    return mine;
}

/* Publish `mine` in `step`, which the caller has claimed. */
static void publish_exposed(shmcoll_channel_t *ch, uint64_t step, const exposed_t *mine) {
    memcpy(shmcoll_channel_aux(ch, ch->rank, step), mine, sizeof *mine);
    shmcoll_channel_post(ch, step);
}

/* Publish the buffer in `step`, which the caller has claimed; `stride` where the caller has put
 * the displacements its readers need in its slot (0: none). */
static void publish(shmcoll_channel_t *ch, uint64_t step, const void *base, const size_t *displs,
                    size_t stride) {
    exposed_t mine = exposing(base, displs);
    mine.stride = stride;
    publish_exposed(ch, step, &mine);
}

/* Whether the buffer member q published in `step` lies in its shared heap. */
static int peer_in_heap(const shmcoll_channel_t *ch, int q, uint64_t step) {
    exposed_t theirs;
    memcpy(&theirs, shmcoll_channel_aux(ch, q, step), sizeof theirs);
    return theirs.heap.nonce != 0;
}

/* Copy `n` bytes between this member's `local` and member q's address `remote`. A failure here
 * is published, so members waiting for this one stop at once. */
static shmcoll_status_t cma(shmcoll_task_t *task, int q, void *local, uintptr_t remote, size_t n,
                            int write) {
    shmcoll_team_t *team = task->team;
    shmcoll_status_t status = shmcoll_cma_copy(team->pids[q], q, local, remote, n, write,
                                               team->error, sizeof team->error);
    if (status == SHMCOLL_ERR_NOT_SUPPORTED)
        status = SHMCOLL_ERR_SYSTEM; /* too late to fall back */
    return status == SHMCOLL_OK ? status : shmcoll_channel_fail(task->ch, status, q);
}

/* The same for payload, counted in the DAV: through q's mapped arena when the buffer q exposed
 * in `step` lies in its shared heap (the same data by a faster road: coll/heap.h). */
static shmcoll_status_t transfer(shmcoll_task_t *task, int q, uint64_t step, void *local,
                                 uintptr_t remote, size_t n, int write) {
    if (!n) return SHMCOLL_OK;
    exposed_t theirs;
    memcpy(&theirs, shmcoll_channel_aux(task->ch, q, step), sizeof theirs);
    if (shmcoll_coll_heap_transfer(task, q, &theirs.heap, theirs.base, remote, local, n, write) !=
        SHMCOLL_OK)
        SHMCOLL_CHECK(cma(task, q, local, remote, n, write));
    task->dav += 2 * n;
    return SHMCOLL_OK;
}

/* The v-variants' displacements in this member's slot of `step` (claimed), one per member at
 * consecutive places, where they fit: the stride to publish, else 0. Only where nothing else uses
 * the slot in that step. */
static size_t slot_displs(shmcoll_channel_t *ch, uint64_t step, const size_t *displs) {
    if (!displs || (size_t)ch->size * sizeof *displs > ch->chunk) return 0;
    memcpy(shmcoll_channel_buffer(ch, ch->rank, step), displs, (size_t)ch->size * sizeof *displs);
    return sizeof *displs;
}

/* Where block `index` of member q's exposed buffer starts: index x `bytes` for uniform blocks,
 * else q's displacement for it, from q's slot or its array. Only once q has posted `step` (the
 * caller tests for that post first: this never waits). */
static shmcoll_status_t peer_block(shmcoll_task_t *task, int q, uint64_t step, int index,
                                   size_t bytes, uintptr_t *where) {
    exposed_t theirs;
    memcpy(&theirs, shmcoll_channel_aux(task->ch, q, step), sizeof theirs);
    size_t displ = (size_t)index * bytes;
    if (theirs.displs && theirs.stride) {
        memcpy(&displ,
               (const char *)shmcoll_channel_buffer(task->ch, q, step) +
                   (size_t)index * theirs.stride,
               sizeof displ);
    } else if (theirs.displs) {
        const uintptr_t entry = theirs.displs + (size_t)index * sizeof(size_t);
        SHMCOLL_CHECK(cma(task, q, &displ, entry, sizeof displ, 0));
    }
    *where = theirs.base + displ;
    return SHMCOLL_OK;
}

/* Whether a block of a rooted call moves single-copy rather than through a slot of `slot_bytes`
 * in the same step: long enough for single copy, or too long for the slot. Its sender and the
 * root both know its size, so both ends choose alike. Where the call is one step because
 * cma_min <= slot_bytes (the one-step rows), the second clause adds nothing; after an agreement
 * (cma_min > slot_bytes), it keeps blocks between the two sizes from overrunning their slot. */
static int block_single(const shmcoll_team_t *team, size_t n, size_t slot_bytes) {
    return coll_single_copy(team, 1, n) || n > slot_bytes;
}

/* Every single-copy algorithm needs a team that may use cross-memory attach: the selector only
 * offers them then, a row forced by name finds the same answer on every member. */
static shmcoll_status_t single_usable(shmcoll_task_t *task) {
    return task->team->cma != SHMCOLL_CMA_OFF ? SHMCOLL_OK : SHMCOLL_ERR_NOT_SUPPORTED;
}

/* ---- The bodies gatherv, scatterv and alltoallv share -------------------------------------- */

/* Alltoall's own block, from the member's send buffer to its receive buffer. Once the member's
 * two buffers alone exceed the usable cache, the destination cannot stay cached whatever the copy
 * does: streaming stores save reading each line before it is overwritten (a third of the copy's
 * traffic), as the C library's memcpy does beyond the cache, with however few members copying
 * (SHMCOLL_NT still forces either way). MPICH, p = 2, 2 cores, three runs each: 16 MiB blocks
 * 1.00-1.06x the MPI library's before, 1.11-1.19x after; 64 MiB 1.06-1.11x, 1.18-1.22x; at 2 MiB
 * (8 MiB of buffers, cached) streaming lost 5-10%, and stays off there. */
static void own_block(shmcoll_task_t *task, char *dst, const char *src, size_t n,
                      const coll_bytes_t *out, const coll_bytes_t *in) {
    size_t own = 0;
    for (int r = 0; r < task->ch->size; r++)
        own += coll_bytes_count(out, r) + coll_bytes_count(in, r);
    coll_copy_streamed(
        task, dst, src, n,
        shmcoll_kernel_nt_decide(shmcoll_kernel_nt_mode(), own, 0, task->team->usable_cache, 1));
}

/* Alltoallv's one step: whether a block of n bytes moves single-copy, which its sender and its
 * reader decide alike: as block_single for a slot of `piece` bytes, and from SHMCOLL_HEAP_MIN
 * bytes where its sender's buffer lies in a heap the team maps (read through the mapped arena
 * at memory speed, as an agreement that finds every buffer in a heap moves every block). */
static int one_step_single(const shmcoll_team_t *team, size_t n, size_t piece, int sender_in_heap) {
    return block_single(team, n, piece) || (sender_in_heap && team->heap && n >= team->heap_min);
}

shmcoll_status_t shmcoll_coll_alltoall_single(shmcoll_task_t *task, coll_single_t *c,
                                              const char *sendbuf, const coll_bytes_t *out,
                                              char *recvbuf, const coll_bytes_t *in, size_t piece) {
    shmcoll_channel_t *ch = task->ch;
    const shmcoll_team_t *team = task->team;
    const int me = ch->rank, p = ch->size;
    SHMCOLL_RESUME_BEGIN(&c->pc);
    c->step = shmcoll_channel_next_step(ch);
    SHMCOLL_AWAIT(task, &c->pc, shmcoll_channel_test_claim(ch, c->step, &task->wait));
    const size_t *displs = out->counts ? out->displs : NULL;
    exposed_t mine = exposing(sendbuf, displs);
    if (piece) { /* short blocks into their reader's piece; a single-copy reader's holds its
                  * displacement */
        mine.stride = displs && piece >= sizeof(size_t) ? piece : 0;
        char *slots = shmcoll_channel_buffer(ch, me, c->step);
        c->exposed = 0;
        for (int r = 0; r < p; r++) {
            const size_t n = coll_bytes_count(out, r);
            if (r == me || !n) continue;
            if (!one_step_single(team, n, piece, mine.heap.nonce != 0)) {
                coll_copy(task, slots + (size_t)r * piece, sendbuf + coll_bytes_displ(out, r), n);
                continue;
            }
            c->exposed = 1;
            if (mine.stride) memcpy(slots + (size_t)r * mine.stride, &displs[r], sizeof(size_t));
        }
    } else {
        mine.stride = slot_displs(ch, c->step, displs);
        c->exposed = 1;
    }
    publish_exposed(ch, c->step, &mine);
    own_block(task, recvbuf + coll_bytes_displ(in, me), sendbuf + coll_bytes_displ(out, me),
              coll_bytes_count(in, me), out, in);
    for (c->i = 1; c->i < p; c->i++) {
        if (!coll_bytes_count(in, (me + c->i) % p)) continue;
        SHMCOLL_AWAIT(task, &c->pc,
                      shmcoll_channel_test_post(ch, (me + c->i) % p, c->step, &task->wait));
        const int q = (me + c->i) % p;
        const size_t n = coll_bytes_count(in, q);
        if (piece && !one_step_single(team, n, piece, peer_in_heap(ch, q, c->step))) {
            coll_copy_out(task, recvbuf + coll_bytes_displ(in, q),
                          (const char *)shmcoll_channel_buffer(ch, q, c->step) + (size_t)me * piece,
                          n);
            continue;
        }
        uintptr_t from;
        SHMCOLL_CHECK(peer_block(task, q, c->step, me, out->bytes, &from));
        SHMCOLL_CHECK(transfer(task, q, c->step, recvbuf + coll_bytes_displ(in, q), from, n, 0));
    }
    shmcoll_channel_ack(ch, c->step);
    if (c->exposed)
        SHMCOLL_AWAIT(task, &c->pc, shmcoll_channel_test_done(ch, c->step, &task->wait));
    SHMCOLL_RESUME_END(&c->pc);
}

shmcoll_status_t shmcoll_coll_gather_single(shmcoll_task_t *task, coll_single_t *c,
                                            const char *mine, size_t my_count, char *recvbuf,
                                            const coll_bytes_t *blocks, int root) {
    shmcoll_channel_t *ch = task->ch;
    const shmcoll_team_t *team = task->team;
    const int me = ch->rank, p = ch->size;
    /* a sender's slot for a block that moves through one (derived again at every resumption) */
    const shmcoll_slot_t my_slot = coll_sender_slot(ch, my_count, SHMCOLL_POST_PAYLOAD_BYTES);
    SHMCOLL_RESUME_BEGIN(&c->pc);
    c->step = shmcoll_channel_next_step(ch);
    if (me == root) {
        /* Only members that write single-copy need recvbuf's address, and only for them does the
         * root wait for acknowledgements: a call of small blocks lets the senders run ahead. */
        c->exposed = 0;
        for (int q = 0; q < p; q++) {
            const size_t n = coll_bytes_count(blocks, q);
            c->exposed |= q != me && n && block_single(team, n, ch->chunk);
        }
        if (c->exposed) {
            SHMCOLL_AWAIT(task, &c->pc, shmcoll_channel_test_claim(ch, c->step, &task->wait));
            const size_t *displs = blocks->counts ? blocks->displs : NULL;
            publish(ch, c->step, recvbuf, displs, slot_displs(ch, c->step, displs));
        } else
            shmcoll_channel_post(ch, c->step);
        if (mine) coll_copy(task, recvbuf + coll_bytes_displ(blocks, me), mine, my_count);
        for (c->i = 1; c->i < p; c->i++) {
            const size_t n = coll_bytes_count(blocks, (me + c->i) % p);
            if (!n || block_single(team, n, ch->chunk)) continue;
            SHMCOLL_AWAIT(task, &c->pc,
                          shmcoll_channel_test_post(ch, (me + c->i) % p, c->step, &task->wait));
            const int q = (me + c->i) % p;
            const size_t bytes = coll_bytes_count(blocks, q);
            coll_copy(
                task, recvbuf + coll_bytes_displ(blocks, q),
                coll_slot(ch, q, c->step, coll_sender_slot(ch, bytes, SHMCOLL_POST_PAYLOAD_BYTES)),
                bytes);
        }
        shmcoll_channel_ack(ch, c->step);
        if (c->exposed)
            SHMCOLL_AWAIT(task, &c->pc, shmcoll_channel_test_done(ch, c->step, &task->wait));
    } else if (block_single(team, my_count, ch->chunk)) {
        SHMCOLL_AWAIT(task, &c->pc, shmcoll_channel_test_post(ch, root, c->step, &task->wait));
        uintptr_t to;
        SHMCOLL_CHECK(peer_block(task, root, c->step, me, blocks->bytes, &to));
        SHMCOLL_CHECK(transfer(task, root, c->step, (void *)mine, to, my_count, 1));
        shmcoll_channel_ack(ch, c->step);
    } else {
        if (my_count) {
            SHMCOLL_AWAIT(task, &c->pc,
                          shmcoll_channel_test_claim_slot(ch, c->step, my_slot, &task->wait));
            coll_copy(task, (void *)coll_slot(ch, me, c->step, my_slot), mine, my_count);
            shmcoll_channel_post(ch, c->step);
        }
        shmcoll_channel_ack(ch, c->step);
    }
    SHMCOLL_RESUME_END(&c->pc);
}

/* Where scatter's one step puts member q's block of n bytes in the root's slots: single-copy, in
 * q's part of the inline area, of the eager slot, or of the buffer (`piece` bytes). */
typedef enum { SCATTER_SINGLE, SCATTER_INLINE, SCATTER_EAGER, SCATTER_PIECE } scatter_way_t;

/* The root's own block never travels, so its inline area and eager slot are cut into one part
 * per other member (at p = 2 the one reader has them whole): a reader's part follows from its
 * rank and the root's, the same on both sides. Cut into p parts, a scatterv's 5.3 KiB block of
 * p = 2 missed half the 8 KiB eager slot and took the buffer, whose root waits for its reader's
 * acknowledgement every other call. */
static size_t scatter_part(const shmcoll_channel_t *ch, scatter_way_t way) {
    const int readers = ch->size > 1 ? ch->size - 1 : 1;
    return way == SCATTER_INLINE ? SHMCOLL_INLINE_BYTES / (size_t)readers
                                 : coll_piece_per_member(ch->eager, readers);
}
static scatter_way_t scatter_way(const shmcoll_team_t *team, const shmcoll_channel_t *ch, size_t n,
                                 size_t piece) {
    if (block_single(team, n, piece)) return SCATTER_SINGLE;
    if (n <= scatter_part(ch, SCATTER_INLINE)) return SCATTER_INLINE;
    return n <= scatter_part(ch, SCATTER_EAGER) ? SCATTER_EAGER : SCATTER_PIECE;
}

/* Where member q's block of scatter's one step lies in the root's slots of `step`. */
static char *scatter_place(const shmcoll_channel_t *ch, int root, uint64_t step, int q,
                           scatter_way_t way, size_t piece) {
    switch (way) {
    case SCATTER_INLINE:
        return (char *)shmcoll_channel_inline(ch, root, step) +
               coll_other_index(q, root) * scatter_part(ch, way);
    case SCATTER_EAGER:
        return (char *)shmcoll_channel_eager(ch, root, step) +
               coll_other_index(q, root) * scatter_part(ch, way);
    default:
        return (char *)shmcoll_channel_buffer(ch, root, step) + (size_t)q * piece;
    }
}

/* Blocks that fit a reader's part of the root's inline area travel there (scatter_part), so a
 * call of small blocks is one line, and its root, which then writes no buffer, may run up to
 * SHMCOLL_POST_RING calls ahead of its readers (a scatterv of 8-byte blocks waited for its
 * reader's acknowledgement every other call); blocks that fit a reader's part of its eager slot
 * go there, and a root that writes no buffer runs SHMCOLL_EAGER_SLOTS calls ahead. The inline area
 * only, not the post block's whole payload as gather's senders use it: the root may publish its
 * exposed buffer in aux in the same step. */
shmcoll_status_t shmcoll_coll_scatter_single(shmcoll_task_t *task, coll_single_t *c,
                                             const char *sendbuf, const coll_bytes_t *blocks,
                                             char *recvbuf, size_t my_count, int root) {
    shmcoll_channel_t *ch = task->ch;
    const shmcoll_team_t *team = task->team;
    const int me = ch->rank;
    const size_t piece = coll_piece_per_member(ch->chunk, ch->size);
    /* The slot the root's step claims: its buffer where a block goes to a piece of it, or a
     * single-copy reader's displacement does (scatterv), else its eager slot where a block goes
     * there, else its inline area; derived again at every resumption, as cheap as keeping it. A
     * reader's way follows from its own size. */
    shmcoll_slot_t claim = SHMCOLL_SLOT_INLINE;
    for (int q = 0; me == root && q < ch->size; q++) {
        const size_t n = coll_bytes_count(blocks, q);
        if (q == me || !n) continue;
        const scatter_way_t way = scatter_way(team, ch, n, piece);
        if (way == SCATTER_PIECE || (way == SCATTER_SINGLE && blocks->counts))
            claim = SHMCOLL_SLOT_BUFFER;
        else if (way == SCATTER_EAGER && claim == SHMCOLL_SLOT_INLINE)
            claim = SHMCOLL_SLOT_EAGER;
    }
    const scatter_way_t my_way =
        me == root ? SCATTER_PIECE : scatter_way(team, ch, my_count, piece);
    SHMCOLL_RESUME_BEGIN(&c->pc);
    c->step = shmcoll_channel_next_step(ch);
    if (me == root) {
        SHMCOLL_AWAIT(task, &c->pc,
                      shmcoll_channel_test_claim_slot(ch, c->step, claim, &task->wait));
        c->exposed = 0;
        /* a single-copy reader's piece is free: its displacement goes there, where it fits */
        const size_t stride = blocks->counts && piece >= sizeof(size_t) ? piece : 0;
        for (int q = 0; q < ch->size; q++) {
            const size_t n = coll_bytes_count(blocks, q);
            if (q == me || !n) continue;
            const scatter_way_t way = scatter_way(team, ch, n, piece);
            if (way != SCATTER_SINGLE) {
                coll_copy(task, scatter_place(ch, me, c->step, q, way, piece),
                          sendbuf + coll_bytes_displ(blocks, q), n);
                continue;
            }
            c->exposed = 1;
            if (stride)
                memcpy(scatter_place(ch, me, c->step, q, SCATTER_PIECE, stride), &blocks->displs[q],
                       sizeof(size_t));
        }
        publish(ch, c->step, sendbuf, blocks->counts ? blocks->displs : NULL, stride);
        if (recvbuf) coll_copy(task, recvbuf, sendbuf + coll_bytes_displ(blocks, me), my_count);
        shmcoll_channel_ack(ch, c->step);
        if (c->exposed)
            SHMCOLL_AWAIT(task, &c->pc, shmcoll_channel_test_done(ch, c->step, &task->wait));
    } else if (!my_count) {
        shmcoll_channel_ack(ch, c->step);
    } else if (my_way == SCATTER_SINGLE) {
        SHMCOLL_AWAIT(task, &c->pc, shmcoll_channel_test_post(ch, root, c->step, &task->wait));
        uintptr_t from;
        SHMCOLL_CHECK(peer_block(task, root, c->step, me, blocks->bytes, &from));
        SHMCOLL_CHECK(transfer(task, root, c->step, recvbuf, from, my_count, 0));
        shmcoll_channel_ack(ch, c->step);
    } else {
        SHMCOLL_AWAIT(task, &c->pc, shmcoll_channel_test_post(ch, root, c->step, &task->wait));
        coll_copy_out(task, recvbuf, scatter_place(ch, root, c->step, me, my_way, piece), my_count);
        shmcoll_channel_ack(ch, c->step);
    }
    SHMCOLL_RESUME_END(&c->pc);
}

/* ---- The single-copy rows ------------------------------------------------------------------ */

/* Those of allgather(v), gather, gatherv (one-step), scatter, scatterv (one-step) and alltoall run
 * the bodies above through their collective's progress (allgather.c, gather.c, scatter.c,
 * alltoall.c), single-copy from the start. */
shmcoll_status_t shmcoll_coll_single_init(shmcoll_task_t *task) {
    *SHMCOLL_TASK_STATE(task, coll_pipeline_t) = (coll_pipeline_t){.single = 1};
    return single_usable(task);
}

/* bcast: the root exposes its buffer, every other member reads it whole. */
typedef struct bcast_single {
    uint64_t step;
} bcast_single_t;

static shmcoll_status_t bcast_single_init(shmcoll_task_t *task) {
    return single_usable(task);
}

static shmcoll_status_t bcast_single_progress(shmcoll_task_t *task) {
    bcast_single_t *s = SHMCOLL_TASK_STATE(task, bcast_single_t);
    shmcoll_channel_t *ch = task->ch;
    const int root = task->args->root;
    SHMCOLL_RESUME_BEGIN(&task->pc);
    s->step = shmcoll_channel_next_step(ch);
    if (ch->rank == root) {
        SHMCOLL_AWAIT(task, &task->pc, shmcoll_channel_test_claim(ch, s->step, &task->wait));
        publish(ch, s->step, task->args->recvbuf, NULL, 0);
        shmcoll_channel_ack(ch, s->step);
        SHMCOLL_AWAIT(task, &task->pc, shmcoll_channel_test_done(ch, s->step, &task->wait));
    } else {
        SHMCOLL_AWAIT(task, &task->pc, shmcoll_channel_test_post(ch, root, s->step, &task->wait));
        uintptr_t from;
        SHMCOLL_CHECK(peer_block(task, root, s->step, 0, 0, &from));
        SHMCOLL_CHECK(
            transfer(task, root, s->step, task->args->recvbuf, from, task->args->count, 0));
        shmcoll_channel_ack(ch, s->step);
    }
    SHMCOLL_RESUME_END(&task->pc);
}

const shmcoll_task_ops_t shmcoll_coll_bcast_single_ops = {.init = bcast_single_init,
                                                          .progress = bcast_single_progress};
