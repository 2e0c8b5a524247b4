/* Requests of the non-blocking (MPI_I*) and persistent (MPI_*_init) collectives served in shared
 * memory. docs/REQUESTS.md has the design; in short:
 *
 *   handle    every shmcoll operation owns a real MPI request for its whole life: an inactive
 *             persistent receive from MPI_PROC_NULL on a private communicator (made once, kept
 *             in a pool with its operation). The application gets that handle; a hash on the
 *             handle's value finds the operation. Handing one out costs no MPI call.
 *   post      MPI_Iallreduce begins and prepares the call as a blocking one does (call.h),
 *             starts it on the group (group/compose.h: a node team task on a lane, or a
 *             composition across nodes) and returns the handle.
 *   init      MPI_Allreduce_init begins and prepares once, on a duplicate of the communicator
 *             whose group is the request's own (its lanes and slots), so requests started in
 *             different orders on different ranks never meet on a lane; MPI_Start only starts.
 *   progress  the Wait/Test family (request_wait.c), the engine's hook (every waiting member of
 *             a shmcoll collective) and the optional progress thread (progress.h) advance the
 *             operations in flight; once its group part is done an operation is completed on the
 *             application's thread: unpacked into the user's layout and counted (call.h finish,
 *             end), its failure raised through the communicator's error handler.
 *   report    the Wait/Test that finds it complete fills an empty status (as MPI defines for
 *             collectives), frees a non-blocking handle (MPI_REQUEST_NULL) or leaves a
 *             persistent one inactive.
 * The handle reaches the MPI library only through shmcoll's own wrappers of the request calls;
 * a request call that bypasses them sees an inactive request. */
#ifndef SHMCOLL_MPI_REQUEST_H
#define SHMCOLL_MPI_REQUEST_H

#include "mpi/call.h"

#include <mpi.h>

typedef struct shmcoll_mpi_op shmcoll_mpi_op_t;

/* Any form of a collective: blocking (how NULL: shmcoll_mpi_coll_run), non-blocking or
 * persistent (below). Returns the MPI code. `margs`, the record of the MPI arguments, is zeroed
 * before its fields are set, its padding too: the repeat path (repeat.h) compares its bytes with
 * a kept call's, and padding left as the stack had it made calls with equal arguments differ at
 * random, on one rank and not on another (under given tuning, where a repeat then took another
 * way than the usual path, the ranks parted and a loop of 8-byte broadcasts hung). */
int shmcoll_mpi_coll_call(const shmcoll_mpi_coll_desc_t *desc, const void *margs, MPI_Comm comm,
                          int large, const shmcoll_mpi_how_t *how);

/* A call whose arguments the MPI library refuses on this rank (library_checks.h, `reason`): to
 * the MPI library as it came, in its form, before shmcoll counts it. Returns the MPI code. */
int shmcoll_mpi_coll_refused(const shmcoll_mpi_coll_desc_t *desc, const void *margs, MPI_Comm comm,
                             int large, const shmcoll_mpi_how_t *how, const char *reason);

/* MPI_I*: the collective `desc` with MPI arguments `margs` as a request in *request (the MPI
 * library's own when it falls back). Returns the MPI code. */
int shmcoll_mpi_request_post(const shmcoll_mpi_coll_desc_t *desc, const void *margs, MPI_Comm comm,
                             int large, MPI_Request *request);

/* MPI_*_init: the same as an inactive persistent request. */
int shmcoll_mpi_request_init(const shmcoll_mpi_coll_desc_t *desc, const void *margs, MPI_Comm comm,
                             int large, MPI_Info info, MPI_Request *request);

/* Whether shmcoll holds any request (the wrappers pass straight to the MPI library when not). */
int shmcoll_mpi_request_any(void);

/* Whether any operation is in flight (a wait for the MPI library's requests must then keep
 * advancing them: a peer may be waiting for one). */
int shmcoll_mpi_request_inflight(void);

/* The operation of a handle, or NULL when it is not shmcoll's. */
shmcoll_mpi_op_t *shmcoll_mpi_request_find(MPI_Request handle);

/* Advances every operation in flight and completes those whose group part is done (the
 * application's thread: completing may call MPI). */
void shmcoll_mpi_request_progress(void);

/* Advances the node team tasks of the operations in flight, calling no MPI (the progress
 * thread). */
void shmcoll_mpi_request_progress_quiet(void);

/* Whether the operation is active (started and not yet reported). */
int shmcoll_mpi_op_active(const shmcoll_mpi_op_t *op);

/* Completes an active operation if it is done, without waiting: 1 when complete. */
int shmcoll_mpi_op_test(shmcoll_mpi_op_t *op);

/* Completes an active operation, waiting (bounded) for it. */
void shmcoll_mpi_op_wait(shmcoll_mpi_op_t *op);

/* For a complete (or inactive) operation: fills *status (unless MPI_STATUS_IGNORE) with an empty
 * status, releases a non-blocking one (*request = MPI_REQUEST_NULL) or leaves a persistent one
 * inactive. Returns the operation's MPI code. */
int shmcoll_mpi_op_report(shmcoll_mpi_op_t *op, MPI_Request *request, MPI_Status *status);

/* An empty status (MPI_SOURCE = MPI_ANY_SOURCE, MPI_TAG = MPI_ANY_TAG, count 0). */
void shmcoll_mpi_status_empty(MPI_Status *status);

/* MPI_Start of a persistent operation. Returns the MPI code. */
int shmcoll_mpi_op_start(shmcoll_mpi_op_t *op);

/* MPI_Request_free: an active operation goes on to its end and is released then; an inactive
 * one is released now. *request = MPI_REQUEST_NULL. */
int shmcoll_mpi_op_free(shmcoll_mpi_op_t *op, MPI_Request *request);

/* Releases every request and the private communicator (MPI_Finalize, MPI still working). */
void shmcoll_mpi_request_finalize(void);

#endif
