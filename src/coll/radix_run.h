/* What the multi-radix allreduces (recexch.c, cyclic.c) share around their schedules: the state
 * of a run (task->state), its init (arguments checked, scratch laid out) and the resumable driver
 * that serves p = 1 and walks the vector in rounds of at most one buffer, each round through its
 * 2n + 1 steps. The driver makes every wait itself (one level of resume points, core/task.h); the
 * algorithm's step functions (coll_radix_steps_t) never wait: they say whether a step claims,
 * whose posts it waits for, and do the copies and folds between the waits. Per round:
 *   step 0           if publish_writes: claim; publish. Post.
 *   reduce-scatter   (n steps) if reduce_scatter_begin: wait for the post of step - 1 of each
 *                    operand i's peer (reduce_scatter_peer, ascending i); claim; reduce_scatter.
 *                    Post; ack step - 1.
 *   allgather        (n steps) if allgather_begin: claim. For each part i: skip it if
 *                    allgather_peer is -1, else wait for that peer's post of step - 1 (unless it
 *                    is this member) and allgather_copy. Post (but the last step); ack step - 1.
 *   then ack the last step. */
#ifndef SHMCOLL_COLL_RADIX_RUN_H
#define SHMCOLL_COLL_RADIX_RUN_H

#include "coll/coll_internal.h"
#include "coll/radix_default.h"
#include "patterns/radix.h"

typedef struct coll_radix_steps coll_radix_steps_t;

typedef struct coll_radix_run {
    const coll_radix_steps_t *steps; /* the algorithm's */
    shmcoll_pattern_radix_t f;       /* the factorisation */
    int use_inline;
    size_t per;         /* elements per round */
    int *members;       /* [largest radix] lane scratch: a step's group */
    const void **bases; /* [largest radix] lane scratch: operand buffers, laid out as the round */
    const void **x;     /* [largest radix] lane scratch: fold operands */
    /* The current round and step. */
    size_t first;         /* the round's first element in the vector */
    const char *input;    /* the round's input ... */
    char *recvbuf;        /* ... and where its result goes */
    coll_blocks_t blocks; /* of the current round */
    uint64_t step;
    int k;    /* the step's index in its phase (reduce-scatter or allgather) */
    int j;    /* the radix the step uses */
    int last; /* the last allgather step: it fills recvbuf */
    int i;    /* operand or part of the step */
    int peer; /* whose post operand or part i waits for */
    int d;    /* recursive exchange: this member's digit in the step's group */
} coll_radix_run_t;

/* An algorithm's steps (see above); run->j, run->step, run->last and the round's fields are set
 * when they are called. */
struct coll_radix_steps {
    shmcoll_coll_radix_kind_t kind; /* the pattern: its default factorisations and their check */
    /* The reduce-scatter walks the radices from the last to the first (cyclic shift), or from the
     * first to the last (recursive exchange); the allgather the other way. */
    int reduce_scatter_down;
    int (*publish_writes)(shmcoll_task_t *task, coll_radix_run_t *run);
    void (*publish)(shmcoll_task_t *task, coll_radix_run_t *run);
    /* Sets up the step (e.g. its group in run->members); whether this member folds anything. */
    int (*reduce_scatter_begin)(shmcoll_task_t *task, coll_radix_run_t *run);
    /* The peer operand i (< radix) waits for, or -1 (none). */
    int (*reduce_scatter_peer)(shmcoll_task_t *task, coll_radix_run_t *run, int i);
    void (*reduce_scatter)(shmcoll_task_t *task, coll_radix_run_t *run);
    /* Sets up the step; whether this member claims (never in the last step). */
    int (*allgather_begin)(shmcoll_task_t *task, coll_radix_run_t *run);
    /* The peer part i (< radix) comes from (this member: no wait), or -1 (nothing to copy). */
    int (*allgather_peer)(shmcoll_task_t *task, coll_radix_run_t *run, int i);
    void (*allgather_copy)(shmcoll_task_t *task, coll_radix_run_t *run, int i);
};

/* The steps of an algorithm from the static step functions of its file, which bear the names of
 * the fields they fill: every algorithm has them all, so their table is written once, here.
 * `pattern` is the kind, `down` reduce_scatter_down. */
#define COLL_RADIX_STEPS(pattern, down)                                                            \
    {                                                                                              \
        .kind = (pattern), .reduce_scatter_down = (down), .publish_writes = publish_writes,        \
        .publish = publish, .reduce_scatter_begin = reduce_scatter_begin,                          \
        .reduce_scatter_peer = reduce_scatter_peer, .reduce_scatter = reduce_scatter,              \
        .allgather_begin = allgather_begin, .allgather_peer = allgather_peer,                      \
        .allgather_copy = allgather_copy                                                           \
    }

/* The run of `steps` over params.factors, or the default factorisation of the team size for
 * steps->kind, laid out in task->state: INVALID (every member alike, before any step) unless the
 * pattern's check accepts the factorisation for the team size (so no radix exceeds p and the
 * scratch fits the lane's), NOT_SUPPORTED for an op without a usable function or a buffer
 * smaller than an element. */
shmcoll_status_t shmcoll_coll_radix_init(shmcoll_task_t *task, const coll_radix_steps_t *steps);

/* The progress of the run laid out by init: both algorithms' ops->progress. */
shmcoll_status_t shmcoll_coll_radix_progress(shmcoll_task_t *task);

#endif
