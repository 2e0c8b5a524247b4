/* What shmcoll knows about one communicator, cached on it as an attribute.
 *
 * Creating a communicator costs nothing: the state is made by the first wrapped collective on it.
 * The local part (rank, size, who counts statistics) needs no communication; the setup (node
 * split, group and team creation) is collective and decides, identically on all ranks, whether
 * shmcoll handles the communicator. The attribute's delete callback destroys the group, so
 * MPI_Comm_free and MPI_Finalize clean up without a wrapper of their own. */
#ifndef SHMCOLL_MPI_COMM_STATE_H
#define SHMCOLL_MPI_COMM_STATE_H

#include "base/status.h"
#include "mpi/group_setup.h"

#include <mpi.h>
#include <stdatomic.h>

typedef enum shmcoll_mpi_comm_kind {
    SHMCOLL_MPI_COMM_UNDECIDED,   /* setup not run yet (`reason` says why, once it was put off) */
    SHMCOLL_MPI_COMM_GROUP,       /* handled by `group`: shared memory on each node */
    SHMCOLL_MPI_COMM_SELF,        /* one process: handled locally, no team */
    SHMCOLL_MPI_COMM_NOT_HANDLED, /* every call goes to the MPI library (`reason` says why) */
} shmcoll_mpi_comm_kind_t;

typedef struct shmcoll_mpi_comm {
    int rank;
    int size;
    int inter;  /* intercommunicator: rank and size are those of the local group */
    int counts; /* this rank counts the communicator's operations in the statistics */
    shmcoll_mpi_comm_kind_t kind;
    long colls;             /* wrapped collectives called on it while undecided */
    const char *reason;     /* why the communicator is not handled */
    shmcoll_group_t *group; /* for SHMCOLL_MPI_COMM_GROUP: &setup->group */
    shmcoll_mpi_group_t *setup;
    void *calib;                 /* calibration's verdicts (calibrate.h); NULL until used ... */
    void (*calib_free)(void *);  /* ... and what frees them with the state */
    void *repeat;                /* the last prepared calls (repeat.h); NULL until kept ... */
    void (*repeat_free)(void *); /* ... and what frees them with the state */
    /* Holders: the communicator (until MPI_Comm_free), and each operation in flight on it, which
     * MPI lets complete after the communicator is freed. The last one frees the state, its group
     * and team. `freed`: the communicator is gone (its handle may be another's now). */
    atomic_int refs;
    atomic_int freed;
} shmcoll_mpi_comm_t;

/* An operation in flight holds the state (and its group) until it ends. */
void shmcoll_mpi_comm_state_hold(shmcoll_mpi_comm_t *state);
void shmcoll_mpi_comm_state_release(shmcoll_mpi_comm_t *state);

/* Creates the attribute keyval (part of the one-time setup). */
shmcoll_status_t shmcoll_mpi_comm_state_init(void);

/* Destroys the state of MPI_COMM_WORLD and MPI_COMM_SELF and frees the keyval: called by
 * MPI_Finalize before the MPI library finalises. */
void shmcoll_mpi_comm_state_finalize(void);

/* What a call may do to an undecided communicator. */
typedef enum shmcoll_mpi_comm_use {
    SHMCOLL_MPI_COMM_LOOK,  /* nothing: only the state (statistics, a pass-through) */
    SHMCOLL_MPI_COMM_COUNT, /* count a collective that may not wait for another rank (a local
                               call: MPI_I*), never set up */
    SHMCOLL_MPI_COMM_SETUP, /* count a collective, and set the communicator up when it is due
                               (a blocking collective, MPI_*_init: every rank makes the call) */
} shmcoll_mpi_comm_use_t;

/* The state of `comm`, created on first use. With SETUP, an undecided communicator is set up
 * now when it is due: collective over `comm`, so every rank must pass SETUP in the same call.
 * Every wrapped collective counts (COUNT or SETUP) alike on every rank, so all are set up at the
 * same blocking call. */
shmcoll_status_t shmcoll_mpi_comm_state_get(MPI_Comm comm, shmcoll_mpi_comm_use_t use,
                                            shmcoll_mpi_comm_t **state);

/* The state of `comm` when it is the last communicator this thread looked up (and no state was
 * deleted since), else NULL: no lookup, no count, nothing made. */
shmcoll_mpi_comm_t *shmcoll_mpi_comm_state_recent(MPI_Comm comm);

/* How many communicators' states were deleted so far: what a thread keeps of a communicator by
 * its handle (the last looked up, an express run, express.h) holds while this is unchanged, since
 * a freed communicator's handle may come back for another. */
extern atomic_uint shmcoll_mpi_comm_states_deleted;

#endif
