/* Operations behind the requests of non-blocking and persistent collectives: their pool of
 * handles, the hash from handle to operation, posting, persistent setup and starts, progress and
 * completion. See request.h and docs/REQUESTS.md.
 *
 * Everything here runs on the application's threads under the MPI layer's progress lock
 * (progress.h), except shmcoll_mpi_request_progress_quiet, which the progress thread calls under
 * the same lock. */
#include "mpi/request.h"
#include "mpi/blocking.h"
#include "mpi/init.h"
#include "mpi/progress.h"

#include "base/config.h"
#include "base/log.h"
#include "group/compose.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of the largest MPI argument struct of a collective (a request keeps a copy). */
#define MARGS_BYTES 128

struct shmcoll_mpi_op {
    MPI_Request handle; /* what the application holds */
    shmcoll_mpi_form_t form;
    int active;    /* started, not yet reported */
    int done;      /* completed (finish and end ran): rc is the result */
    int detached;  /* freed by the application while active: released once done */
    int reprepare; /* persistent: prepare again at every start (packing, local copies) */
    int deferred;  /* started on one node: the group part begins at the first progress, test or
                      wait, or before any later collective (see op_defer) */
    int running;   /* a wait runs it as a blocking collective: no progress pass may touch it */
    int ran;       /* ... and did: the team's statistics are its own */
    int fell_back; /* a deferred start the group declined ran as the MPI library's: rc */
    int rc;
    const shmcoll_mpi_coll_desc_t *desc;
    int large;
    MPI_Comm dup; /* persistent: the communicator whose group is the request's own */
    shmcoll_mpi_call_t call;
    shmcoll_group_op_t gop; /* the group's part; gop.status IN_PROGRESS until done */
    size_t *sizes;          /* call.sizes: 4 x size */
    int sizes_cap;
    shmcoll_mpi_op_t *prev, *next; /* in flight */
    shmcoll_mpi_op_t *hnext;       /* in the hash, or the free list */
    shmcoll_mpi_op_t *dnext;       /* deferred, in start order */
    _Alignas(16) unsigned char margs[MARGS_BYTES];
};

static MPI_Comm handle_comm = MPI_COMM_NULL; /* of the handles: private, never communicates */
static MPI_Status empty_status;
static shmcoll_mpi_op_t *pool;     /* released operations, each with its handle */
static shmcoll_mpi_op_t *inflight; /* started, group part or completion pending */
static int in_use;                 /* operations the application holds (or detached) */
static _Atomic int inflight_count;
static shmcoll_mpi_op_t *deferred_head, **deferred_tail = &deferred_head;

/* ---- Handle -> operation ------------------------------------------------------------------ */

#define BUCKETS 1024
static shmcoll_mpi_op_t *buckets[BUCKETS];

static unsigned bucket_of(MPI_Request handle) {
    uint64_t key = 0;
    memcpy(&key, &handle, sizeof handle < sizeof key ? sizeof handle : sizeof key);
    key *= 0x9e3779b97f4a7c15ull; /* handles are small integers or aligned pointers */
    return (unsigned)(key >> 54) % BUCKETS;
}

static void hash_insert(shmcoll_mpi_op_t *op) {
    const unsigned b = bucket_of(op->handle);
    op->hnext = buckets[b];
    buckets[b] = op;
}

static void hash_remove(shmcoll_mpi_op_t *op) {
    for (shmcoll_mpi_op_t **at = &buckets[bucket_of(op->handle)]; *at; at = &(*at)->hnext)
        if (*at == op) {
            *at = op->hnext;
            return;
        }
}

shmcoll_mpi_op_t *shmcoll_mpi_request_find(MPI_Request handle) {
    if (!in_use || handle == MPI_REQUEST_NULL) return NULL;
    for (shmcoll_mpi_op_t *op = buckets[bucket_of(handle)]; op; op = op->hnext)
        if (op->handle == handle) return op;
    return NULL;
}

int shmcoll_mpi_request_any(void) {
    return in_use > 0;
}

int shmcoll_mpi_request_inflight(void) {
    return atomic_load_explicit(&inflight_count, memory_order_relaxed) > 0;
}

/* ---- The pool ------------------------------------------------------------------------------ */

static void engine_hook(void);
static void before_collective(void);

static void request_shutdown(void) {
    shmcoll_mpi_progress_stop();
    shmcoll_mpi_request_finalize();
}

