/* Tasks: every collective in flight on a team is a task, one algorithm's resumable state machine
 * over one lane of the team (its own slots and step sequence).
 *
 * Life cycle (in the spirit of XHC's init/start/work/ack/fini and UCC's task progress):
 *   start     the caller (select/) fills the call's arguments and the chosen algorithm's ops;
 *             shmcoll_task_start runs ops->init, which checks what it can serve (NOT_SUPPORTED
 *             before any step, decided from arguments every member shares) and lays out the
 *             task's state; the task is then queued on the lane its start order gives it;
 *   progress  ops->progress advances as far as it can without waiting: it returns OK when the
 *             task is done, a failure, or IN_PROGRESS after a test found a flag not yet set
 *             (that flag is left in task->wait). It is called again later and resumes where it
 *             returned (the SHMCOLL_RESUME_* macros below);
 *   finish    once done, ops->fini frees what init took, the task leaves its lane and its DAV and
 *             algorithm name go into the team's counters.
 * Who drives progress: a blocking collective calls shmcoll_task_wait, which progresses the lane
 * and waits (spin, yield, bounded: shm/wait.h) on the one flag the lane's head is stopped at;
 * non-blocking callers call shmcoll_task_test now and then; shmcoll_engine_progress advances every
 * task in flight in the process (called while any member waits, so a peer's task never starves).
 *
 * Order: MPI orders collectives per communicator, so every member starts the team's tasks in the
 * same order; task n runs on lane n mod L, and a lane runs its tasks one after the other (a task
 * progresses only once those started before it on its lane are done). Tasks on different lanes
 * run at once, each with its own slots.
 *
 * Everything a task's path depends on is a function of the shared arguments and of facts all
 * members agree on (team shape, flags they post): no member decides alone. */
#ifndef SHMCOLL_CORE_TASK_H
#define SHMCOLL_CORE_TASK_H

#include "base/status.h"
#include "core/coll_args.h"
#include "core/team.h"
#include "shm/wait.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes of algorithm state a task carries (task->state): the largest algorithm's, checked at
 * compile time wherever an algorithm takes its state (SHMCOLL_TASK_STATE). */
#define SHMCOLL_TASK_STATE_BYTES 768

typedef struct shmcoll_task shmcoll_task_t;

typedef struct shmcoll_task_ops {
    /* Before any step: OK with task->state set up, NOT_SUPPORTED or INVALID (arguments no
     * algorithm of this row can serve; every member alike), or a local failure (an allocation),
     * which the engine publishes so the other members stop instead of waiting for this one. */
    shmcoll_status_t (*init)(shmcoll_task_t *task);
    /* OK when done, IN_PROGRESS (task->wait set) or a failure. Never waits. */
    shmcoll_status_t (*progress)(shmcoll_task_t *task);
    /* Frees what init took; may be NULL. Runs once a task that init accepted is done, failed or
     * not (an init that fails frees what it took itself). */
    void (*fini)(shmcoll_task_t *task);
} shmcoll_task_ops_t;

struct shmcoll_pattern_radix;

/* What a registry row adds to the arguments: the variant of its algorithm. */
typedef struct shmcoll_task_params {
    int radix;                                   /* k-nomial trees */
    const struct shmcoll_pattern_radix *factors; /* multi-radix: NULL for the default one */
    /* A wrapping row (select/registry.h) and its inner algorithm: the row it runs, in the same
     * task, when the call does not qualify for it; its state is task->state, the wrapper's its
     * own (task->wrapper). A wrapping row's task carries its inner row's params above. */
    int wraps;
    const shmcoll_task_ops_t *inner;
    const char *inner_name;
    /* The heap rows' task on buffers wherever they lie (the single-copy reductions): peers'
     * buffers outside a shared heap through cross-memory attach, no agreement to say no. */
    int attach;
} shmcoll_task_params_t;

/* Bytes of a wrapping row's own state (task->wrapper). */
#define SHMCOLL_TASK_WRAPPER_BYTES 256

