/* The per-communicator cache: an attribute holding shmcoll_mpi_comm_t, made lazily.
 *
 * The setup runs inside the first wrapped collective on a communicator, so it is collective over
 * exactly the processes that call it, in the same order as MPI requires of collectives. Every step
 * decides from facts all ranks share, so "handled" comes out the same everywhere:
 *   intercommunicator (local fact, same on all ranks)       -> not handled
 *   one process                                              -> handled locally, no team
 *   the group cannot be set up (all members agree on it)     -> not handled, warned once
 *   otherwise                                                -> its group: one node team
 *                                                               per node (group_setup.c)
 * The setup itself waits for the communicator's SHMCOLL_COLLS_THRESHOLD-th collective (MPICH's
 * MPIR_CVAR_POSIX_NUM_COLLS_THRESHOLD, 5, likewise): the ones before go to the MPI library, so a
 * communicator used only a few times costs no segment. Every rank calls the same collectives on
 * a communicator in the same order, so all count alike and set up at the same call. */
#include "mpi/comm_state.h"

#include "base/config.h"
#include "base/log.h"

#include <stdatomic.h>
#include <stdlib.h>

static int comm_keyval = MPI_KEYVAL_INVALID;

/* Set by the first failed team creation, so a job with many communicators warns only once. */
static atomic_int team_failure_warned;

/* The last communicator a thread asked for and its state: looking the attribute up costs the
 * MPI library some hundred instructions (measured: about 500 in MPICH 4.0), more than a small
 * collective's whole shared-memory part. A handle can be reused for a new communicator once the
 * old one is freed, so the entry holds only while no state was deleted since it was made. */
atomic_uint shmcoll_mpi_comm_states_deleted;
static __thread struct {
    MPI_Comm comm;
    shmcoll_mpi_comm_t *state;
    unsigned deleted; /* shmcoll_mpi_comm_states_deleted when the entry was made */
} last __attribute__((tls_model("initial-exec"))); /* no __tls_get_addr call per collective */

/* Runs inside MPI_Comm_free and, for MPI_COMM_WORLD/SELF, in our MPI_Finalize. Destroying a team
 * is local (the segment is already unlinked), so it is safe at any of these points. */
static int state_delete(MPI_Comm comm, int keyval, void *attr, void *extra) {
    shmcoll_mpi_comm_t *state = attr;
    atomic_fetch_add_explicit(&shmcoll_mpi_comm_states_deleted, 1, memory_order_relaxed);
    atomic_store(&state->freed, 1);
    shmcoll_mpi_comm_state_release(state);
    return MPI_SUCCESS;
}

void shmcoll_mpi_comm_state_hold(shmcoll_mpi_comm_t *state) {
    atomic_fetch_add_explicit(&state->refs, 1, memory_order_relaxed);
}

void shmcoll_mpi_comm_state_release(shmcoll_mpi_comm_t *state) {
    if (atomic_fetch_sub_explicit(&state->refs, 1, memory_order_acq_rel) != 1) return;
    shmcoll_mpi_group_destroy(state->setup);
    if (state->calib) state->calib_free(state->calib);
    if (state->repeat) state->repeat_free(state->repeat);
    free(state);
}

shmcoll_status_t shmcoll_mpi_comm_state_init(void) {
    /* MPI_COMM_NULL_COPY_FN: a duplicated communicator gets a state (and a team) of its own,
     * because its collectives are ordered independently of the original's. */
    int rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, state_delete, &comm_keyval, NULL);
    return rc == MPI_SUCCESS ? SHMCOLL_OK : SHMCOLL_ERR_SYSTEM;
}

static void delete_state(MPI_Comm comm) {
    void *attr;
    int flag = 0;
    if (PMPI_Comm_get_attr(comm, comm_keyval, &attr, &flag) == MPI_SUCCESS && flag)
        PMPI_Comm_delete_attr(comm, comm_keyval);
}

void shmcoll_mpi_comm_state_finalize(void) {
    if (comm_keyval == MPI_KEYVAL_INVALID) return;
    /* Teams of the predefined communicators are destroyed while MPI still works, rather than in
     * whatever order the MPI library runs delete callbacks inside PMPI_Finalize. */
    delete_state(MPI_COMM_SELF);
    delete_state(MPI_COMM_WORLD);
    PMPI_Comm_free_keyval(&comm_keyval);
}

/* Statistics count every operation once: on an intracommunicator its rank 0 counts; both groups
 * of an intercommunicator have a rank 0, and the one with the lower rank in MPI_COMM_WORLD counts.
 */