/* The private communicator, the empty status, the engine's hook, the progress thread (the caller
 * holds the lock from then on: *locked) and the finalisation, on first use. */
static int pool_setup(int *locked) {
    if (handle_comm != MPI_COMM_NULL) return 1;
    if (PMPI_Comm_dup(MPI_COMM_SELF, &handle_comm) != MPI_SUCCESS) return 0;
    MPI_Request probe;
    PMPI_Recv_init(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, handle_comm, &probe);
    PMPI_Wait(&probe, &empty_status); /* an inactive request: the empty status */
    PMPI_Request_free(&probe);
    shmcoll_engine_set_hook(engine_hook);
    shmcoll_mpi_call_set_before(before_collective);
    shmcoll_mpi_init_at_finalize(request_shutdown);
    if (shmcoll_mpi_progress_start(shmcoll_mpi_request_inflight,
                                   shmcoll_mpi_request_progress_quiet))
        *locked = 1;
    return 1;
}

static shmcoll_mpi_op_t *op_acquire(int *locked) {
    shmcoll_mpi_op_t *op = pool;
    if (op) {
        pool = op->hnext;
    } else {
        if (!pool_setup(locked) || !(op = calloc(1, sizeof *op))) return NULL;
        if (PMPI_Recv_init(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, handle_comm, &op->handle) !=
            MPI_SUCCESS) {
            free(op);
            return NULL;
        }
    }
    op->active = op->done = op->detached = op->reprepare = op->deferred = op->running = op->ran =
        op->fell_back = 0;
    op->rc = MPI_SUCCESS;
    op->dup = MPI_COMM_NULL;
    memset(&op->call, 0, sizeof op->call);
    op->gop.status = SHMCOLL_OK;
    op->gop.t = NULL;
    in_use++;
    return op;
}

/* Back to the pool (not in flight, not in the hash). */
static void op_release(shmcoll_mpi_op_t *op) {
    if (op->dup != MPI_COMM_NULL) PMPI_Comm_free(&op->dup); /* and its group */
    op->hnext = pool;
    pool = op;
    in_use--;
}

/* call.sizes for a communicator of `size`. */
static shmcoll_status_t op_sizes(shmcoll_mpi_op_t *op, int size) {
    if (op->sizes_cap < size) {
        size_t *grown = realloc(op->sizes, 4 * (size_t)size * sizeof *grown);
        if (!grown) return SHMCOLL_ERR_NO_MEMORY;
        op->sizes = grown;
        op->sizes_cap = size;
    }
    op->call.sizes = op->sizes;
    return SHMCOLL_OK;
}

/* ---- In flight ----------------------------------------------------------------------------- */

static void inflight_add(shmcoll_mpi_op_t *op) {
    op->prev = NULL;
    op->next = inflight;
    if (inflight) inflight->prev = op;
    inflight = op;
    atomic_fetch_add_explicit(&inflight_count, 1, memory_order_relaxed);
}

static void inflight_remove(shmcoll_mpi_op_t *op) {
    if (op->prev)
        op->prev->next = op->next;
    else
        inflight = op->next;
    if (op->next) op->next->prev = op->prev;
    atomic_fetch_sub_explicit(&inflight_count, 1, memory_order_relaxed);
}

/* The operation is complete (op->rc): it leaves the flight; one the application freed is
 * released now. */
static void op_done(shmcoll_mpi_op_t *op) {
    op->done = 1;
    inflight_remove(op);
    if (op->detached) {
        hash_remove(op);
        op_release(op);
    }
}

/* A persistent run the group declined (every member alike: the arguments are those of the
 * init): the MPI library's blocking collective serves it, on the request's own communicator so
 * that it meets no other collective. Returns the MPI code. */
static int op_fallback(shmcoll_mpi_op_t *op) {
    shmcoll_mpi_call_fallback(&op->call);
    const MPI_Comm comm = op->dup != MPI_COMM_NULL ? op->dup : op->call.comm;
    return op->desc->fallback(op->margs, comm, op->large, NULL);
}

/* The group part is done (op->gop.status): unpack, count or raise, and leave the flight. An
 * operation the application freed is released now. */
