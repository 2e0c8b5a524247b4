/* The collectives of a team, over shared memory. MPI-agnostic: buffers are bytes or elements
 * described by a shmcoll_reduce_op_t. A NULL sendbuf means "in place": the input is in recvbuf.
 *
 * Every function returns SHMCOLL_OK, SHMCOLL_ERR_NOT_SUPPORTED (nothing was done and nothing was
 * communicated: every member returns it for the same arguments, so the caller may fall back), or
 * a failure (TIMEOUT, PEER_DEAD) whose message is in team->error. team->dav grows by the bytes
 * the kernels loaded and stored; team->last_algo names the algorithm used. */
#ifndef SHMCOLL_COLL_COLL_H
#define SHMCOLL_COLL_COLL_H

#include "core/reduce_op.h"
#include "core/status.h"
#include "core/team.h"

#include <stddef.h>

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

#endif
