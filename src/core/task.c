/* Drivers of tasks: starting them on their lane, advancing a lane in order, the blocking wait,
 * the non-blocking test with its liveness checks, and the process-wide engine that advances the
 * non-blocking tasks while anybody waits. See task.h. */
#include "core/task.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- The engine: lanes holding non-blocking tasks ---------------------------------------- */

static pthread_mutex_t engine_lock = PTHREAD_MUTEX_INITIALIZER;
static shmcoll_lane_t **engine_lanes;
static int engine_count, engine_capacity;
static void (*engine_hook)(void); /* the layers above: what they have in flight (set once) */

static shmcoll_status_t engine_add(shmcoll_lane_t *lane) {
    shmcoll_status_t status = SHMCOLL_OK;
    pthread_mutex_lock(&engine_lock);
    if (engine_count == engine_capacity) {
        int capacity = engine_capacity ? 2 * engine_capacity : 16;
        shmcoll_lane_t **grown = realloc(engine_lanes, (size_t)capacity * sizeof *grown);
        if (grown)
            engine_lanes = grown, engine_capacity = capacity;
        else
            status = SHMCOLL_ERR_NO_MEMORY;
    }
    if (status == SHMCOLL_OK) engine_lanes[engine_count++] = lane;
    pthread_mutex_unlock(&engine_lock);
    return status;
}

static void engine_remove(shmcoll_lane_t *lane) {
    pthread_mutex_lock(&engine_lock);
    for (int i = 0; i < engine_count; i++)
        if (engine_lanes[i] == lane) {
            engine_lanes[i] = engine_lanes[--engine_count];
            break;
        }
    pthread_mutex_unlock(&engine_lock);
}

/* ---- One lane ------------------------------------------------------------------------------ */

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
    team->dav += task->dav;
    if (task->status == SHMCOLL_OK)
        team->last_algo = task->algo;
    else if (!team->failed)
        team->failed = task->status; /* the protocol state is unknown now: sticky */
}

/* The head is done: it leaves the lane. */
static void lane_pop(shmcoll_lane_t *lane) {
    shmcoll_task_t *task = lane->head;
    lane->head = task->next;
    if (!lane->head) lane->tail = NULL;
    task_finished(task);
    if (task->nonblocking && --lane->nonblocking == 0) engine_remove(lane);
}

/* Runs the head's progress once. A failed team fails every task still queued. */
static void lane_step(shmcoll_lane_t *lane) {
    shmcoll_task_t *head = lane->head;
    if (head->team->failed) {
        head->status = head->team->failed;
        return;
    }
    head->wait.flag = NULL;
    if (head->gate && !*head->gate) return; /* not opened yet: nothing to wait on here */
    head->gate = NULL;                      /* open for good: the task has begun */
    head->ch->waiter.op = head->name;
    head->status = head->ops->progress(head);
}

/* Advances the lane until `until` is done (NULL: as far as it goes) or its head must wait. */
static void lane_advance(shmcoll_lane_t *lane, const shmcoll_task_t *until) {
    if (lane->busy) return; /* re-entered from inside a progress function */
    lane->busy = 1;
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
    lane->busy = 0;
}

/* ---- Tasks --------------------------------------------------------------------------------- */

/* While a member waits: advance the process's tasks in flight (a peer may be waiting for one of
 * them), then let the MPI library progress the caller's other requests (team->progress). */
