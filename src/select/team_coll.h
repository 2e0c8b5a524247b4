/* The collectives of a team: the selector's choice among the registry's rows (select/registry.h),
 * run as a task (core/task.h). MPI-agnostic: buffers are bytes, or elements described by a
 * shmcoll_reduce_op_t; core/coll_args.h says which arguments each kind reads. A NULL sendbuf
 * means "in place".
 *
 * Every function returns SHMCOLL_OK, SHMCOLL_ERR_NOT_SUPPORTED (nothing was done and nothing was
 * communicated: every member returns it for the same arguments, so the caller may fall back),
 * SHMCOLL_ERR_INVALID (a root out of range), or a failure (TIMEOUT, PEER_DEAD) whose message is
 * in team->error. shmcoll_team_dav(team) grows by the bytes the kernels loaded and stored;
 * team->last_algo names the algorithm the collective took. */
#ifndef SHMCOLL_SELECT_TEAM_COLL_H
#define SHMCOLL_SELECT_TEAM_COLL_H

#include "core/coll_args.h"
#include "core/task.h"
#include "select/registry.h"

#include <stddef.h>

/* The size of the call every one of `size` members knows (select/registry.h: what supports(),
 * cost() and tuning rules see), 0 when only some do (the v-variants but allgatherv). */
size_t shmcoll_coll_shared_bytes(int size, const shmcoll_coll_args_t *a);

/* Starts the collective `args` as `task` (both stay the caller's until the task is done): the
 * selector's choice, or, with `algo`, that row (NOT_SUPPORTED when it cannot serve the call).
 * A collective with nothing to move is done at once (task->status OK). Then shmcoll_task_test
 * or shmcoll_task_wait. */
shmcoll_status_t shmcoll_coll_start(shmcoll_team_t *team, const shmcoll_coll_args_t *args,
                                    const shmcoll_algo_t *algo, shmcoll_task_t *task);

/* The name of the row the selector picks for `args` on the team (*inner: the row a wrapping row
 * runs when the call does not qualify), or NULL when none serves it or nothing moves; the same on
 * every member. */
const char *shmcoll_coll_pick(shmcoll_team_t *team, const shmcoll_coll_args_t *args,
                              const char **inner);

/* Whether the selector gives `args` to the MPI library on the team: a tuning rule names @mpi
 * (the model never does); the same on every member. */
int shmcoll_coll_takes_mpi(shmcoll_team_t *team, const shmcoll_coll_args_t *args);

/* Whether the row `name` serves `args` on the team (args->row would be honoured). */
int shmcoll_coll_row_serves(shmcoll_team_t *team, const shmcoll_coll_args_t *args,
                            const char *name);

/* Starts and waits. */
shmcoll_status_t shmcoll_coll_run(shmcoll_team_t *team, const shmcoll_coll_args_t *args);

/* The row the selector chose for a call, as its task takes it, kept by a caller that runs the
 * same call again (mpi/repeat.c): the choice is a function of the arguments (args->row included)
 * and the team, so the same arguments on the same team choose the same row again. Zeroed: none
 * kept yet. */
typedef struct shmcoll_coll_choice {
    const shmcoll_task_ops_t *ops;
    shmcoll_task_params_t params;
    const char *algo;
} shmcoll_coll_choice_t;

/* shmcoll_coll_run, through the row kept in `choice` when there is one (no checks, no selection:
 * 130 of the 1300 instructions of an 8-byte gather), else choosing it and keeping it there. */
shmcoll_status_t shmcoll_coll_run_chosen(shmcoll_team_t *team, const shmcoll_coll_args_t *args,
                                         shmcoll_coll_choice_t *choice);

/* The same through the row `name` of the kind (tests and tuning), with its params replaced by
 * `params` when given (a radix, a factorisation). NOT_SUPPORTED for a name the kind lacks. */
shmcoll_status_t shmcoll_coll_run_algo(shmcoll_team_t *team, const shmcoll_coll_args_t *args,
                                       const char *name, const shmcoll_task_params_t *params);

/* ---- Each kind with its arguments spelled out (shmcoll_coll_run underneath) ------------- */

shmcoll_status_t shmcoll_barrier(shmcoll_team_t *team);

