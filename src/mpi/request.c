/* Operations behind the requests of non-blocking and persistent collectives: their pool of
 * handles, the hash from handle to operation, posting, persistent setup and starts, and
 * completion. See request.h and docs/REQUESTS.md.
 *
 * Every start is a real start, decided in the call: the group starts the collective (a node
 * team's task queued on its lane, or a composition across nodes) or declines it, every member
 * alike, and then the MPI library's non-blocking form serves it at once, from the same call. So
 * a start never waits and never leaves a decision for later (when it could need a blocking call).
 * An operation's group part moves wherever the engine runs (progress.h); completing it (unpack,
 * statistics, errors: MPI calls) is its owner's, in the request call that finds it done.
 *
 * Threads: the pool, the hash and the list in flight are guarded by the requests lock
 * (progress.h). An operation is its owner's, the thread that holds its request (MPI forbids two
 * threads to use one request at once), except the group part of a composition across nodes,
 * which any waiting thread advances (the engine's hook) under the operation's `driving` claim. */
#include "mpi/request.h"
#include "mpi/agree.h"
#include "mpi/blocking.h"
#include "mpi/calibrate.h"
#include "mpi/datatype.h"
#include "mpi/init.h"
#include "mpi/progress.h"

#include "base/config.h"
#include "base/log.h"
#include "group/compose.h"
#include "shm/wait.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of the largest MPI argument struct of a collective (a request keeps a copy). */
#define MARGS_BYTES 128
#define HELD_TYPES  2 /* derived datatypes an operation holds: its send and receive types */

struct shmcoll_mpi_op {
    MPI_Request handle; /* what the application holds */
    shmcoll_mpi_form_t form;
    int active;        /* started, not yet reported */
    int done;          /* completed (finish and end ran): rc is the result */
    int detached;      /* freed by the application while active: released once done */
    int reprepare;     /* persistent: prepare again at every start (packing, local copies) */
    int theirs_always; /* persistent: every start is the MPI library's (op_serve_theirs) */
    int rc;
    /* The MPI library's request serving the current run, where the group declined a persistent
     * start; MPI_REQUEST_NULL otherwise. */
    MPI_Request theirs;
    atomic_int driving;    /* the group part of a composition is being advanced */
    atomic_int group_done; /* ... and has ended (gop.status) */
    const shmcoll_mpi_coll_desc_t *desc;
    int large;
    MPI_Comm dup; /* persistent: the communicator whose group is the request's own */
    /* Derived datatypes of the call, duplicated for the operation's life: the application may
     * free its own as soon as the call has returned, and finish (unpacking) or a persistent
     * start still needs them. op->margs names these. */
    MPI_Datatype held[HELD_TYPES];
    int nheld;
    /* ... and its count and displacement arrays, copied (op->margs points here). */
    unsigned char *arrays;
    size_t arrays_cap;
    shmcoll_mpi_call_t call;
    shmcoll_group_op_t gop; /* the group's part */
    size_t *sizes;          /* call.sizes: 4 x size */
    int sizes_cap;
    shmcoll_mpi_op_t *prev, *next; /* in flight */
    shmcoll_mpi_op_t *hnext;       /* in the hash, or the free list */
    _Alignas(16) unsigned char margs[MARGS_BYTES];
};

static MPI_Comm handle_comm = MPI_COMM_NULL; /* of the handles: private, never communicates */
static MPI_Status empty_status;
static shmcoll_mpi_op_t *pool;     /* released operations, each with its handle */
static shmcoll_mpi_op_t *inflight; /* started, group part or completion pending */
static atomic_int in_use;          /* operations the application holds (or detached) */
static atomic_int inflight_count;
static atomic_int composed_count; /* of them, compositions across nodes */
static atomic_int detached_count; /* ... and those the application freed while active */

/* ---- Handle -> operation ------------------------------------------------------------------ */

#define BUCKETS 1024
static shmcoll_mpi_op_t *buckets[BUCKETS];

static unsigned bucket_of(MPI_Request handle) {
    uint64_t key = 0;
    memcpy(&key, &handle, sizeof handle < sizeof key ? sizeof handle : sizeof key);
    key *= 0x9e3779b97f4a7c15ull; /* handles are small integers or aligned pointers */
    return (unsigned)(key >> 54) % BUCKETS;
}