static void wait_progress(void *ctx) {
    shmcoll_team_t *team = ctx;
    shmcoll_engine_progress();
    if (team->progress) team->progress(team->progress_ctx);
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

shmcoll_status_t shmcoll_task_start(shmcoll_team_t *team, shmcoll_task_t *task) {
    if (team->failed) return team->failed;
    shmcoll_lane_t *lane = &team->lanes[team->next_lane];
    task->wait.flag = NULL;
    task->waiting_flag = NULL;
    SHMCOLL_CHECK(task_init(team, lane, task));
    if (task->nonblocking && lane->nonblocking++ == 0) {
        shmcoll_status_t status = engine_add(lane);
        if (status != SHMCOLL_OK) {
            lane->nonblocking--;
            if (task->ops->fini) task->ops->fini(task);
            return status;
        }
    }
    task_counted(team, task);
    lane_push(lane, task);
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_task_run(shmcoll_team_t *team, shmcoll_task_t *task) {
    if (team->failed) return team->failed;
    shmcoll_lane_t *lane = &team->lanes[team->next_lane];
    task->gate = NULL;
    if (lane->head) { /* behind tasks still in flight on its lane: in order */
        task->nonblocking = 0;
        SHMCOLL_CHECK(shmcoll_task_start(team, task));
        return shmcoll_task_wait(task);
    }
    /* Alone on its lane, which no other driver looks at then (the engine only advances lanes
     * with non-blocking tasks queued): run it directly, waiting on the flag it stops at, with
     * nothing in between, since its latency is the collective's. */
    SHMCOLL_CHECK(task_init(team, lane, task));
    task_counted(team, task);
    task->blocking = 1;
    shmcoll_status_t status;
    do /* returns IN_PROGRESS only when forced to (SHMCOLL_RESUME_CHECK) */
        status = task->ops->progress(task);
    while (status == SHMCOLL_IN_PROGRESS);
    task->status = status;
    task_finished(task);
    return status;
}

shmcoll_status_t shmcoll_task_block(shmcoll_task_t *task) {
    if (!task->wait.flag) return SHMCOLL_OK;
    task->ch->waiter.op = task->name;
    return shmcoll_shm_wait_geq(task->wait.flag, task->wait.value, task->wait.peer,
                                &task->ch->waiter);
}

shmcoll_status_t shmcoll_task_progress(shmcoll_task_t *task) {
    if (task->status == SHMCOLL_IN_PROGRESS) lane_advance(task->lane, task);
    return task->status;
}

/* A wait found a peer dead or stuck (named in team->error): the team is failed for good, and
 * the lane's tasks up to `task` end with the failure. */
static shmcoll_status_t fail_lane(shmcoll_task_t *task, shmcoll_status_t status) {
    if (!task->team->failed) task->team->failed = status;
    lane_advance(task->lane, task);
    return task->status;
}

/* A wait the task is stopped at has lasted long enough to look at the peers again. */
#define CHECK_INTERVAL 0.05

shmcoll_status_t shmcoll_task_test(shmcoll_task_t *task) {
    shmcoll_status_t status = shmcoll_task_progress(task);
    if (status != SHMCOLL_IN_PROGRESS) return status;
    shmcoll_task_t *head = task->lane->head;
    if (!head->wait.flag) return status;
    const double now = shmcoll_shm_now();
    if (head->waiting_flag != head->wait.flag || head->waiting_value != head->wait.value) {
        head->waiting_flag = head->wait.flag; /* a new wait: its clock starts now */
        head->waiting_value = head->wait.value;
        head->waiting_since = head->last_check = now;
        return status;
    }
    if (now - head->last_check < CHECK_INTERVAL) return status;
    head->last_check = now;
    status = shmcoll_shm_wait_check(&head->wait, &head->ch->waiter, now - head->waiting_since);
    if (status == SHMCOLL_OK) return shmcoll_task_progress(task);
    return fail_lane(task, status);
}

shmcoll_status_t shmcoll_task_wait(shmcoll_task_t *task) {
    for (;;) {
        shmcoll_status_t status = shmcoll_task_progress(task);
        if (status != SHMCOLL_IN_PROGRESS) return status;
        shmcoll_task_t *head = task->lane->head;
        const shmcoll_wait_t w = head->wait;
        if (!w.flag && head->gate) { /* opened by whoever drives it: let them run */
            shmcoll_engine_progress();
            sched_yield();
            continue;
        }
        if (!w.flag) continue; /* a forced resume (SHMCOLL_RESUME_CHECK) */
        status = shmcoll_shm_wait_geq(w.flag, w.value, w.peer, &head->ch->waiter);
        if (status != SHMCOLL_OK) return fail_lane(task, status);
    }
}

void shmcoll_engine_progress(void) {
    static __thread int inside; /* progress functions may reach here through the MPI library */
    static unsigned rotor;      /* with many lanes, each call starts at a different one */
    enum { BATCH = 64 };
    if (inside || pthread_mutex_trylock(&engine_lock)) return;
    inside = 1;
    /* Lanes leave the list as they empty: advance a copy of (a batch of) its pointers. */
    shmcoll_lane_t *lanes[BATCH];
    const int n = engine_count < BATCH ? engine_count : BATCH;
    for (int i = 0; i < n; i++) lanes[i] = engine_lanes[(rotor + (unsigned)i) % engine_count];
    rotor += n;
    pthread_mutex_unlock(&engine_lock);
    for (int i = 0; i < n; i++) lane_advance(lanes[i], NULL);
    if (engine_hook) engine_hook();
    inside = 0;
}

void shmcoll_engine_set_hook(void (*hook)(void)) {
    engine_hook = hook;
}
