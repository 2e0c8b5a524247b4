/* The per-communicator cache: an attribute holding shmcoll_mpi_comm_t, made lazily.
 *
 * The setup runs inside the first wrapped collective on a communicator, so it is collective over
 * exactly the processes that call it, in the same order as MPI requires of collectives. Every step
 * decides from facts all ranks share, so "handled" comes out the same everywhere:
 *   intercommunicator (local fact, same on all ranks)       -> not handled
 *   one process                                              -> handled locally, no team
 *   MPI_Comm_split_type(SHARED) gives fewer than all ranks   -> not handled (spans nodes)
 *   shmcoll_team_create fails (all members agree on it)      -> not handled, warned once
 *   otherwise                                                -> a group of one node
 * The team is bootstrapped with PMPI_Allgather over the communicator itself. */
#include "mpi/comm_state.h"

#include "base/config.h"
#include "base/log.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>

static int comm_keyval = MPI_KEYVAL_INVALID;

/* Set by the first failed team creation, so a job with many communicators warns only once. */
static atomic_int team_failure_warned;

/* Runs inside MPI_Comm_free and, for MPI_COMM_WORLD/SELF, in our MPI_Finalize. Destroying a team
 * is local (the segment is already unlinked), so it is safe at any of these points. */
static void group_destroy(shmcoll_group_t *group) {
    if (!group) return;
    if (group->team) shmcoll_team_destroy(group->team);
    shmcoll_group_map_fini(&group->map);
    free(group);
}

static int state_delete(MPI_Comm comm, int keyval, void *attr, void *extra) {
    shmcoll_mpi_comm_t *state = attr;
    group_destroy(state->group);
    free(state);
    return MPI_SUCCESS;
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

static int bootstrap_allgather(void *ctx, const void *in, void *out, size_t bytes) {
    if (bytes > INT_MAX) return 1;
    int rc = PMPI_Allgather(in, (int)bytes, MPI_BYTE, out, (int)bytes, MPI_BYTE, *(MPI_Comm *)ctx);
    return rc != MPI_SUCCESS;
}

/* Lets the MPI library progress the caller's other requests (and, for MPICH, its own network
 * layer) while a rank waits in shared memory. */
static void progress_mpi(void *ctx) {
    int flag;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
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
    MPI_Comm node;
    int node_size = 0;
    if (PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS) {
        not_handled(state, "MPI_Comm_split_type failed");
        return;
    }
    PMPI_Comm_size(node, &node_size);
    PMPI_Comm_free(&node);
    if (node_size != state->size) {
        not_handled(state, "the communicator spans more than one node");
        return;
    }

    /* The group first: a member that cannot have one makes team creation fail everywhere. */
    shmcoll_group_t *group = calloc(1, sizeof *group);
    int labels[state->size];
    for (int r = 0; r < state->size; r++) labels[r] = 0; /* one node */
    const int ready =
        group && shmcoll_group_map_init(&group->map, labels, state->size) == SHMCOLL_OK;
    shmcoll_bootstrap_t bootstrap = {.rank = state->rank,
                                     .size = state->size,
                                     .allgather = bootstrap_allgather,
                                     .ctx = &comm,
                                     .unready = !ready};
    shmcoll_team_t *team = NULL;
    shmcoll_status_t status = shmcoll_team_create(&bootstrap, &team);
    if (status != SHMCOLL_OK) {
        /* All members got the same status (team creation agrees on it), so all fall back. */
        if (state->rank == 0 && !atomic_exchange(&team_failure_warned, 1))
            shmcoll_log_warn("no shared memory for a communicator of %d processes (%s, in %s); "
                             "its collectives go to the MPI library",
                             state->size, shmcoll_status_string(status), shmcoll_config()->shm_dir);
        not_handled(state, shmcoll_status_string(status));
        group_destroy(group);
        return;
    }
    team->progress = progress_mpi;
    team->progress_ctx = NULL;
    group->rank = state->rank;
    group->size = state->size;
    group->team = team;
    state->group = group;
    state->kind = SHMCOLL_MPI_COMM_GROUP;
}

shmcoll_status_t shmcoll_mpi_comm_state_get(MPI_Comm comm, int setup_now,
                                            shmcoll_mpi_comm_t **out) {
    void *attr = NULL;
    int flag = 0;
    if (PMPI_Comm_get_attr(comm, comm_keyval, &attr, &flag) != MPI_SUCCESS)
        return SHMCOLL_ERR_INVALID;
    shmcoll_mpi_comm_t *state = flag ? attr : NULL;
    if (!state) {
        state = calloc(1, sizeof *state);
        if (!state) return SHMCOLL_ERR_NO_MEMORY;
        PMPI_Comm_test_inter(comm, &state->inter);
        PMPI_Comm_rank(comm, &state->rank);
        PMPI_Comm_size(comm, &state->size);
        state->counts = counting_rank(comm, state->rank, state->inter);
        state->kind = SHMCOLL_MPI_COMM_UNDECIDED;
        if (PMPI_Comm_set_attr(comm, comm_keyval, state) != MPI_SUCCESS) {
            free(state);
            return SHMCOLL_ERR_INVALID;
        }
    }
    if (setup_now && state->kind == SHMCOLL_MPI_COMM_UNDECIDED) setup(comm, state);
    *out = state;
    return SHMCOLL_OK;
}