/* The hash's and the pool's changes, under the requests lock. */
static void hash_insert(shmcoll_mpi_op_t *op) {
    const unsigned b = bucket_of(op->handle);
    op->hnext = buckets[b];
    buckets[b] = op;
}

/* The operation made known by its handle, which the application gets: MPI_SUCCESS. */
static int op_publish(shmcoll_mpi_op_t *op, MPI_Request *request) {
    shmcoll_mpi_requests_lock();
    hash_insert(op);
    shmcoll_mpi_requests_unlock();
    *request = op->handle;
    return MPI_SUCCESS;
}

static void hash_remove(shmcoll_mpi_op_t *op) {
    for (shmcoll_mpi_op_t **at = &buckets[bucket_of(op->handle)]; *at; at = &(*at)->hnext)
        if (*at == op) {
            *at = op->hnext;
            return;
        }
}

shmcoll_mpi_op_t *shmcoll_mpi_request_find(MPI_Request handle) {
    if (!atomic_load_explicit(&in_use, memory_order_relaxed) || handle == MPI_REQUEST_NULL)
        return NULL;
    shmcoll_mpi_requests_lock();
    shmcoll_mpi_op_t *op = buckets[bucket_of(handle)];
    while (op && op->handle != handle) op = op->hnext;
    shmcoll_mpi_requests_unlock();
    return op;
}

int shmcoll_mpi_request_any(void) {
    return atomic_load_explicit(&in_use, memory_order_relaxed) > 0;
}

int shmcoll_mpi_request_inflight(void) {
    return atomic_load_explicit(&inflight_count, memory_order_relaxed) > 0;
}

/* ---- The pool ------------------------------------------------------------------------------ */

static void engine_hook(void);

static void request_shutdown(void) {
    shmcoll_mpi_progress_stop();
    shmcoll_mpi_request_finalize();
}

/* The private communicator, the empty status, the engine's hook, the progress thread and the
 * finalisation, on first use (under the requests lock). */
static int pool_setup(void) {
    if (handle_comm != MPI_COMM_NULL) return 1;
    if (PMPI_Comm_dup(MPI_COMM_SELF, &handle_comm) != MPI_SUCCESS) return 0;
    MPI_Request probe;
    PMPI_Recv_init(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, handle_comm, &probe);
    PMPI_Wait(&probe, &empty_status); /* an inactive request: the empty status */
    PMPI_Request_free(&probe);
    shmcoll_engine_set_hook(engine_hook);
    shmcoll_mpi_init_at_finalize(request_shutdown);
    shmcoll_mpi_progress_start();
    return 1;
}

static shmcoll_mpi_op_t *op_acquire(void) {
    shmcoll_mpi_requests_lock();
    shmcoll_mpi_op_t *op = pool;
    if (op) {
        pool = op->hnext;
    } else if (pool_setup() && (op = calloc(1, sizeof *op))) {
        if (PMPI_Recv_init(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, handle_comm, &op->handle) !=
            MPI_SUCCESS) {
            free(op);
            op = NULL;
        }
    }
    if (op) atomic_fetch_add_explicit(&in_use, 1, memory_order_relaxed);
    shmcoll_mpi_requests_unlock();
    if (!op) return NULL;
    op->active = op->done = op->detached = op->reprepare = op->theirs_always = op->nheld = 0;
    op->rc = MPI_SUCCESS;
    op->theirs = MPI_REQUEST_NULL;
    atomic_store_explicit(&op->driving, 0, memory_order_relaxed);
    atomic_store_explicit(&op->group_done, 0, memory_order_relaxed);
    op->dup = MPI_COMM_NULL;
    shmcoll_mpi_call_clear(&op->call);
    op->gop.status = SHMCOLL_OK;
    op->gop.t = NULL;
    return op;
}