struct shmcoll_task {
    shmcoll_team_t *team;
    shmcoll_lane_t *lane;
    shmcoll_channel_t *ch;           /* the lane's channel */
    const shmcoll_coll_args_t *args; /* the caller's, valid until the task is done */
    const shmcoll_task_ops_t *ops;
    shmcoll_task_params_t params;
    const char *algo; /* reported in statistics: the row's name, refined by the algorithm */
    const char *name; /* the collective, for messages ("allreduce") */
    int nonblocking;  /* advanced by the engine too, not only by its caller's wait */
    int blocking;     /* waits in place at an unset flag (SHMCOLL_AWAIT) instead of returning */

    int pc;                  /* resume point of ops->progress */
    shmcoll_status_t status; /* IN_PROGRESS until done */
    shmcoll_wait_t wait;     /* the flag progress stopped at */
    /* The algorithm's working set W (YHCCL; coll/coll_internal.h) and the bytes its kernels
     * loaded and stored. */
    size_t working_set;
    uint64_t dav;

    shmcoll_task_t *next;   /* on its lane */
    double waiting_since;   /* non-blocking tests: when the current wait began ... */
    double last_check;      /* ... and when the peer was last checked */
    uint64_t waiting_value; /* the wait those times belong to */
    const shmcoll_flag_t *waiting_flag;

    _Alignas(64) unsigned char state[SHMCOLL_TASK_STATE_BYTES];
    _Alignas(64) unsigned char wrapper[SHMCOLL_TASK_WRAPPER_BYTES];
};

/* The algorithm's state inside the task, a `type` that must fit it: the check is made here, at
 * compile time, so every algorithm's state is checked by the one line that takes it. */