static void op_complete(shmcoll_mpi_op_t *op) {
    if (op->fell_back) {
        shmcoll_mpi_call_finish(&op->call, SHMCOLL_ERR_NOT_SUPPORTED); /* frees, unpacks nothing */
        op->fell_back = 0;
        op_done(op);
        return;
    }
    shmcoll_status_t status = op->call.algo ? SHMCOLL_OK : op->gop.status;
    status = shmcoll_mpi_call_finish(&op->call, status);
    /* Statistics name the operation's own algorithm: the team's last one may be that of an
     * operation that completed after it (a task run by a wait is the team's last). */
    const char *local = op->call.algo;
    if (!local && !op->ran && op->call.group && op->call.group->map.nnodes == 1)
        op->call.algo = op->gop.task.algo;
    if (status == SHMCOLL_ERR_NOT_SUPPORTED) /* a deferred start the group declined */
        op->rc = op_fallback(op);
    else
        op->rc = shmcoll_mpi_call_end(&op->call, status);
    op->call.algo = local;
    op_done(op);
}

/* Starts the prepared call on its group, or completes at once what needs no group. */
static shmcoll_status_t op_launch(shmcoll_mpi_op_t *op) {
    op->done = op->ran = 0;
    op->deferred = 0;
    op->gop.t = NULL;
    op->gop.status = SHMCOLL_OK;
    if (!op->call.algo)
        SHMCOLL_CHECK(shmcoll_group_start(op->call.group, &op->call.args, &op->gop));
    op->active = 1;
    inflight_add(op);
    if (op->call.algo || op->gop.status != SHMCOLL_IN_PROGRESS) op_complete(op);
    return SHMCOLL_OK;
}

/* ---- Deferred starts ------------------------------------------------------------------------
 * On one node an operation's start only marks it (op_defer): a wait that comes first runs it as a
 * blocking collective, the fastest path (no queue on a lane, waits in place), so MPI_Iallreduce +
 * MPI_Wait costs what MPI_Allreduce does. The order of a communicator's collectives is kept: the
 * deferred starts form one queue in start order, and any test or progress pass, any later
 * collective (blocking ones through call.h's hook) and a wait for a later one first begin those
 * before it, as tasks of their node teams. A deferred operation stays in flight, so every
 * progress pass (the engine's hook, the progress thread) begins it. */

static void op_defer(shmcoll_mpi_op_t *op) {
    op->done = op->ran = 0;
    op->deferred = op->active = 1;
    op->gop.t = NULL;
    op->gop.status = SHMCOLL_IN_PROGRESS;
    inflight_add(op);
    op->dnext = NULL;
    *deferred_tail = op;
    deferred_tail = &op->dnext;
}

static shmcoll_mpi_op_t *deferred_pop(void) {
    shmcoll_mpi_op_t *op = deferred_head;
    deferred_head = op->dnext;
    if (!deferred_head) deferred_tail = &deferred_head;
    op->deferred = 0;
    return op;
}

/* Begins the deferred starts in order, up to and including `last` (NULL: all), as tasks (never
 * waits, calls no MPI). */
static void deferred_begin(const shmcoll_mpi_op_t *last) {
    while (deferred_head) {
        shmcoll_mpi_op_t *op = deferred_pop();
        const shmcoll_status_t status =
            shmcoll_group_start(op->call.group, &op->call.args, &op->gop);
        if (status == SHMCOLL_ERR_NOT_SUPPORTED && !shmcoll_mpi_progress_on_thread()) {
            /* Declined by every member alike: the MPI library's blocking collective serves it
             * now, in its place among the communicator's collectives. (The progress thread,
             * which calls no MPI, begins only persistent operations, whose fallback runs on
             * their own communicator whenever it completes.) */
            op->rc = op_fallback(op);
            op->fell_back = 1;
            op->gop.status = SHMCOLL_OK;
        } else if (status != SHMCOLL_OK) {
            op->gop.status = status;
        }
        if (op == last) return;
    }
}

/* Takes deferred `op` out of the queue to run it itself, once those before it have begun. */
static void deferred_take(const shmcoll_mpi_op_t *op) {
    while (deferred_head != op) {
        shmcoll_mpi_op_t *before = deferred_head;
        deferred_begin(before);
    }
    deferred_pop();
}

/* Before any blocking collective (call.h): the starts put off before it begin first. */
static void before_collective(void) {
    if (deferred_head) deferred_begin(NULL);
}

/* Whether `op`'s start may be put off: a collective of a node team, and with the progress thread
 * on only a persistent one (the thread begins deferred starts but may not fall back). */
static int deferrable(const shmcoll_mpi_op_t *op) {
    return !op->call.algo && op->call.group && op->call.group->map.nnodes == 1 &&
           (op->form == SHMCOLL_MPI_PERSISTENT || !shmcoll_mpi_progress_thread_on);
}