/* Back to the pool (not in flight, not in the hash), with what it held. */
static void op_release(shmcoll_mpi_op_t *op) {
    if (op->dup != MPI_COMM_NULL) PMPI_Comm_free(&op->dup); /* and its group */
    for (int i = 0; i < op->nheld; i++) PMPI_Type_free(&op->held[i]);
    op->nheld = 0;
    shmcoll_mpi_requests_lock();
    op->hnext = pool;
    pool = op;
    atomic_fetch_sub_explicit(&in_use, 1, memory_order_relaxed);
    shmcoll_mpi_requests_unlock();
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

/* Copies the count and displacement arrays op->margs names into op->arrays, and names those. */
static shmcoll_status_t op_hold_arrays(shmcoll_mpi_op_t *op, const shmcoll_mpi_coll_desc_t *desc,
                                       int rank, int size) {
    const void **field[4];
    size_t bytes[4], total = 0;
    for (int i = 0; i < 4; i++) {
        field[i] = desc->arrays ? desc->arrays(op->margs, i, rank, size, &bytes[i]) : NULL;
        if (field[i] && !*field[i]) field[i] = NULL; /* missing: prepare rejects the call */
        if (field[i]) total += (bytes[i] + 15) & ~(size_t)15;
    }
    if (total > op->arrays_cap) {
        unsigned char *grown = realloc(op->arrays, total);
        if (!grown) return SHMCOLL_ERR_NO_MEMORY;
        op->arrays = grown;
        op->arrays_cap = total;
    }
    for (int i = 0, at = 0; i < 4; i++) {
        if (!field[i]) continue;
        memcpy(op->arrays + at, *field[i], bytes[i]);
        *field[i] = op->arrays + at;
        at += (int)((bytes[i] + 15) & ~(size_t)15);
    }
    return SHMCOLL_OK;
}

/* The operation's own copy of the MPI arguments, its derived datatypes duplicated and its arrays
 * copied (held until the operation is released), which prepare and every later use read. */
static shmcoll_status_t op_hold(shmcoll_mpi_op_t *op, const shmcoll_mpi_coll_desc_t *desc,
                                const void *margs) {
    if (desc->margs_size > MARGS_BYTES) return SHMCOLL_ERR_NO_MEMORY;
    if (desc->margs_size) memcpy(op->margs, margs, desc->margs_size);
    SHMCOLL_CHECK(op_hold_arrays(op, desc, op->call.state->rank, op->call.state->size));
    static __thread MPI_Datatype last_named = MPI_DATATYPE_NULL; /* the type met last was */
    for (int i = 0; desc->types && i < HELD_TYPES; i++) {
        MPI_Datatype *type = desc->types(op->margs, i);
        shmcoll_mpi_layout_t layout;
        if (!type || *type == MPI_DATATYPE_NULL || *type == last_named) continue;
        if (shmcoll_mpi_datatype_layout(*type, &layout) != SHMCOLL_OK) continue; /* prepare says */
        if (layout.predefined || shmcoll_mpi_datatype_predefined(*type)) {
            last_named = *type; /* predefined: never freed */
            continue;
        }
        if (PMPI_Type_dup(*type, &op->held[op->nheld]) != MPI_SUCCESS) return SHMCOLL_ERR_NO_MEMORY;
        *type = op->held[op->nheld++];
    }
    return SHMCOLL_OK;
}

/* A reduction whose op has no kernel reduces through the MPI library (PMPI_Reduce_local), which
 * the engine's passes must not call (they run inside the MPI library's progress and on the
 * progress thread), and a user op may be freed before the operation completes: the MPI library
 * serves such requests. Op and datatype are the same on every rank: all decide alike. */
static shmcoll_status_t op_kernel_only(shmcoll_mpi_call_t *call) {
    if (call->algo || !call->args.op || call->rop.kernel) return SHMCOLL_OK;
    return shmcoll_mpi_call_reject(call, "a reduction without a kernel of shmcoll's in a request "
                                         "(user-defined op, or no kernel for the type)");
}

/* ---- In flight ----------------------------------------------------------------------------- */

static void inflight_add(shmcoll_mpi_op_t *op) {
    /* The communicator may be freed before the operation ends (MPI allows it): its state and
     * group stay until then. */
    if (op->call.state) shmcoll_mpi_comm_state_hold(op->call.state);
    shmcoll_mpi_requests_lock();
    op->prev = NULL;
    op->next = inflight;
    if (inflight) inflight->prev = op;
    inflight = op;
    shmcoll_mpi_requests_unlock();
    atomic_fetch_add_explicit(&inflight_count, 1, memory_order_relaxed);
    if (op->gop.t) atomic_fetch_add_explicit(&composed_count, 1, memory_order_relaxed);
}

static void inflight_remove(shmcoll_mpi_op_t *op) {
    shmcoll_mpi_requests_lock();
    if (op->prev)
        op->prev->next = op->next;
    else
        inflight = op->next;
    if (op->next) op->next->prev = op->prev;
    shmcoll_mpi_requests_unlock();
    atomic_fetch_sub_explicit(&inflight_count, 1, memory_order_relaxed);
    if (op->call.state) shmcoll_mpi_comm_state_release(op->call.state);
}

/* The operation is complete (op->rc): it leaves the flight; one the application freed is
 * released now. */
static void op_done(shmcoll_mpi_op_t *op) {
    op->done = 1;
    inflight_remove(op);
    if (op->detached) {
        atomic_fetch_sub_explicit(&detached_count, 1, memory_order_relaxed);
        shmcoll_mpi_requests_lock();
        hash_remove(op);
        shmcoll_mpi_requests_unlock();
        op_release(op);
    }
}

/* The group part is done (op->gop.status): unpack, count or raise, and leave the flight. */
static void op_complete(shmcoll_mpi_op_t *op) {
    /* A freed communicator's handle may be another's now: unpack and report without it. */
    if (op->call.state && atomic_load(&op->call.state->freed)) op->call.comm = MPI_COMM_SELF;
    shmcoll_status_t status = op->call.algo ? SHMCOLL_OK : op->gop.status;
    status = shmcoll_mpi_call_finish(&op->call, status);
    /* Statistics name the operation's own algorithm: the team's last one may be that of an
     * operation that completed after it. */
    const char *local = op->call.algo;
    if (!local && op->call.group && op->call.group->map.nnodes == 1)
        op->call.algo = op->gop.task.algo;
    op->rc = shmcoll_mpi_call_end(&op->call, status);
    op->call.algo = local;
    op_done(op);
}

/* The MPI library's run of a persistent start the group declined has ended with `rc`. */
static void op_theirs_done(shmcoll_mpi_op_t *op, int rc) {
    op->theirs = MPI_REQUEST_NULL;
    shmcoll_mpi_call_finish(&op->call, SHMCOLL_ERR_NOT_SUPPORTED); /* frees, unpacks nothing */
    op->rc = rc;
    op_done(op);
}

/* Starts the prepared call on its group, or completes at once what needs no group. Returns
 * NOT_SUPPORTED when the group declines it (nothing started on any member). */
static shmcoll_status_t op_launch(shmcoll_mpi_op_t *op) {
    op->done = 0;
    op->gop.t = NULL;
    op->gop.status = SHMCOLL_OK;
    atomic_store_explicit(&op->group_done, 0, memory_order_relaxed);
    if (!op->call.algo) {
        op->gop.task.algo = NULL;
        SHMCOLL_CHECK(shmcoll_group_start(op->call.group, &op->call.args, &op->gop));
    }
    op->active = 1;
    inflight_add(op);
    if (op->call.algo || op->gop.status != SHMCOLL_IN_PROGRESS) op_complete(op);
    return SHMCOLL_OK;
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

/* Straight to the MPI library's own form, counted, no request of ours: SHMCOLL_DISABLE=1, or the
 * world model is not initialised (a program of MPI-4 sessions that never calls MPI_Init, where
 * shmcoll serves no communicator, agree.h; a request of ours would be a request on a duplicate
 * of MPI_COMM_SELF, which such a program has not got). */
static int to_library(const shmcoll_mpi_coll_desc_t *desc, const void *margs, MPI_Comm comm,
                      int large, const shmcoll_mpi_how_t *how) {
    shmcoll_mpi_call_t call = {0};
    shmcoll_mpi_call_begin(&call, desc, margs, comm, large, how->form);
    shmcoll_mpi_call_fallback(&call);
    return desc->fallback(margs, comm, large, how);
}

/* Whether a request of ours may be made: not disabled, the world model initialised. */
static int ours_possible(void) {
    return !shmcoll_mpi_disabled() && shmcoll_mpi_init_ensure();
}

/* The MPI library's own form `how` serves a call shmcoll declined (op prepared or not). */
static int op_decline(shmcoll_mpi_op_t *op, const shmcoll_mpi_coll_desc_t *desc, const void *margs,
                      MPI_Comm comm, int large, const shmcoll_mpi_how_t *how) {
    shmcoll_mpi_call_finish(&op->call, SHMCOLL_ERR_NOT_SUPPORTED);
    shmcoll_mpi_call_fallback(&op->call);
    op_release(op);
    return desc->fallback(margs, comm, large, how);
}

int shmcoll_mpi_request_post(const shmcoll_mpi_coll_desc_t *desc, const void *margs, MPI_Comm comm,
                             int large, MPI_Request *request) {
    if (!ours_possible())
        return to_library(desc, margs, comm, large, SHMCOLL_MPI_NONBLOCKING_HOW(request));
    shmcoll_mpi_op_t *op = op_acquire();
    if (!op) return no_memory(comm, desc->names[SHMCOLL_MPI_NONBLOCKING][large], request);
    shmcoll_mpi_call_t *call = &op->call;
    shmcoll_status_t status =
        shmcoll_mpi_call_begin(call, desc, margs, comm, large, SHMCOLL_MPI_NONBLOCKING);
    const char *row = NULL; /* the measured verdict of the band, where the group serves it */
    if (status == SHMCOLL_OK && call->group)
        status = shmcoll_mpi_calibrate_follow(call, desc, margs, &row);
    if (status == SHMCOLL_OK) status = op_sizes(op, call->state->size);
    if (status == SHMCOLL_OK) status = op_hold(op, desc, margs);
    if (status == SHMCOLL_OK) status = shmcoll_mpi_call_prepare(call, desc, op->margs);
    if (status == SHMCOLL_OK) status = op_kernel_only(call);
    call->args.row = row;
    if (status == SHMCOLL_OK) {
        op->form = SHMCOLL_MPI_NONBLOCKING;
        op->desc = desc;
        op->large = large;
        status = op_launch(op);
    }
    if (status == SHMCOLL_ERR_NOT_SUPPORTED) /* with the application's own arguments */
        return op_decline(op, desc, margs, comm, large, SHMCOLL_MPI_NONBLOCKING_HOW(request));
    if (status != SHMCOLL_OK) return op_fail(op, status, request);
    return op_publish(op, request);
}

/* ---- Persistent ---------------------------------------------------------------------------- */

/* A persistent call the group declines once its arguments are held: every start is the MPI
 * library's non-blocking collective on the request's own communicator (op_start), not the MPI
 * library's persistent collective, which MPICH 4.0 gets wrong: its MPI_Gather_init,
 * MPI_Scatter_init and MPI_Allgather_init return wrong results on 2 ranks, and on 3 or more its
 * persistent collectives fail in MPI_Wait ("Invalid communicator"), while its non-blocking ones
 * are right. Counted once, as the call that went to the MPI library. */
static int op_serve_theirs(shmcoll_mpi_op_t *op, const shmcoll_mpi_coll_desc_t *desc, int large,
                           MPI_Request *request) {
    shmcoll_mpi_call_finish(&op->call, SHMCOLL_ERR_NOT_SUPPORTED); /* what prepare made */
    shmcoll_mpi_call_fallback(&op->call);
    op->form = SHMCOLL_MPI_PERSISTENT;
    op->desc = desc;
    op->large = large;
    op->theirs_always = 1;
    return op_publish(op, request);
}

int shmcoll_mpi_request_init(const shmcoll_mpi_coll_desc_t *desc, const void *margs, MPI_Comm comm,
                             int large, MPI_Info info, MPI_Request *request) {
    const shmcoll_mpi_how_t *how = SHMCOLL_MPI_PERSISTENT_HOW(info, request);
    if (!ours_possible()) return to_library(desc, margs, comm, large, how);
    shmcoll_mpi_op_t *op = op_acquire();
    if (!op) return no_memory(comm, desc->names[SHMCOLL_MPI_PERSISTENT][large], request);
    shmcoll_mpi_call_t *call = &op->call;
    shmcoll_status_t status =
        shmcoll_mpi_call_begin(call, desc, margs, comm, large, SHMCOLL_MPI_PERSISTENT);
    /* The verdict the band's blocking calls measured on the communicator, where there is one
     * (every rank has made the same calls, so every rank finds the same): a request of a band the
     * MPI library serves faster is the MPI library's at every start (op_serve_theirs), one the
     * group serves takes the verdict's row. A band without a verdict takes what the follow
     * gives (block moves: single copy where it serves; else the node team's choice): starts are not
     * measured (their completion may be found in MPI_Test, which must not wait for an
     * agreement). */
    const char *row = NULL, *measured_theirs = NULL; /* the verdict's reason, kept for below */
    if (status == SHMCOLL_OK && call->group &&
        shmcoll_mpi_calibrate_follow(call, desc, margs, &row) == SHMCOLL_ERR_NOT_SUPPORTED)
        measured_theirs = call->reason;
    /* A group of its own (MPI_*_init is collective and nonlocal, ordered like the collectives of
     * the communicator, so its setup may communicate here): the request's lanes and slots are
     * its own, so ranks may start requests in different orders. It is set up now, even where the
     * communicator itself waits for more uses before its own setup (every rank alike). */
    const int undecided = status == SHMCOLL_ERR_NOT_SUPPORTED && call->state &&
                          call->state->kind == SHMCOLL_MPI_COMM_UNDECIDED;
    if ((status == SHMCOLL_OK && call->group) || undecided) {
        call->reason = NULL;
        if (PMPI_Comm_dup(comm, &op->dup) != MPI_SUCCESS)
            status = shmcoll_mpi_call_reject(call, "cannot duplicate the communicator");
        else
            status = shmcoll_mpi_call_rebind(call, op->dup);
    }
    /* A communicator shmcoll does not handle (every rank alone on its node, say: a leaders'
     * communicator; found at the setup of the duplicate above where the communicator's own was
     * not due yet) is no reason to hand the request to the MPI library's persistent collective
     * (see op_serve_theirs): every start is its non-blocking collective, on a duplicate of the
     * communicator made now, as for a request the group declines. MPICH 4.0.2's
     * MPI_Allgather_init on two ranks, each alone on its node, returned the first start's blocks
     * at every later start. */
    const int dup_declined = undecided && op->dup != MPI_COMM_NULL;
    if (status == SHMCOLL_ERR_NOT_SUPPORTED && call->state && !call->state->inter &&
        (call->state->kind == SHMCOLL_MPI_COMM_NOT_HANDLED || dup_declined)) {
        if ((op->dup != MPI_COMM_NULL || PMPI_Comm_dup(comm, &op->dup) == MPI_SUCCESS) &&
            op_sizes(op, call->state->size) == SHMCOLL_OK && op_hold(op, desc, margs) == SHMCOLL_OK)
            return op_serve_theirs(op, desc, large, request);
        return op_decline(op, desc, margs, comm, large, how);
    }
    /* Across nodes with blocking network steps every start would be declined (compose.h). */
    const int starts_declined =
        status == SHMCOLL_OK && call->group && !shmcoll_group_starts(call->group);
    if (status == SHMCOLL_OK) status = op_sizes(op, call->state->size);
    if (status == SHMCOLL_OK) status = op_hold(op, desc, margs);
    const int held = status == SHMCOLL_OK;
    if (starts_declined)
        status = shmcoll_mpi_call_reject(call, "started collectives across nodes go to the MPI "
                                               "library (blocking network steps)");
    if (status == SHMCOLL_OK && measured_theirs)
        status = shmcoll_mpi_call_reject(call, measured_theirs);
    if (status == SHMCOLL_OK) status = shmcoll_mpi_call_prepare(call, desc, op->margs);
    if (status == SHMCOLL_OK) status = op_kernel_only(call);
    call->args.row = row;
    /* Arguments the MPI library refuses: its persistent init returns the error now, as without
     * shmcoll, instead of every start of a request that should not exist. */
    if (status == SHMCOLL_ERR_NOT_SUPPORTED && call->invalid)
        return op_decline(op, desc, margs, comm, large, how);
    if (status == SHMCOLL_ERR_NOT_SUPPORTED && held)
        return op_serve_theirs(op, desc, large, request);
    if (status == SHMCOLL_ERR_NOT_SUPPORTED) return op_decline(op, desc, margs, comm, large, how);
    if (status != SHMCOLL_OK) return op_fail(op, status, request);
    op->form = SHMCOLL_MPI_PERSISTENT;
    op->desc = desc;
    op->large = large;
    /* What prepare did for this call alone (packing the send side, a copy without the group) is
     * done again at every start; a dense call is only started. */
    op->reprepare = call->algo || call->send.temp || call->recv.temp;
    if (op->reprepare) shmcoll_mpi_call_finish(call, SHMCOLL_ERR_NOT_SUPPORTED);
    shmcoll_mpi_stats_record_init(call->coll, call->state);
    return op_publish(op, request);
}

/* Clears what prepare set, keeping what begin found and the row the init chose. */
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
    call->args.row = keep.args.row; /* the init's: the verdict its band had */
    call->unpack_skip = -1;
}

int shmcoll_mpi_op_start(shmcoll_mpi_op_t *op) {
    if (op->form != SHMCOLL_MPI_PERSISTENT || op->active) return MPI_ERR_REQUEST;
    shmcoll_mpi_call_t *call = &op->call;
    shmcoll_status_t status = op->theirs_always ? SHMCOLL_ERR_NOT_SUPPORTED : SHMCOLL_OK;
    if (status == SHMCOLL_OK && op->reprepare) {
        call_reset(call);
        status = shmcoll_mpi_call_prepare(call, op->desc, op->margs);
    }
    if (status == SHMCOLL_OK) status = shmcoll_mpi_call_restart(call);
    if (status == SHMCOLL_OK) status = op_launch(op);
    if (status == SHMCOLL_ERR_NOT_SUPPORTED) {
        /* The group declined this run (every member alike: the arguments of the init), or the
         * init: the MPI library's non-blocking collective serves it, on the request's own
         * communicator so that it meets no other collective, and the request completes when that
         * does. */
        if (!op->theirs_always) shmcoll_mpi_call_fallback(call);
        const MPI_Comm comm = op->dup != MPI_COMM_NULL ? op->dup : call->comm;
        const int rc = op->desc->fallback(op->margs, comm, op->large,
                                          SHMCOLL_MPI_NONBLOCKING_HOW(&op->theirs));
        op->active = 1;
        op->done = 0;
        inflight_add(op);
        if (rc != MPI_SUCCESS) op_theirs_done(op, rc);
        return rc;
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

int shmcoll_mpi_coll_refused(const shmcoll_mpi_coll_desc_t *desc, const void *margs, MPI_Comm comm,
                             int large, const shmcoll_mpi_how_t *how, const char *reason) {
    shmcoll_log_verbose("%s: passed to the MPI library as it came, not counted: %s",
                        desc->names[how ? how->form : SHMCOLL_MPI_BLOCKING][large], reason);
    return desc->fallback(margs, comm, large, how);
}

/* ---- Progress and completion --------------------------------------------------------------- */

int shmcoll_mpi_op_active(const shmcoll_mpi_op_t *op) {
    return op->active;
}

/* Advances the group part once (the caller holds op->driving where other threads may drive it);
 * 1 once it has ended. */
static int group_advance(shmcoll_mpi_op_t *op) {
    if (atomic_load_explicit(&op->group_done, memory_order_acquire)) return 1;
    const int composed = op->gop.t != NULL; /* the test frees a composition that has ended */
    if (shmcoll_group_test(&op->gop) == SHMCOLL_IN_PROGRESS) return 0;
    if (composed) atomic_fetch_sub_explicit(&composed_count, 1, memory_order_relaxed);
    atomic_store_explicit(&op->group_done, 1, memory_order_release);
    return 1;
}

/* Advances a composition's group part under its claim (any thread); 1 once it has ended. */
static int composition_drive(shmcoll_mpi_op_t *op) {
    if (atomic_load_explicit(&op->group_done, memory_order_acquire)) return 1;
    if (atomic_exchange_explicit(&op->driving, 1, memory_order_acquire)) return 0;
    const int ended = group_advance(op);
    atomic_store_explicit(&op->driving, 0, memory_order_release);
    return ended;
}

/* Whether the group part has ended (advancing it once). */
static int group_part_ended(shmcoll_mpi_op_t *op) {
    return op->gop.t ? composition_drive(op) : group_advance(op);
}

int shmcoll_mpi_op_test(shmcoll_mpi_op_t *op) {
    if (!op->active || op->done) return 1;
    if (op->theirs != MPI_REQUEST_NULL) {
        int flag = 0;
        const int rc = PMPI_Test(&op->theirs, &flag, MPI_STATUS_IGNORE);
        if (flag || rc != MPI_SUCCESS) op_theirs_done(op, rc);
    } else if (group_part_ended(op)) {
        op_complete(op);
    }
    return op->done;
}

void shmcoll_mpi_op_wait(shmcoll_mpi_op_t *op) {
    if (!op->active || op->done) return;
    if (op->theirs != MPI_REQUEST_NULL) { /* ours move inside the MPI library meanwhile */
        op_theirs_done(op, PMPI_Wait(&op->theirs, MPI_STATUS_IGNORE));
        return;
    }
    if (!op->gop.t) { /* a node team's task: waits in place once it is its lane's turn */
        (void)shmcoll_group_wait(&op->gop);
        op_complete(op);
        return;
    }
    shmcoll_shm_pace_t pace = {0};
    while (!composition_drive(op)) {
        shmcoll_engine_progress();
        shmcoll_shm_pace(&pace);
    }
    shmcoll_shm_pace_end(&pace);
    op_complete(op);
}

void shmcoll_mpi_request_progress(void) {
    shmcoll_engine_progress();
}

/* The operations the application freed while active (MPI_Request_free) have no owner to test
 * them: whoever passes here completes those whose group part has ended, and releases them. */
static void reap_detached(void) {
    enum { BATCH = 16 };
    shmcoll_mpi_op_t *claimed[BATCH];
    int n = 0;
    if (!shmcoll_mpi_requests_trylock()) return;
    for (shmcoll_mpi_op_t *op = inflight; op && n < BATCH; op = op->next)
        if (op->detached && !atomic_exchange_explicit(&op->driving, 1, memory_order_acquire))
            claimed[n++] = op;
    shmcoll_mpi_requests_unlock();
    for (int i = 0; i < n; i++) { /* completing may call MPI: outside the lock */
        shmcoll_mpi_op_t *op = claimed[i];
        int flag = 0, rc = MPI_SUCCESS;
        if (op->theirs != MPI_REQUEST_NULL) rc = PMPI_Test(&op->theirs, &flag, MPI_STATUS_IGNORE);
        if (op->theirs != MPI_REQUEST_NULL ? flag || rc != MPI_SUCCESS : group_advance(op)) {
            if (op->theirs != MPI_REQUEST_NULL)
                op_theirs_done(op, rc); /* released */
            else
                op_complete(op); /* released */
        } else {
            atomic_store_explicit(&op->driving, 0, memory_order_release);
        }
    }
}

/* The engine's hook (every waiting member of a shmcoll collective, on an application thread):
 * the compositions across nodes in flight move on, whoever owns them, since a peer may wait for
 * one (their network steps are MPI calls, which only application threads make); freed operations
 * that are done are released. */
static void engine_hook(void) {
    if (atomic_load_explicit(&composed_count, memory_order_relaxed) &&
        shmcoll_mpi_requests_trylock()) {
        for (shmcoll_mpi_op_t *op = inflight; op; op = op->next)
            if (op->gop.t && op->theirs == MPI_REQUEST_NULL && !op->detached) composition_drive(op);
        shmcoll_mpi_requests_unlock();
    }
    if (atomic_load_explicit(&detached_count, memory_order_relaxed)) reap_detached();
}

void shmcoll_mpi_status_empty(MPI_Status *status) {
    if (status != MPI_STATUS_IGNORE) *status = empty_status;
}

int shmcoll_mpi_op_report(shmcoll_mpi_op_t *op, MPI_Request *request, MPI_Status *status) {
    shmcoll_mpi_status_empty(status);
    if (!op->active) return MPI_SUCCESS;
    const int rc = op->rc;
    if (op->form == SHMCOLL_MPI_NONBLOCKING) {
        shmcoll_mpi_requests_lock();
        hash_remove(op);
        shmcoll_mpi_requests_unlock();
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
        /* It goes on; the engine's hook completes and releases it (reap_detached). */
        shmcoll_mpi_requests_lock();
        op->detached = 1;
        shmcoll_mpi_requests_unlock();
        atomic_fetch_add_explicit(&detached_count, 1, memory_order_relaxed);
        return MPI_SUCCESS;
    }
    shmcoll_mpi_requests_lock();
    hash_remove(op);
    shmcoll_mpi_requests_unlock();
    op_release(op);
    return MPI_SUCCESS;
}

void shmcoll_mpi_request_finalize(void) {
    /* Operations still in flight end first (freed ones: their peers are finalising too). */
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
        free(op->arrays);
        free(op);
    }
    if (handle_comm != MPI_COMM_NULL) PMPI_Comm_free(&handle_comm);
    atomic_store(&in_use, 0);
}
