/* What the heap collectives' files share (coll/heap.h): the posts of the agreement step, the
 * wrapper's state, and access to peers' buffers through mapped arenas. */
#ifndef SHMCOLL_COLL_HEAP_INTERNAL_H
#define SHMCOLL_COLL_HEAP_INTERNAL_H

#include "coll/coll_internal.h"
#include "coll/heap.h"

/* A member's buffers, as it posts them. */
enum { COLL_HEAP_SEND, COLL_HEAP_RECV, COLL_HEAP_INPUT /* send, or recv in place */ };

/* The path all members take after the agreement, from all posts alike (heap_agree.c). */
typedef enum coll_heap_mode {
    COLL_HEAP_NONE,   /* some buffer is not in a heap: the inner row runs */
    COLL_HEAP_PULL,   /* members read from peers' buffers into their own */
    COLL_HEAP_PUSH,   /* members write from their own buffers into peers' */
    COLL_HEAP_SPLIT,  /* bcast: the root writes a first share into every buffer, members read
                         the rest */
    COLL_HEAP_REDUCE, /* reductions read their inputs where they lie */
} coll_heap_mode_t;

typedef struct coll_heap_buf {
    uintptr_t addr; /* in its owner; 0: none */
    shmcoll_heap_ref_t ref;
} coll_heap_buf_t;

/* What every member writes into its slot of the agreement step. */
typedef struct coll_heap_post {
    coll_heap_buf_t buf[2]; /* COLL_HEAP_SEND, COLL_HEAP_RECV */
    int in_place;           /* the input is the receive buffer */
} coll_heap_post_t;

/* The wrapper's state (task->wrapper); the inner row's is task->state. */
typedef struct coll_heap {
    int pc;  /* of the wrapper */
    int bpc; /* of the body */
    int i;
    int mode;
    int inner_ready;   /* the inner row's init ran: its fini is owed */
    int scratch_ready; /* the lane's scratch holds this task's views (pins to release) */
    uint64_t step;     /* the agreement's */
    uint64_t step2;    /* the reductions' second step */
} coll_heap_t;

_Static_assert(sizeof(coll_heap_t) <= SHMCOLL_TASK_WRAPPER_BYTES, "heap wrapper state");

static inline coll_heap_t *coll_heap_state(shmcoll_task_t *task) {
    return (coll_heap_t *)(void *)task->wrapper;
}

/* Member q's post of the agreement step. */
static inline const coll_heap_post_t *coll_heap_post(shmcoll_task_t *task, int q) {
    return (const coll_heap_post_t *)shmcoll_channel_buffer(task->ch, q,
                                                            coll_heap_state(task)->step);
}

/* Member q's buffer `which` as posted (COLL_HEAP_INPUT: its send buffer, or in place its
 * receive buffer). */
const coll_heap_buf_t *coll_heap_buf(shmcoll_task_t *task, int q, int which);

/* ---- Access to peers' buffers (heap_access.c) ----------------------------------------------
 * Each peer buffer is mapped at its first use in the task and stays pinned to its end (the
 * lane's scratch remembers the views); when a mapping cannot be made, the copies go through
 * cross-memory attach at the owner's addresses, the same data by another road, so every member
 * still takes the agreed path. A copy that fails (a peer died) is published on the channel. */

/* Forgets the views of a previous task (after the agreement, before any access). */
void coll_heap_views_reset(shmcoll_task_t *task);
/* Unpins what this task mapped (its fini). */
void coll_heap_views_release(shmcoll_task_t *task);

/* Member q's buffer `which` here: its address in this process (own buffers as they are, peers'
 * mapped), or NULL when it is not mapped (then the copies below use cross-memory attach). */
char *coll_heap_view(shmcoll_task_t *task, int q, int which);

/* n bytes at offset `at` of member q's buffer `which` into dst (pull) or from src (push). */
shmcoll_status_t coll_heap_pull(shmcoll_task_t *task, int q, int which, size_t at, void *dst,
                                size_t n);
shmcoll_status_t coll_heap_push(shmcoll_task_t *task, int q, int which, size_t at, const void *src,
                                size_t n);

/* A pointer to n bytes at offset `at` of member q's buffer `which`: where it is mapped, else a
 * copy read into `bounce`. */
shmcoll_status_t coll_heap_read(shmcoll_task_t *task, int q, int which, size_t at, size_t n,
                                void *bounce, const void **out);

/* A copy of the heap path into a buffer the application reads next: streaming stores where the
 * working set exceeds the cache (coll_copy_out's rule), counted in the DAV. */
void coll_heap_copy(shmcoll_task_t *task, void *dst, const void *src, size_t n);

/* ---- The bodies, after the agreement (resumable with coll_heap_state(task)->bpc) -------- */

shmcoll_status_t coll_heap_move(shmcoll_task_t *task);   /* heap_move.c */
shmcoll_status_t coll_heap_reduce(shmcoll_task_t *task); /* heap_reduce.c */

#endif