/* ---- Non-blocking -------------------------------------------------------------------------- */

/* A failure before the operation started: raised as a blocking call's would be. */
static int op_fail(shmcoll_mpi_op_t *op, shmcoll_status_t status, MPI_Request *request) {
    status = shmcoll_mpi_call_finish(&op->call, status);
    const int rc = shmcoll_mpi_call_end(&op->call, status);
    op_release(op);
    *request = MPI_REQUEST_NULL;
    return rc;
}

static int no_memory(MPI_Comm comm, const char *function, MPI_Request *request) {
    shmcoll_log_error("%s: out of memory for a request", function);
    *request = MPI_REQUEST_NULL;
    PMPI_Comm_call_errhandler(comm, MPI_ERR_NO_MEM);
    return MPI_ERR_NO_MEM;
}

/* SHMCOLL_DISABLE=1: straight to the MPI library, counted, no request of ours. */
static int disabled(const shmcoll_mpi_coll_desc_t *desc, const void *margs, MPI_Comm comm,
                    int large, const shmcoll_mpi_how_t *how) {
    shmcoll_mpi_call_t call = {0};
    shmcoll_mpi_call_begin(&call, desc, margs, comm, large, how->form);
    shmcoll_mpi_call_fallback(&call);
    return desc->fallback(margs, comm, large, how);
}

int shmcoll_mpi_request_post(const shmcoll_mpi_coll_desc_t *desc, const void *margs, MPI_Comm comm,
                             int large, MPI_Request *request) {
    if (shmcoll_config()->disable)
        return disabled(desc, margs, comm, large, SHMCOLL_MPI_NONBLOCKING_HOW(request));
    int locked = shmcoll_mpi_progress_enter();
    shmcoll_mpi_op_t *op = op_acquire(&locked);
    if (!op) {
        shmcoll_mpi_progress_leave(locked);
        return no_memory(comm, desc->names[SHMCOLL_MPI_NONBLOCKING][large], request);
    }
    shmcoll_mpi_call_t *call = &op->call;
    shmcoll_status_t status =
        shmcoll_mpi_call_begin(call, desc, margs, comm, large, SHMCOLL_MPI_NONBLOCKING);
    if (status == SHMCOLL_OK) status = op_sizes(op, call->state->size);
    if (status == SHMCOLL_OK) status = shmcoll_mpi_call_prepare(call, desc, margs);
    if (status == SHMCOLL_OK) {
        op->form = SHMCOLL_MPI_NONBLOCKING;
        op->desc = desc;
        op->large = large;
        if (deferrable(op) && desc->margs_size <= MARGS_BYTES) {
            if (desc->margs_size) memcpy(op->margs, margs, desc->margs_size); /* for op_fallback */
            op_defer(op);
        } else {
            before_collective();
            status = op_launch(op);
        }
    }
    if (status == SHMCOLL_ERR_NOT_SUPPORTED) {
        shmcoll_mpi_call_finish(call, status);
        shmcoll_mpi_call_fallback(call);
        op_release(op);
        shmcoll_mpi_progress_leave(locked);
        return desc->fallback(margs, comm, large, SHMCOLL_MPI_NONBLOCKING_HOW(request));
    }
    int rc = MPI_SUCCESS;
    if (status != SHMCOLL_OK) {
        rc = op_fail(op, status, request);
    } else {
        hash_insert(op);
        *request = op->handle;
    }
    shmcoll_mpi_progress_leave(locked);
    return rc;
}

/* ---- Persistent ---------------------------------------------------------------------------- */

