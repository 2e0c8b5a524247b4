/* The one way every collective wrapper runs. See call.h. */
#include "mpi/call.h"
#include "mpi/agree.h"
#include "mpi/init.h"
#include "mpi/stats_view.h"

#include "base/config.h"
#include "base/log.h"
#include "group/compose.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* SHMCOLL_OK: the communicator is handled (call->group is its group, or NULL on one process).
 * NOT_SUPPORTED: the call goes to the MPI library for call->reason (call->state is set when
 * known, for statistics). Any other status: the communicator's group failed earlier (or its
 * state could not be made); end raises it. SHMCOLL_DISABLE=1 is checked before anything else. */
static shmcoll_status_t begin(shmcoll_mpi_call_t *call, MPI_Comm comm, shmcoll_mpi_coll_t coll,
                              const char *function, shmcoll_mpi_comm_use_t use) {
    call->comm = comm;
    call->coll = coll;
    call->function = function;
    call->unpack_skip = -1;
    if (shmcoll_mpi_disabled()) {
        call->reason = shmcoll_mpi_disabled_reason();
        /* Only the local part of the state, to know which rank counts the call. */
        if (shmcoll_config()->stats && comm != MPI_COMM_NULL && shmcoll_mpi_init_ensure())
            shmcoll_mpi_comm_state_get(comm, SHMCOLL_MPI_COMM_LOOK, &call->state);
        return SHMCOLL_ERR_NOT_SUPPORTED;
    }
    if (comm == MPI_COMM_NULL || !shmcoll_mpi_init_ensure()) {
        call->reason = comm == MPI_COMM_NULL ? "MPI_COMM_NULL"
                                             : "MPI_Init was not called (the world model is not "
                                               "initialised; MPI-4 sessions are not served)";
        return SHMCOLL_ERR_NOT_SUPPORTED;
    }
    shmcoll_status_t status = shmcoll_mpi_comm_state_get(comm, use, &call->state);
    if (status != SHMCOLL_OK) return status;
    switch (call->state->kind) {
    case SHMCOLL_MPI_COMM_GROUP:
        call->group = call->state->group;
        call->team_dav = shmcoll_team_dav(call->group->team);
        call->net_bytes = call->group->net.bytes;
        return call->group->team->failed;
    case SHMCOLL_MPI_COMM_SELF:
        return SHMCOLL_OK;
    default:
        call->reason = call->state->reason;
        return SHMCOLL_ERR_NOT_SUPPORTED;
    }
}

shmcoll_status_t shmcoll_mpi_call_rebind(shmcoll_mpi_call_t *call, MPI_Comm comm) {
    shmcoll_mpi_comm_t *state = NULL;
    /* Used at every start: set up now, not after the first few uses as a communicator the
     * application made would be (every rank asks the same number of times). */
    for (int ask = 0; ask < 1000 && (!state || state->kind == SHMCOLL_MPI_COMM_UNDECIDED); ask++)
        SHMCOLL_CHECK(shmcoll_mpi_comm_state_get(comm, SHMCOLL_MPI_COMM_SETUP, &state));
    if (state->kind == SHMCOLL_MPI_COMM_SELF) { /* one process: served without a group */
        call->state = state;
        call->group = NULL;
        return SHMCOLL_OK;
    }
    if (state->kind != SHMCOLL_MPI_COMM_GROUP)
        return shmcoll_mpi_call_reject(call, state->reason ? state->reason : "not handled");
    call->state = state;
    call->group = state->group;
    return shmcoll_mpi_call_restart(call);
}

shmcoll_status_t shmcoll_mpi_call_restart(shmcoll_mpi_call_t *call) {
    if (!call->group) return SHMCOLL_OK;
    call->team_dav = shmcoll_team_dav(call->group->team);
    call->net_bytes = call->group->net.bytes;
    return call->group->team->failed;
}

int shmcoll_mpi_call_counted(const shmcoll_mpi_call_t *call) {
    return call->state && shmcoll_config()->stats;
}

shmcoll_status_t shmcoll_mpi_call_reject(shmcoll_mpi_call_t *call, const char *reason) {
    call->reason = reason;
    return SHMCOLL_ERR_NOT_SUPPORTED;
}

shmcoll_status_t shmcoll_mpi_call_invalid(shmcoll_mpi_call_t *call, const char *reason) {
    call->invalid = 1;
    return shmcoll_mpi_call_reject(call, reason);
}