/* `bytes` of buf from `root` to everyone. */
shmcoll_status_t shmcoll_bcast(shmcoll_team_t *team, void *buf, size_t bytes, int root);

/* recvbuf at root = sendbuf(0) op ... op sendbuf(p-1), `count` elements; recvbuf is ignored
 * elsewhere. sendbuf NULL at the root: its input is in recvbuf. */
shmcoll_status_t shmcoll_reduce(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                size_t count, const shmcoll_reduce_op_t *op, int root);

/* recvbuf everywhere = the same reduction, bitwise identical on all members. */
shmcoll_status_t shmcoll_allreduce(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                   size_t count, const shmcoll_reduce_op_t *op);

/* Member r receives block r of the reduction; block j has counts[j] elements and the blocks lie
 * back to back in sendbuf (recvbuf when sendbuf is NULL: the result then overwrites the start of
 * recvbuf). reduce_scatter_block is the case of equal counts. */
shmcoll_status_t shmcoll_reduce_scatter(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                        const size_t *counts, const shmcoll_reduce_op_t *op);
shmcoll_status_t shmcoll_reduce_scatter_block(shmcoll_team_t *team, const void *sendbuf,
                                              void *recvbuf, size_t count,
                                              const shmcoll_reduce_op_t *op);

/* recvbuf at r = sendbuf(0) op ... op sendbuf(r) (scan) or ... op sendbuf(r-1) (exscan; recvbuf
 * of member 0 is left untouched). */
shmcoll_status_t shmcoll_scan(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                              size_t count, const shmcoll_reduce_op_t *op);
shmcoll_status_t shmcoll_exscan(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                size_t count, const shmcoll_reduce_op_t *op);

/* Every member's `bytes` to every member, in rank order: recvbuf[r*bytes..]. In place: member r's
 * block is already at recvbuf + r*bytes. */
shmcoll_status_t shmcoll_allgather(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                   size_t bytes);
/* Member r contributes recvbytes[r] bytes (its sendbuf), placed at recvbuf + displs[r]
 * everywhere. All members pass the same recvbytes and displs. */
shmcoll_status_t shmcoll_allgatherv(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                    const size_t *recvbytes, const size_t *displs);

/* Root receives every member's `bytes` in rank order. In place at the root: its block is already
 * at recvbuf + root*bytes. */
shmcoll_status_t shmcoll_gather(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                size_t bytes, int root);
/* Member r sends sendbytes (its own count); the root places it at recvbuf + displs[r], with
 * recvbytes[r] == member r's sendbytes. recvbytes and displs are read at the root only. */
shmcoll_status_t shmcoll_gatherv(shmcoll_team_t *team, const void *sendbuf, size_t sendbytes,
                                 void *recvbuf, const size_t *recvbytes, const size_t *displs,
                                 int root);

/* Member r receives bytes r*bytes.. of the root's sendbuf. In place at the root: recvbuf NULL and
 * the root keeps its block where it is. */
shmcoll_status_t shmcoll_scatter(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                 size_t bytes, int root);
/* Member r receives recvbytes bytes from root's sendbuf + displs[r] (sendbytes[r] at the root
 * equals member r's recvbytes). sendbytes and displs are read at the root only. recvbuf NULL at
 * the root means in place. */
shmcoll_status_t shmcoll_scatterv(shmcoll_team_t *team, const void *sendbuf,
                                  const size_t *sendbytes, const size_t *displs, void *recvbuf,
                                  size_t recvbytes, int root);

/* Block r of member q's sendbuf (bytes each) lands as block q of member r's recvbuf. In place
 * (sendbuf NULL): the blocks to send are in recvbuf and are replaced. */
shmcoll_status_t shmcoll_alltoall(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                  size_t bytes);
/* The same with per-peer byte counts and displacements; sendbytes[r] of member q must equal
 * recvbytes[q] of member r. */
shmcoll_status_t shmcoll_alltoallv(shmcoll_team_t *team, const void *sendbuf,
                                   const size_t *sendbytes, const size_t *sdispls, void *recvbuf,
                                   const size_t *recvbytes, const size_t *rdispls);

#endif