int shmcoll_mpi_request_init(const shmcoll_mpi_coll_desc_t *desc, const void *margs, MPI_Comm comm,
                             int large, MPI_Info info, MPI_Request *request) {
    if (shmcoll_config()->disable)
        return disabled(desc, margs, comm, large, SHMCOLL_MPI_PERSISTENT_HOW(info, request));
    int locked = shmcoll_mpi_progress_enter();
    shmcoll_mpi_op_t *op = op_acquire(&locked);
    if (!op || desc->margs_size > MARGS_BYTES) {
        if (op) op_release(op);
        shmcoll_mpi_progress_leave(locked);
        return no_memory(comm, desc->names[SHMCOLL_MPI_PERSISTENT][large], request);
    }
    shmcoll_mpi_call_t *call = &op->call;
    shmcoll_status_t status =
        shmcoll_mpi_call_begin(call, desc, margs, comm, large, SHMCOLL_MPI_PERSISTENT);
    /* A group of its own (setup is collective, as *_init is): the request's lanes and slots are
     * its own, so ranks may start requests in different orders. It is set up now, even where the
     * communicator itself waits for more uses before its own setup (every rank alike). */
    const int undecided = status == SHMCOLL_ERR_NOT_SUPPORTED && !shmcoll_config()->disable &&
                          call->state && call->state->kind == SHMCOLL_MPI_COMM_UNDECIDED;
    if ((status == SHMCOLL_OK && call->group) || undecided) {
        call->reason = NULL;
        if (PMPI_Comm_dup(comm, &op->dup) != MPI_SUCCESS)
            status = shmcoll_mpi_call_reject(call, "cannot duplicate the communicator");
        else
            status = shmcoll_mpi_call_rebind(call, op->dup);
    }
    /* Across nodes with blocking network steps every start would be declined (compose.h): the
     * MPI library's own persistent request serves it from the start instead, so no start runs a
     * blocking collective that ranks starting requests in different orders would mismatch. */
    if (status == SHMCOLL_OK && call->group && !shmcoll_group_starts(call->group))
        status = shmcoll_mpi_call_reject(call, "started collectives across nodes go to the MPI "
                                               "library (blocking network steps)");
    if (status == SHMCOLL_OK) status = op_sizes(op, call->state->size);
    if (status == SHMCOLL_OK) status = shmcoll_mpi_call_prepare(call, desc, margs);
    if (status == SHMCOLL_ERR_NOT_SUPPORTED) {
        shmcoll_mpi_call_finish(call, status);
        shmcoll_mpi_call_fallback(call);
        op_release(op);
        shmcoll_mpi_progress_leave(locked);
        return desc->fallback(margs, comm, large, SHMCOLL_MPI_PERSISTENT_HOW(info, request));
    }
    int rc = MPI_SUCCESS;
    if (status != SHMCOLL_OK) {
        rc = op_fail(op, status, request);
    } else {
        op->form = SHMCOLL_MPI_PERSISTENT;
        op->desc = desc;
        op->large = large;
        if (desc->margs_size) memcpy(op->margs, margs, desc->margs_size);
        /* What prepare did for this call alone (packing the send side, a copy without the
         * group) is done again at every start; a dense call is only started. */
        op->reprepare = call->algo || call->send.temp || call->recv.temp;
        if (op->reprepare) shmcoll_mpi_call_finish(call, SHMCOLL_ERR_NOT_SUPPORTED);
        shmcoll_mpi_stats_record_init(call->coll, call->state);
        hash_insert(op);
        *request = op->handle;
    }
    shmcoll_mpi_progress_leave(locked);
    return rc;
}

/* Clears what prepare set, keeping what begin found. */
static void call_reset(shmcoll_mpi_call_t *call) {
    const shmcoll_mpi_call_t keep = *call;
    memset(call, 0, sizeof *call);
    call->comm = keep.comm;
    call->coll = keep.coll;
    call->form = keep.form;
    call->function = keep.function;
    call->state = keep.state;
    call->group = keep.group;
    call->bytes = keep.bytes;
    call->share = keep.share;
    call->sizes = keep.sizes;
    call->unpack_skip = -1;
}

int shmcoll_mpi_op_start(shmcoll_mpi_op_t *op) {
    if (op->form != SHMCOLL_MPI_PERSISTENT || op->active) return MPI_ERR_REQUEST;
    shmcoll_mpi_call_t *call = &op->call;
    shmcoll_status_t status = SHMCOLL_OK;
    if (op->reprepare) {
        call_reset(call);
        status = shmcoll_mpi_call_prepare(call, op->desc, op->margs);
    }
    if (status == SHMCOLL_OK) status = shmcoll_mpi_call_restart(call);
    if (status == SHMCOLL_OK && deferrable(op)) {
        op_defer(op);
        return MPI_SUCCESS;
    }
    if (status == SHMCOLL_OK) status = op_launch(op);
    if (status == SHMCOLL_ERR_NOT_SUPPORTED) {
        /* The group declined this run (every member alike: the same arguments as at init):
         * the MPI library's blocking collective serves it, and the request completes at once. */
        shmcoll_mpi_call_finish(call, status);
        op->rc = op_fallback(op);
        op->active = op->done = 1;
        return op->rc;
    }
    if (status == SHMCOLL_OK) return MPI_SUCCESS;
    status = shmcoll_mpi_call_finish(call, status);
    return shmcoll_mpi_call_end(call, status);
}

