/* Access to team members' buffers in shared heaps: views through mapped arenas, pinned for the
 * task, and cross-memory attach where a mapping cannot be made. See heap_internal.h.
 *
 * The lane's scratch (core/team.h) holds the views of the running task: pointers [0, 2p) (send
 * buffers, then receive buffers) and ints [0, 2p) their pins, [2p, 4p) their states. */
#include "coll/heap_internal.h"
#include "heap/peer.h"
#include "shm/cma.h"

#include <string.h>

enum { VIEW_UNKNOWN, VIEW_MAPPED, VIEW_UNMAPPED, VIEW_OWN };

const coll_heap_buf_t *coll_heap_buf(shmcoll_task_t *task, int q, int which) {
    const coll_heap_post_t *post = coll_heap_post(task, q);
    if (which == COLL_HEAP_INPUT) which = post->in_place ? COLL_HEAP_RECV : COLL_HEAP_SEND;
    return &post->buf[which];
}

void coll_heap_views_reset(shmcoll_task_t *task) {
    const int p = task->ch->size;
    memset(task->lane->ints + 2 * p, 0, 2 * (size_t)p * sizeof *task->lane->ints);
    coll_heap_state(task)->scratch_ready = 1;
}

void coll_heap_views_release(shmcoll_task_t *task) {
    coll_heap_t *h = coll_heap_state(task);
    if (!h->scratch_ready) return;
    const int p = task->ch->size;
    int *ints = task->lane->ints;
    for (int i = 0; i < 2 * p; i++)
        if (ints[2 * p + i] == VIEW_MAPPED) shmcoll_heap_peer_unpin(ints[i]);
    h->scratch_ready = 0;
}

char *coll_heap_view(shmcoll_task_t *task, int q, int which) {
    const coll_heap_buf_t *buf = coll_heap_buf(task, q, which);
    const int p = task->ch->size;
    const int slot = (buf == &coll_heap_post(task, q)->buf[COLL_HEAP_RECV] ? p : 0) + q;
    int *ints = task->lane->ints;
    const void **ptrs = task->lane->ptrs;
    if (ints[2 * p + slot] == VIEW_UNKNOWN) {
        int state = VIEW_UNMAPPED;
        if (q == task->ch->rank) {
            ptrs[slot] = (const void *)buf->addr;
            state = VIEW_OWN;
        } else if (buf->ref.nonce) {
            ptrs[slot] = shmcoll_heap_peer_map(task->team->pids[q], &buf->ref, &ints[slot]);
            if (ptrs[slot]) state = VIEW_MAPPED;
        }
        ints[2 * p + slot] = state;
    }
    return ints[2 * p + slot] == VIEW_UNMAPPED ? NULL : (char *)ptrs[slot];
}

/* The copy kernel of the heap paths (not counted). Their copies go from buffer to buffer, with
 * no shared slot in the cache between: where the working set exceeds the usable cache (YHCCL's
 * rule) both ends are in memory and the destination is not read again soon, so the stores are
 * whichever kind this process measured faster for such copies (kernels.h) — unless SHMCOLL_NT
 * forces one; smaller working sets copy as coll_copy does. */
static void copy_raw(shmcoll_task_t *task, void *dst, const void *src, size_t n) {
    const shmcoll_team_t *team = task->team;
    const shmcoll_nt_mode_t mode = shmcoll_kernel_nt_mode();
    if (mode == SHMCOLL_NT_ALWAYS)
        shmcoll_kernel_copy_nt(dst, src, n);
    else if (mode == SHMCOLL_NT_AUTO && team->usable_cache &&
             task->working_set > team->usable_cache)
        shmcoll_kernel_copy_measured(dst, src, n);
    else if (task->working_set > team->memory_copy_min)
        shmcoll_kernel_copy_memory(dst, src, n);
    else
        shmcoll_kernel_copy(dst, src, n);
}

void coll_heap_copy(shmcoll_task_t *task, void *dst, const void *src, size_t n) {
    if (!n || dst == src) return;
    copy_raw(task, dst, src, n);
    task->dav += 2 * n;
}

/* n bytes between `local` and offset `at` of member q's buffer, with cross-memory attach. */
static shmcoll_status_t attach_copy(shmcoll_task_t *task, int q, const coll_heap_buf_t *buf,
                                    size_t at, void *local, size_t n, int write) {
    shmcoll_team_t *team = task->team;
    shmcoll_status_t status = shmcoll_cma_copy(team->pids[q], q, local, buf->addr + at, n, write,
                                               team->error, sizeof team->error);
    if (status == SHMCOLL_ERR_NOT_SUPPORTED)
        status = SHMCOLL_ERR_SYSTEM; /* too late to fall back */
    if (status != SHMCOLL_OK) return shmcoll_channel_fail(task->ch, status, q);
    task->dav += 2 * n;
    return SHMCOLL_OK;
}

shmcoll_status_t coll_heap_pull(shmcoll_task_t *task, int q, int which, size_t at, void *dst,
                                size_t n) {
    if (!n) return SHMCOLL_OK;
    const char *view = coll_heap_view(task, q, which);
    if (!view) return attach_copy(task, q, coll_heap_buf(task, q, which), at, dst, n, 0);
    coll_heap_copy(task, dst, view + at, n);
    return SHMCOLL_OK;
}

shmcoll_status_t coll_heap_push(shmcoll_task_t *task, int q, int which, size_t at, const void *src,
                                size_t n) {
    if (!n) return SHMCOLL_OK;
    char *view = coll_heap_view(task, q, which);
    if (!view) return attach_copy(task, q, coll_heap_buf(task, q, which), at, (void *)src, n, 1);
    coll_heap_copy(task, view + at, src, n);
    return SHMCOLL_OK;
}

shmcoll_status_t coll_heap_read(shmcoll_task_t *task, int q, int which, size_t at, size_t n,
                                void *bounce, const void **out) {
    const char *view = coll_heap_view(task, q, which);
    if (view) {
        *out = view + at;
        return SHMCOLL_OK;
    }
    *out = bounce;
    return n ? attach_copy(task, q, coll_heap_buf(task, q, which), at, bounce, n, 0) : SHMCOLL_OK;
}

/* ---- For the single-copy rows (coll/single_copy.c) ---------------------------------------- */

void shmcoll_coll_heap_locate(const shmcoll_task_t *task, const void *base,
                              shmcoll_heap_ref_t *ref) {
    if (task->team->heap)
        shmcoll_heap_ref(base, ref);
    else
        *ref = (shmcoll_heap_ref_t){0};
}

shmcoll_status_t shmcoll_coll_heap_transfer(shmcoll_task_t *task, int q,
                                            const shmcoll_heap_ref_t *ref, uintptr_t posted,
                                            uintptr_t remote, void *local, size_t n, int write) {
    const size_t at = remote - posted;
    if (!ref->nonce || !task->team->heap || remote < posted || at > ref->limit ||
        n > ref->limit - at)
        return SHMCOLL_ERR_NOT_SUPPORTED;
    int pin;
    char *view = shmcoll_heap_peer_map(task->team->pids[q], ref, &pin);
    if (!view) return SHMCOLL_ERR_NOT_SUPPORTED;
    if (write)
        copy_raw(task, view + at, local, n);
    else
        copy_raw(task, local, view + at, n);
    shmcoll_heap_peer_unpin(pin);
    return SHMCOLL_OK;
}