static int counting_rank(MPI_Comm comm, int rank, int inter) {
    if (rank != 0) return 0;
    if (!inter) return 1;
    MPI_Group remote, world;
    int zero = 0, remote_world = MPI_UNDEFINED;
    PMPI_Comm_remote_group(comm, &remote);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_translate_ranks(remote, 1, &zero, world, &remote_world);
    PMPI_Group_free(&remote);
    PMPI_Group_free(&world);
    int world_rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    return remote_world == MPI_UNDEFINED || world_rank < remote_world;
}

static void not_handled(shmcoll_mpi_comm_t *state, const char *reason) {
    state->kind = SHMCOLL_MPI_COMM_NOT_HANDLED;
    state->reason = reason;
    shmcoll_log_verbose("communicator of %d processes (rank %d) not handled: %s", state->size,
                        state->rank, reason);
}

static void setup(MPI_Comm comm, shmcoll_mpi_comm_t *state) {
    if (state->inter) {
        not_handled(state, "intercommunicator");
        return;
    }
    if (state->size == 1) {
        state->kind = SHMCOLL_MPI_COMM_SELF;
        return;
    }
    const char *reason = NULL;
    shmcoll_status_t status =
        shmcoll_mpi_group_setup(comm, state->rank, state->size, &state->setup, &reason);
    if (status != SHMCOLL_OK) {
        /* Every rank got the same outcome (group setup agrees on it), so all fall back. */
        if (status != SHMCOLL_ERR_NOT_SUPPORTED && state->rank == 0 &&
            !atomic_exchange(&team_failure_warned, 1))
            shmcoll_log_warn("no shared memory for a communicator of %d processes (%s, in %s); "
                             "its collectives go to the MPI library",
                             state->size, reason, shmcoll_config()->shm_dir);
        not_handled(state, reason);
        return;
    }
    state->group = &state->setup->group;
    state->kind = SHMCOLL_MPI_COMM_GROUP;
}

shmcoll_mpi_comm_t *shmcoll_mpi_comm_state_recent(MPI_Comm comm) {
    const unsigned deleted =
        atomic_load_explicit(&shmcoll_mpi_comm_states_deleted, memory_order_relaxed);
    return last.comm == comm && last.deleted == deleted ? last.state : NULL;
}

shmcoll_status_t shmcoll_mpi_comm_state_get(MPI_Comm comm, shmcoll_mpi_comm_use_t use,
                                            shmcoll_mpi_comm_t **out) {
    void *attr = NULL;
    int flag = 0;
    const unsigned deleted =
        atomic_load_explicit(&shmcoll_mpi_comm_states_deleted, memory_order_relaxed);
    if (last.state && last.comm == comm && last.deleted == deleted) {
        attr = last.state;
        flag = 1;
    } else if (PMPI_Comm_get_attr(comm, comm_keyval, &attr, &flag) != MPI_SUCCESS) {
        return SHMCOLL_ERR_INVALID;
    }
    shmcoll_mpi_comm_t *state = flag ? attr : NULL;
    if (state) last.comm = comm, last.state = state, last.deleted = deleted;
    if (!state) {
        state = calloc(1, sizeof *state);
        if (!state) return SHMCOLL_ERR_NO_MEMORY;
        PMPI_Comm_test_inter(comm, &state->inter);
        PMPI_Comm_rank(comm, &state->rank);
        PMPI_Comm_size(comm, &state->size);
        state->counts = counting_rank(comm, state->rank, state->inter);
        state->kind = SHMCOLL_MPI_COMM_UNDECIDED;
        atomic_init(&state->refs, 1); /* the communicator's */
        if (PMPI_Comm_set_attr(comm, comm_keyval, state) != MPI_SUCCESS) {
            free(state);
            return SHMCOLL_ERR_INVALID;
        }
    }
    if (use != SHMCOLL_MPI_COMM_LOOK && state->kind == SHMCOLL_MPI_COMM_UNDECIDED) {
        const int due = ++state->colls >= shmcoll_config()->colls_threshold;
        /* One process or an intercommunicator is decided without communicating. */
        if ((due && use == SHMCOLL_MPI_COMM_SETUP) || state->size == 1 || state->inter)
            setup(comm, state);
        else if (due)
            state->reason = "set up at its next blocking collective (a non-blocking call may "
                            "not wait for the other ranks)";
        else
            state->reason = "not yet used SHMCOLL_COLLS_THRESHOLD times";
    }
    *out = state;
    return SHMCOLL_OK;
}