int shmcoll_mpi_coll_call(const shmcoll_mpi_coll_desc_t *desc, const void *margs, MPI_Comm comm,
                          int large, const shmcoll_mpi_how_t *how) {
    if (!how) return shmcoll_mpi_coll_run(desc, margs, comm, large);
    if (how->form == SHMCOLL_MPI_NONBLOCKING)
        return shmcoll_mpi_request_post(desc, margs, comm, large, how->request);
    return shmcoll_mpi_request_init(desc, margs, comm, large, how->info, how->request);
}

/* ---- Progress and completion --------------------------------------------------------------- */

int shmcoll_mpi_op_active(const shmcoll_mpi_op_t *op) {
    return op->active;
}

/* Testing or waiting may run the engine's hook, which may complete the very operation: hence
 * the second look at `done`. */
int shmcoll_mpi_op_test(shmcoll_mpi_op_t *op) {
    if (!op->active) return 1;
    if (op->running) return 0;
    if (op->deferred) deferred_begin(op);
    if (!op->done && shmcoll_group_test(&op->gop) != SHMCOLL_IN_PROGRESS && !op->done)
        op_complete(op);
    return op->done;
}

void shmcoll_mpi_op_wait(shmcoll_mpi_op_t *op) {
    if (!op->active || op->done) return;
    if (op->deferred) {
        deferred_take(op);
        op->running = op->ran = 1;
        op->gop.status = shmcoll_group_run(op->call.group, &op->call.args);
        op->running = 0;
    } else {
        (void)shmcoll_group_wait(&op->gop);
    }
    if (!op->done) op_complete(op);
}

void shmcoll_mpi_request_progress(void) {
    static __thread int inside; /* completing may reach the engine's hook again */
    if (inside || !inflight) return;
    inside = 1;
    before_collective();
    for (shmcoll_mpi_op_t *op = inflight, *next; op; op = next) {
        next = op->next;
        shmcoll_mpi_op_test(op);
    }
    inside = 0;
}

void shmcoll_mpi_request_progress_quiet(void) {
    before_collective();
    for (shmcoll_mpi_op_t *op = inflight; op; op = op->next) {
        if (op->running) continue;
        if (!op->gop.t && op->gop.status == SHMCOLL_IN_PROGRESS) (void)shmcoll_group_test(&op->gop);
    }
}

/* Every waiting member of a shmcoll collective calls this now and then: the operations in flight
 * move on (a peer may be waiting for one) and complete. Never on the progress thread. */
static void engine_hook(void) {
    if (!shmcoll_mpi_progress_on_thread()) shmcoll_mpi_request_progress();
}

void shmcoll_mpi_status_empty(MPI_Status *status) {
    if (status != MPI_STATUS_IGNORE) *status = empty_status;
}

int shmcoll_mpi_op_report(shmcoll_mpi_op_t *op, MPI_Request *request, MPI_Status *status) {
    shmcoll_mpi_status_empty(status);
    if (!op->active) return MPI_SUCCESS;
    const int rc = op->rc;
    if (op->form == SHMCOLL_MPI_NONBLOCKING) {
        hash_remove(op);
        op_release(op);
        *request = MPI_REQUEST_NULL;
    } else {
        op->active = op->done = 0;
    }
    return rc;
}

int shmcoll_mpi_op_free(shmcoll_mpi_op_t *op, MPI_Request *request) {
    *request = MPI_REQUEST_NULL;
    if (op->active && !op->done) {
        op->detached = 1; /* goes on, released by op_complete */
        return MPI_SUCCESS;
    }
    hash_remove(op);
    op_release(op);
    return MPI_SUCCESS;
}

void shmcoll_mpi_request_finalize(void) {
    /* Operations still in flight end first: their peers are finalising too. */
    while (inflight) shmcoll_mpi_op_wait(inflight);
    for (int b = 0; b < BUCKETS; b++)
        while (buckets[b]) {
            shmcoll_mpi_op_t *op = buckets[b];
            buckets[b] = op->hnext;
            op_release(op);
        }
    while (pool) {
        shmcoll_mpi_op_t *op = pool;
        pool = op->hnext;
        PMPI_Request_free(&op->handle);
        free(op->sizes);
        free(op);
    }
    if (handle_comm != MPI_COMM_NULL) PMPI_Comm_free(&handle_comm);
    in_use = 0;
}