#define SHMCOLL_TASK_STATE(task, type)                                                             \
    ((void)sizeof(struct {                                                                         \
         _Static_assert(sizeof(type) <= SHMCOLL_TASK_STATE_BYTES, #type " fits a task's state");   \
         char fits;                                                                                \
     }),                                                                                           \
     (type *)(void *)(task)->state)

/* Starts `task` on `team`: task->args, ops, params, algo and name are set by the caller. Runs
 * ops->init on the lane the task's start order gives; NOT_SUPPORTED (nothing started, nothing
 * queued, every member alike) or OK (queued). A failed team returns its failure. */
shmcoll_status_t shmcoll_task_start(shmcoll_team_t *team, shmcoll_task_t *task);

/* Advances the tasks of `task`'s lane, in order, up to `task`, without waiting: OK or the
 * failure once `task` is done, else IN_PROGRESS. */
shmcoll_status_t shmcoll_task_progress(shmcoll_task_t *task);

/* The same, and now and then the checks of a waiting member: a dead or stuck peer, or one that
 * gave up, fails the task after the timeout or at once, as a blocking wait would. */
shmcoll_status_t shmcoll_task_test(shmcoll_task_t *task);

/* Starts `task` (as shmcoll_task_start) and runs it to its end: a blocking collective. */
shmcoll_status_t shmcoll_task_run(shmcoll_team_t *team, shmcoll_task_t *task);

/* A waiter for waits outside any task on the team's first lane (its mailboxes, shm/channel.h):
 * lane 0's, whose waits advance the process's tasks in flight and let the MPI library progress
 * as a task's waits do; `op` names the wait in errors. */
void shmcoll_team_waiter(shmcoll_team_t *team, const char *op, shmcoll_waiter_t *out);

/* Runs `task` to its end, waiting (bounded) on whatever flag its lane stops at. */
shmcoll_status_t shmcoll_task_wait(shmcoll_task_t *task);

/* Advances every task in flight in this process a little, without waiting (every team, every
 * lane), then what the layers above have in flight (the hook). Called by waiting members and by
 * the MPI layer's progress. */
void shmcoll_engine_progress(void);

/* The lanes only, calling nothing of the layers above: safe from any thread and from inside the
 * MPI library's own progress (the progress thread, the MPI library's progress hook). Costs one
 * load while no non-blocking task is in flight. */
void shmcoll_engine_progress_quiet(void);

/* Non-blocking tasks queued on any lane of the process (task.c keeps the count). */
extern atomic_int shmcoll_engine_tasks;

/* Whether any lane of the process holds a non-blocking task: one load, inline, so that a hook in
 * the MPI library's progress loop, which runs on every poll, costs no call while there is none. */
static inline int shmcoll_engine_busy(void) {
    return atomic_load_explicit(&shmcoll_engine_tasks, memory_order_relaxed) > 0;
}

/* The team's lanes leave the engine and no thread drives them any more: called before a team is
 * destroyed that other threads' passes may have seen. */
void shmcoll_engine_forget(shmcoll_team_t *team);

/* What shmcoll_engine_progress also advances: collectives of the layers above in flight
 * (composed collectives across nodes, requests), set once by the layer that has them. */
void shmcoll_engine_set_hook(void (*hook)(void));

/* Waits (bounded) for the flag in task->wait, as a blocking task does in place of returning:
 * OK once it is set (at once without a flag: a forced return, SHMCOLL_RESUME_CHECK), else the
 * failure (named in team->error). */
shmcoll_status_t shmcoll_task_block(shmcoll_task_t *task);

/* ---- Resumable functions ---------------------------------------------------------------------
 * A progress function (or a helper it calls, with its own resume point) reads like straight-line
 * code that waits:
 *     SHMCOLL_RESUME_BEGIN(&s->pc);
 *     for (s->i = 0; s->i < n; s->i++) {
 *         SHMCOLL_AWAIT(task, &s->pc, shmcoll_channel_test_post(ch, peer, step, &task->wait));
 *         ...work...
 *     }
 *     SHMCOLL_RESUME_END(&s->pc);
 * SHMCOLL_AWAIT returns what its test returned unless that is OK; called again, the function
 * jumps back to the test (a switch over the resume point, which is the line number). A blocking
 * task (task->blocking: a blocking collective alone on its lane) waits in place instead, with
 * the bounded wait its driver would make after the return, so its path between a flag and the
 * work behind it stays as short as straight-line code's. Values
 * that must live across an AWAIT are kept in the state (s->i above), never in locals; a test
 * must be safe to repeat. SHMCOLL_RESUME_END resets the resume point, so a helper can run again.
 * With SHMCOLL_RESUME_CHECK defined (the sanitizer build), every AWAIT returns once before its
 * test, so the tests exercise every resume point. */
#ifdef SHMCOLL_RESUME_CHECK
#define SHMCOLL_RESUME_FORCED() 1 /* returns with task->wait.flag NULL: progress again */
#else
#define SHMCOLL_RESUME_FORCED() 0
#endif

#define SHMCOLL_RESUME_BEGIN(pc)                                                                   \
    switch (*(pc)) {                                                                               \
    case 0:

#define SHMCOLL_AWAIT(task, pc, test)                                                              \
    do {                                                                                           \
        *(pc) = __LINE__;                                                                          \
        if (SHMCOLL_RESUME_FORCED()) {                                                             \
            (task)->wait.flag = NULL;                                                              \
            return SHMCOLL_IN_PROGRESS;                                                            \
        }                                                                                          \
        __attribute__((fallthrough));                                                              \
    case __LINE__:;                                                                                \
        shmcoll_status_t await_status_;                                                            \
        while ((await_status_ = (test)) == SHMCOLL_IN_PROGRESS && (task)->blocking &&              \
               (await_status_ = shmcoll_task_block(task)) == SHMCOLL_OK)                           \
            ;                                                                                      \
        if (await_status_ != SHMCOLL_OK) return await_status_;                                     \
    } while (0)

/* The same for a test that waits itself where waiting is wanted (composed collectives). */
#define SHMCOLL_AWAIT_TEST(pc, test)                                                               \
    do {                                                                                           \
        *(pc) = __LINE__;                                                                          \
        if (SHMCOLL_RESUME_FORCED()) return SHMCOLL_IN_PROGRESS;                                   \
        __attribute__((fallthrough));                                                              \
    case __LINE__:;                                                                                \
        shmcoll_status_t await_status_ = (test);                                                   \
        if (await_status_ != SHMCOLL_OK) return await_status_;                                     \
    } while (0)

#define SHMCOLL_RESUME_END(pc)                                                                     \
    }                                                                                              \
    *(pc) = 0;                                                                                     \
    return SHMCOLL_OK

#endif
