/* Drivers of tasks: starting them on their lane, advancing a lane in order, the blocking wait,
 * the non-blocking test with its liveness checks, and the process-wide engine that advances the
 * non-blocking tasks while anybody waits. See task.h. */
#include "core/task.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- Claims: one thread drives a lane at a time --------------------------------------------
 * A lane's queue, its head's resume point and its scratch are advanced by whichever thread claims
 * the lane: the application's thread testing or waiting for one of its tasks, another thread's
 * engine pass, the progress thread, the MPI library's progress hook. A claim never waits for a
 * peer: whoever holds it makes bounded progress and lets go, except the owner of a task at the
 * head of its lane, which runs it to its end in place (a blocking collective's path). A thread
 * that finds the lane claimed goes on with something else, or yields and asks again. The claim
 * also keeps a progress function that re-enters shmcoll through MPI off its own lane. A task's
 * status is read only under its lane's claim: its driver sets it, then finishes the task (fini,
 * the team's counters), then lets go, so a caller that sees it done may free the task. */

static int lane_claim(shmcoll_lane_t *lane) {
    return !atomic_exchange_explicit(&lane->busy, 1, memory_order_acquire);
}

static void lane_release(shmcoll_lane_t *lane) {
    atomic_store_explicit(&lane->busy, 0, memory_order_release);
}

/* ---- The engine: lanes holding non-blocking tasks ----------------------------------------
 * A lane joins the list with its first non-blocking task and stays while it has any, or until a
 * pass finds it without (it leaves then, lazily, so that a stream of MPI_Iallreduce + MPI_Wait
 * takes no lock per call). A pass holds engine_lock throughout, so a lane leaves the list (and
 * its team may be destroyed) only between passes; a lane that joins inside a pass does so
 * through the same thread, which then holds the lock already (in_pass). Other threads never
 * wait for a pass: they skip it. shmcoll_engine_tasks counts the non-blocking tasks queued
 * anywhere: a pass with none is one load. */

static pthread_mutex_t engine_lock = PTHREAD_MUTEX_INITIALIZER;
static shmcoll_lane_t **engine_lanes;
static int engine_count, engine_capacity;
atomic_int shmcoll_engine_tasks; /* non-blocking tasks queued on any lane (task.h) */
/* The layers above: what they have in flight. Set by the first thread that needs it while others
 * may already be waiting in a progress pass, hence atomic. */
static void (*_Atomic engine_hook)(void);
static __thread int in_pass;

static void engine_lock_take(void) {
    if (!in_pass) pthread_mutex_lock(&engine_lock);
}

static void engine_lock_give(void) {
    if (!in_pass) pthread_mutex_unlock(&engine_lock);
}

static shmcoll_status_t engine_add(shmcoll_lane_t *lane) {
    shmcoll_status_t status = SHMCOLL_OK;
    if (atomic_load_explicit(&lane->listed, memory_order_acquire)) return status;
    engine_lock_take();
    if (engine_count == engine_capacity) {
        int capacity = engine_capacity ? 2 * engine_capacity : 16;
        shmcoll_lane_t **grown = realloc(engine_lanes, (size_t)capacity * sizeof *grown);
        if (grown)
            engine_lanes = grown, engine_capacity = capacity;
        else
            status = SHMCOLL_ERR_NO_MEMORY;
    }
    if (status == SHMCOLL_OK && !atomic_load_explicit(&lane->listed, memory_order_relaxed)) {
        engine_lanes[engine_count++] = lane;
        atomic_store_explicit(&lane->listed, 1, memory_order_release);
    }
    engine_lock_give();
    return status;
}

/* Lane i leaves the list (engine_lock held). */
static void engine_drop(int i) {
    atomic_store_explicit(&engine_lanes[i]->listed, 0, memory_order_release);
    engine_lanes[i] = engine_lanes[--engine_count];
}

void shmcoll_engine_forget(shmcoll_team_t *team) {
    engine_lock_take();
    for (int i = 0; i < engine_count;)
        if (engine_lanes[i] >= team->lanes && engine_lanes[i] < team->lanes + SHMCOLL_MAX_LANES)
            engine_drop(i);
        else
            i++;
    engine_lock_give();
    /* A thread that still drives one of its lanes (finishing a task it found done) lets go
     * before the team's memory goes. */
    for (int l = 0; l < SHMCOLL_MAX_LANES; l++)
        while (!lane_claim(&team->lanes[l])) sched_yield();
}

/* ---- One lane (its claim held) ------------------------------------------------------------- */

static void lane_push(shmcoll_lane_t *lane, shmcoll_task_t *task) {
    task->next = NULL;
    if (lane->tail)
        lane->tail->next = task;
    else
        lane->head = task;
    lane->tail = task;
}

/* A task is done (task->status): what init took is freed, its counters go to the team. */
static void task_finished(shmcoll_task_t *task) {
    if (task->ops->fini) task->ops->fini(task);
    shmcoll_team_t *team = task->team;
    shmcoll_lane_t *lane = task->lane; /* claimed by this thread */
    __atomic_store_n(&lane->dav, lane->dav + task->dav, __ATOMIC_RELAXED);
    if (task->status == SHMCOLL_OK)
        __atomic_store_n(&team->last_algo, task->algo, __ATOMIC_RELAXED);
    else if (!team->failed)
        team->failed = task->status; /* the protocol state is unknown now: sticky */
}

/* The head is done: it leaves the lane. */
static void lane_pop(shmcoll_lane_t *lane) {
    shmcoll_task_t *task = lane->head;
    lane->head = task->next;
    if (!lane->head) lane->tail = NULL;
    task_finished(task);
    if (task->nonblocking) {
        lane->nonblocking--;
        atomic_fetch_sub_explicit(&shmcoll_engine_tasks, 1, memory_order_relaxed);
    }
}

/* Runs the head's progress once. A failed team fails every task still queued. */
static void lane_step(shmcoll_lane_t *lane) {
    shmcoll_task_t *head = lane->head;
    if (head->team->failed) {
        head->status = head->team->failed;
        return;
    }
    head->wait.flag = NULL;
    head->ch->waiter.op = head->name;
    head->status = head->ops->progress(head);
}

/* Advances the lane until `until` is done (NULL: as far as it goes) or its head must wait. */
static void lane_run(shmcoll_lane_t *lane, const shmcoll_task_t *until) {
    while (lane->head) {
        shmcoll_task_t *head = lane->head;
        lane_step(lane);
        if (head->status == SHMCOLL_IN_PROGRESS) {
            if (head->wait.flag) break; /* else a forced resume (SHMCOLL_RESUME_CHECK) */
            continue;
        }
        lane_pop(lane);
        if (head == until) break;
    }
}

/* The same, unless another thread drives the lane now: 0 then. */
static int lane_advance(shmcoll_lane_t *lane, const shmcoll_task_t *until) {
    if (!lane_claim(lane)) return 0;
    lane_run(lane, until);
    lane_release(lane);
    return 1;
}

/* ---- Tasks --------------------------------------------------------------------------------- */

/* While a member waits: advance the process's tasks in flight (a peer may be waiting for one of
 * them), then let the MPI library progress the caller's other requests (team->progress). */
static void wait_progress(void *ctx) {
    shmcoll_team_t *team = ctx;
    shmcoll_engine_progress();
    if (team->progress) team->progress(team->progress_ctx);
}

void shmcoll_team_waiter(shmcoll_team_t *team, const char *op, shmcoll_waiter_t *out) {
    *out = team->lanes[0].channel.waiter;
    out->progress = wait_progress;
    out->progress_ctx = team;
    out->op = op;
}

/* Lays the task on `lane` and runs its init. A failure of init (an allocation) is published in
 * the lane's failure block, so the other members stop at once instead of waiting for this one. */
static shmcoll_status_t task_init(shmcoll_team_t *team, shmcoll_lane_t *lane,
                                  shmcoll_task_t *task) {
    task->team = team;
    task->lane = lane;
    task->ch = &lane->channel;
    task->ch->waiter.progress = wait_progress;
    task->ch->waiter.progress_ctx = team;
    task->pc = 0;
    task->blocking = 0;
    task->wait.flag = NULL;
    task->working_set = 0;
    task->dav = 0;
    shmcoll_status_t status = task->ops->init(task);
    if (status != SHMCOLL_OK && status != SHMCOLL_ERR_NOT_SUPPORTED &&
        status != SHMCOLL_ERR_INVALID) {
        snprintf(team->error, sizeof team->error, "%s: rank %d could not set up (%s)", task->name,
                 team->rank, shmcoll_status_string(status));
        team->failed = shmcoll_channel_fail(task->ch, status, team->rank);
    }
    /* NOT_SUPPORTED, INVALID (arguments every member shares, e.g. a factorisation that does not
     * fit the team): nothing started, on any member */
    return status;
}

/* The task takes its place in the team's order. */
static void task_counted(shmcoll_team_t *team, shmcoll_task_t *task) {
    team->started++;
    team->next_lane = team->next_lane + 1 < team->nlanes ? team->next_lane + 1 : 0;
    task->status = SHMCOLL_IN_PROGRESS;
}

/* Claims `lane`, yielding while another thread's pass holds it (passes never wait). */
static void lane_claim_wait(shmcoll_lane_t *lane) {
    while (!lane_claim(lane)) sched_yield();
}

shmcoll_status_t shmcoll_task_start(shmcoll_team_t *team, shmcoll_task_t *task) {
    if (team->failed) return team->failed;
    shmcoll_lane_t *lane = &team->lanes[team->next_lane];
    task->wait.flag = NULL;
    task->waiting_flag = NULL;
    SHMCOLL_CHECK(task_init(team, lane, task));
    lane_claim_wait(lane);
    if (task->nonblocking) {
        shmcoll_status_t status = engine_add(lane);
        if (status != SHMCOLL_OK) {
            lane_release(lane);
            if (task->ops->fini) task->ops->fini(task);
            return status;
        }
        lane->nonblocking++;
        atomic_fetch_add_explicit(&shmcoll_engine_tasks, 1, memory_order_relaxed);
    }
    task_counted(team, task);
    lane_push(lane, task);
    lane_release(lane);
    return SHMCOLL_OK;
}

/* Runs `task`, the head of its lane (the lane claimed), to its end: it waits in place at every
 * unset flag, as a blocking collective does. */
static shmcoll_status_t run_in_place(shmcoll_lane_t *lane, shmcoll_task_t *task) {
    task->blocking = 1;
    lane_run(lane, task);
    return task->status;
}

shmcoll_status_t shmcoll_task_run(shmcoll_team_t *team, shmcoll_task_t *task) {
    if (team->failed) return team->failed;
    shmcoll_lane_t *lane = &team->lanes[team->next_lane];
    task->nonblocking = 0;
    lane_claim_wait(lane);
    if (lane->head) { /* behind tasks still in flight on its lane: in order */
        lane_release(lane);
        SHMCOLL_CHECK(shmcoll_task_start(team, task));
        return shmcoll_task_wait(task);
    }
    /* Alone on its lane: run it directly, the lane claimed throughout, waiting on the flag it
     * stops at with nothing in between, since its latency is the collective's. */
    shmcoll_status_t status = task_init(team, lane, task);
    if (status == SHMCOLL_OK) {
        task_counted(team, task);
        task->blocking = 1;
        do /* returns IN_PROGRESS only when forced to (SHMCOLL_RESUME_CHECK) */
            status = task->ops->progress(task);
        while (status == SHMCOLL_IN_PROGRESS);
        task->status = status;
        task_finished(task);
    }
    lane_release(lane);
    return status;
}

shmcoll_status_t shmcoll_task_block(shmcoll_task_t *task) {
    if (!task->wait.flag) return SHMCOLL_OK;
    task->ch->waiter.op = task->name;
    return shmcoll_shm_wait_geq(task->wait.flag, task->wait.value, task->wait.peer,
                                &task->ch->waiter);
}

shmcoll_status_t shmcoll_task_progress(shmcoll_task_t *task) {
    shmcoll_lane_t *lane = task->lane;
    if (!lane) return task->status; /* never started (a composition's unused phase) */
    if (!lane_claim(lane)) return SHMCOLL_IN_PROGRESS; /* another thread drives it: later */
    if (task->status == SHMCOLL_IN_PROGRESS) lane_run(lane, task);
    const shmcoll_status_t status = task->status;
    lane_release(lane);
    return status;
}

/* A wait found a peer dead or stuck (named in team->error): the team is failed for good, and
 * the lane's tasks up to `task` end with the failure (the lane claimed). */
static shmcoll_status_t fail_lane(shmcoll_task_t *task, shmcoll_status_t status) {
    if (!task->team->failed) task->team->failed = status;
    lane_run(task->lane, task);
    return task->status;
}

/* A wait the task is stopped at has lasted long enough to look at the peers again. */
#define CHECK_INTERVAL 0.05

/* The checks of a waiting member for the lane's head (the lane claimed, `task` not done). */
static shmcoll_status_t check_head(shmcoll_task_t *task) {
    shmcoll_task_t *head = task->lane->head;
    if (!head->wait.flag) return SHMCOLL_IN_PROGRESS;
    const double now = shmcoll_shm_now();
    if (head->waiting_flag != head->wait.flag || head->waiting_value != head->wait.value) {
        head->waiting_flag = head->wait.flag; /* a new wait: its clock starts now */
        head->waiting_value = head->wait.value;
        head->waiting_since = head->last_check = now;
        return SHMCOLL_IN_PROGRESS;
    }
    if (now - head->last_check < CHECK_INTERVAL) return SHMCOLL_IN_PROGRESS;
    head->last_check = now;
    const shmcoll_status_t status =
        shmcoll_shm_wait_check(&head->wait, &head->ch->waiter, now - head->waiting_since);
    if (status != SHMCOLL_OK) return fail_lane(task, status);
    lane_run(task->lane, task);
    return task->status;
}

shmcoll_status_t shmcoll_task_test(shmcoll_task_t *task) {
    shmcoll_lane_t *lane = task->lane;
    if (!lane) return task->status;
    if (!lane_claim(lane)) return SHMCOLL_IN_PROGRESS;
    if (task->status == SHMCOLL_IN_PROGRESS) lane_run(lane, task);
    shmcoll_status_t status = task->status;
    if (status == SHMCOLL_IN_PROGRESS) status = check_head(task);
    lane_release(lane);
    return status;
}

shmcoll_status_t shmcoll_task_wait(shmcoll_task_t *task) {
    shmcoll_lane_t *lane = task->lane;
    if (!lane) return task->status;
    for (;;) {
        lane_claim_wait(lane);
        if (task->status == SHMCOLL_IN_PROGRESS) lane_run(lane, task);
        shmcoll_status_t status = task->status;
        if (status == SHMCOLL_IN_PROGRESS && lane->head == task)
            status = run_in_place(lane, task); /* its turn: the fastest path, as if blocking */
        if (status != SHMCOLL_IN_PROGRESS) {
            lane_release(lane);
            return status;
        }
        shmcoll_task_t *head = lane->head;
        const shmcoll_wait_t w = head->wait;
        lane_release(lane);
        if (!w.flag) continue; /* a forced resume (SHMCOLL_RESUME_CHECK) */
        /* Waits without the claim: the flag's word stays valid (the team outlives its tasks),
         * and the engine may advance the lane meanwhile. */
        status = shmcoll_shm_wait_geq(w.flag, w.value, w.peer, &lane->channel.waiter);
        if (status != SHMCOLL_OK) {
            lane_claim_wait(lane);
            status = task->status == SHMCOLL_IN_PROGRESS ? fail_lane(task, status) : task->status;
            lane_release(lane);
            return status;
        }
    }
}

void shmcoll_engine_progress_quiet(void) {
    static unsigned rotor; /* with many lanes, each pass starts at a different one */
    enum { BATCH = 64 };
    if (!atomic_load_explicit(&shmcoll_engine_tasks, memory_order_relaxed)) return;
    if (in_pass || pthread_mutex_trylock(&engine_lock)) return;
    in_pass = 1;
    /* Lanes without tasks leave the list (a lane's count changes under its claim). */
    for (int i = 0; i < engine_count;) {
        shmcoll_lane_t *lane = engine_lanes[i];
        if (lane_claim(lane)) {
            const int empty = lane->nonblocking == 0;
            if (empty) engine_drop(i);
            lane_release(lane);
            if (empty) continue;
        }
        i++;
    }
    /* Advancing may start tasks that join the list: advance a copy of (a batch of) it. */
    shmcoll_lane_t *lanes[BATCH];
    const int n = engine_count < BATCH ? engine_count : BATCH;
    for (int i = 0; i < n; i++) lanes[i] = engine_lanes[(rotor + (unsigned)i) % engine_count];
    rotor += (unsigned)n;
    for (int i = 0; i < n; i++) lane_advance(lanes[i], NULL);
    in_pass = 0;
    pthread_mutex_unlock(&engine_lock);
}

void shmcoll_engine_progress(void) {
    static __thread int inside; /* progress functions may reach here through the MPI library */
    if (inside) return;
    inside = 1;
    shmcoll_engine_progress_quiet();
    void (*const hook)(void) = atomic_load_explicit(&engine_hook, memory_order_acquire);
    if (hook) hook();
    inside = 0;
}

void shmcoll_engine_set_hook(void (*hook)(void)) {
    atomic_store_explicit(&engine_hook, hook, memory_order_release);
}