shmcoll_status_t shmcoll_mpi_call_local(shmcoll_mpi_call_t *call, const char *algo) {
    call->algo = algo;
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_mpi_call_describe(shmcoll_mpi_call_t *call, shmcoll_coll_kind_t kind,
                                           const void *sendbuf, void *recvbuf, size_t count,
                                           int root) {
    shmcoll_coll_args_t *args = &call->args;
    args->kind = kind;
    args->sendbuf = sendbuf;
    args->recvbuf = recvbuf;
    args->count = count;
    args->root = root;
    args->sendbytes = call->send.total;
    args->sendcounts = call->send.bytes;
    args->sdispls = call->send.offsets;
    args->recvbytes = call->recv.total;
    args->recvcounts = call->recv.bytes;
    args->rdispls = call->recv.offsets;
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_mpi_call_self(shmcoll_mpi_call_t *call, void *dst, const void *src,
                                       size_t bytes) {
    if (bytes && dst != src) {
        memcpy(dst, src, bytes);
        call->dav += 2 * bytes;
    }
    return shmcoll_mpi_call_local(call, "self");
}

shmcoll_status_t shmcoll_mpi_call_op(shmcoll_mpi_call_t *call, MPI_Datatype datatype, MPI_Op op) {
    const shmcoll_status_t status =
        shmcoll_mpi_op_translate(datatype, op, &call->op_ctx, &call->rop, &call->reason);
    if (status == SHMCOLL_ERR_INVALID) return shmcoll_mpi_call_invalid(call, call->reason);
    SHMCOLL_CHECK(status);
    call->derived |= !call->rop.kernel; /* only a predefined op on a predefined type has one */
    call->args.op = &call->rop;
    call->args.net_op = &call->op_ctx;
    return SHMCOLL_OK;
}

/* A timed-out or orphaned group cannot be trusted again (its peers may be anywhere in the
 * protocol), so the communicator stays failed: later calls raise the error again rather than
 * mixing shared memory on some ranks with the MPI library on others. */
static int raise_error(shmcoll_mpi_call_t *call, shmcoll_status_t status) {
    shmcoll_team_t *team = call->group ? call->group->team : NULL;
    if (!team && call->state && call->state->kind == SHMCOLL_MPI_COMM_GROUP)
        team = call->state->group->team;
    if (team && team->failed == SHMCOLL_OK) team->failed = status;
    if (team && team->error[0])
        shmcoll_log_error("%s failed: %s", call->function, team->error);
    else
        shmcoll_log_error("%s failed: %s", call->function, shmcoll_status_string(status));
    PMPI_Comm_call_errhandler(call->comm, MPI_ERR_OTHER);
    return MPI_ERR_OTHER;
}

/* Ends a served call: SHMCOLL_OK counts it and returns MPI_SUCCESS; a failure is logged (with
 * the team's message), marks the group failed for good and is raised as MPI_ERR_OTHER through
 * the communicator's error handler (MPI_ERRORS_ARE_FATAL aborts the job); the code is returned
 * when the handler does return. */
int shmcoll_mpi_call_end(shmcoll_mpi_call_t *call, shmcoll_status_t status) {
    if (status != SHMCOLL_OK) return raise_error(call, status);
    if (!shmcoll_config()->stats) return MPI_SUCCESS; /* nothing to count */
    const shmcoll_team_t *team = call->group ? call->group->team : NULL;
    const char *algo = call->algo ? call->algo
                       : team     ? __atomic_load_n(&team->last_algo, __ATOMIC_RELAXED)
                                  : "self";
    uint64_t dav = call->dav + (team ? shmcoll_team_dav(team) - call->team_dav : 0);
    uint64_t net = call->group ? call->group->net.bytes - call->net_bytes : 0;
    shmcoll_mpi_stats_record(call->coll, call->form, call->state, 1, call->bytes, call->share, algo,
                             dav, net);
    return MPI_SUCCESS;
}

void shmcoll_mpi_call_fallback(shmcoll_mpi_call_t *call) {
    if (shmcoll_mpi_call_counted(call) && call->state->counts)
        shmcoll_mpi_view_fallback(call->reason ? call->reason : "not supported by the algorithms");
    if (!call->quiet)
        shmcoll_log_verbose("%s: passed to the MPI library: %s", call->function,
                            call->reason ? call->reason : "not supported by the algorithms");
    shmcoll_mpi_stats_record(call->coll, call->form, call->state, 0, call->bytes, call->share,
                             "pmpi", 0, 0);
}

void shmcoll_mpi_call_clear(shmcoll_mpi_call_t *call) {
    /* Everything but the op's translation and the blocks' descriptions, which prepare writes
     * before anything reads them; of those, describe reads the coll/ view of both sides (the
     * side a call does not have must say nothing) and finish frees the temporary buffers. The
     * 600-byte record is cleared on every call, and two thirds of it need not be (0.01-0.02 us
     * of an 8-byte collective at p = 2). */
    _Static_assert(offsetof(shmcoll_mpi_call_t, args) < offsetof(shmcoll_mpi_call_t, rop),
                   "the call's arguments are cleared");
    memset(call, 0, offsetof(shmcoll_mpi_call_t, rop));
    shmcoll_mpi_blocks_t *sides[2] = {&call->send, &call->recv};
    for (int i = 0; i < 2; i++) {
        sides[i]->total = 0;
        sides[i]->bytes = sides[i]->offsets = NULL;
        sides[i]->temp = NULL;
    }
    call->unpack = 0;
    call->sizes = NULL;
}

shmcoll_status_t shmcoll_mpi_call_begin(shmcoll_mpi_call_t *call,
                                        const shmcoll_mpi_coll_desc_t *desc, const void *margs,
                                        MPI_Comm comm, int large, shmcoll_mpi_form_t form) {
    call->form = form;
    /* A non-blocking call is local: it never sets a communicator up (which communicates). */
    shmcoll_status_t status =
        begin(call, comm, desc->coll, desc->names[form][large],
              form == SHMCOLL_MPI_NONBLOCKING ? SHMCOLL_MPI_COMM_COUNT : SHMCOLL_MPI_COMM_SETUP);
    if (shmcoll_mpi_call_counted(call) &&
        (!call->state->inter || shmcoll_mpi_stats_inter_payload(desc->coll)))
        desc->payload(call, margs);
    return status;
}

shmcoll_status_t shmcoll_mpi_call_prepare(shmcoll_mpi_call_t *call,
                                          const shmcoll_mpi_coll_desc_t *desc, const void *margs) {
    shmcoll_status_t status = desc->prepare(call, margs);
    if (status != SHMCOLL_OK && status != SHMCOLL_ERR_NOT_SUPPORTED && call->group) {
        snprintf(call->group->team->error, sizeof call->group->team->error,
                 "rank %d could not prepare %s (%s)", call->state->rank, call->function,
                 shmcoll_status_string(status));
        shmcoll_team_fail(call->group->team, status); /* the others stop too */
    }
    return status;
}

shmcoll_status_t shmcoll_mpi_call_finish(shmcoll_mpi_call_t *call, shmcoll_status_t status) {
    if (status == SHMCOLL_OK && call->unpack) /* into the user's layout */
        status = shmcoll_mpi_blocks_unpack(&call->recv, call->unpack_skip, call->comm);
    shmcoll_mpi_blocks_free(&call->send);
    shmcoll_mpi_blocks_free(&call->recv);
    return status;
}

void shmcoll_mpi_call_array(shmcoll_mpi_call_t *call, const void *at, size_t bytes) {
    if (call->narrays < SHMCOLL_MPI_CALL_ARRAYS) {
        call->arrays[call->narrays].at = at;
        call->arrays[call->narrays].bytes = bytes;
    }
    call->narrays++;
}

uint64_t shmcoll_mpi_call_bytes(MPI_Datatype datatype, MPI_Count count) {
    MPI_Count size = 0;
    if (datatype == MPI_DATATYPE_NULL || count <= 0 ||
        PMPI_Type_size_x(datatype, &size) != MPI_SUCCESS || size <= 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

uint64_t shmcoll_mpi_call_bytes_sum(MPI_Datatype datatype, const void *counts, int wide, int n) {
    MPI_Count total = 0;
    if (!counts) return 0;
    for (int j = 0; j < n; j++) {
        MPI_Count count = wide ? ((const MPI_Count *)counts)[j] : ((const int *)counts)[j];
        if (count > 0) total += count;
    }
    return shmcoll_mpi_call_bytes(datatype, total);
}

const void *shmcoll_mpi_call_sendbuf(int in_place, const void *sendbuf) {
    static const char nothing;
    return in_place ? NULL : sendbuf ? sendbuf : &nothing;
}
