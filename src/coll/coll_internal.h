/* Helpers shared by the algorithms of coll/: entering and leaving a collective, and the copy and
 * reduce primitives that count the bytes they load and store (DAV, the data-access volume of the
 * YHCCL paper: a copy of n bytes costs 2n, out = a op b over n bytes costs 3n). */
#ifndef SHMCOLL_COLL_INTERNAL_H
#define SHMCOLL_COLL_INTERNAL_H

#include "core/reduce_op.h"
#include "core/team.h"
#include "kernels/kernels.h"

#include <stdio.h>

/* Reduction algorithms serve reduce (result at `root`) and allreduce (root = COLL_ALL). */
#define COLL_ALL (-1)

static inline shmcoll_status_t coll_begin(shmcoll_team_t *team, const char *op) {
    if (team->failed) return team->failed; /* the message of the first failure stays */
    team->channel.waiter.op = op;
    team->channel.waiter.progress = team->progress;
    team->channel.waiter.progress_ctx = team->progress_ctx;
    return SHMCOLL_OK;
}

/* A failure (not NOT_SUPPORTED) leaves the team in an unknown protocol state: make it sticky. */
static inline shmcoll_status_t coll_end(shmcoll_team_t *team, shmcoll_status_t status,
                                        const char *algo) {
    if (status == SHMCOLL_OK) team->last_algo = algo;
    else if (status != SHMCOLL_ERR_NOT_SUPPORTED) team->failed = status;
    return status;
}

static inline void coll_copy(shmcoll_team_t *team, void *dst, const void *src, size_t bytes) {
    if (!bytes || dst == src) return;
    shmcoll_kernel_copy(dst, src, bytes);
    team->dav += 2 * bytes;
}

/* out = a op b over n elements; out may alias b (the accumulator), never a alone. */
static inline void coll_reduce(shmcoll_team_t *team, const shmcoll_reduce_op_t *op,
                               const void *a, const void *b, void *out, size_t n) {
    if (!n) return;
    if (op->kernel) {
        op->kernel(a, b, out, n);
    } else {
        coll_copy(team, out, b, shmcoll_reduce_op_span(op, n));
        op->user_fn(a, out, n, op->user_ctx);
    }
    team->dav += 3 * n * op->size;
}

/* Where member r's contribution of `step` sits: the inline area for tiny payloads, else its
 * data buffer. */
static inline const void *coll_slot(const shmcoll_channel_t *ch, int r, uint64_t step,
                                    int use_inline) {
    return use_inline ? shmcoll_channel_inline(ch, r, step) : shmcoll_channel_buffer(ch, r, step);
}

/* out = x0 op x1 op ... op x(p-1), where xr is n elements at byte `offset` of member r's slot of
 * `step`. Folded from the right (x(p-2) op x(p-1) first), which is the canonical rank order for
 * non-commutative ops given MPI's in/inout function shape, and the same order on every member, so
 * allreduce results are bitwise identical everywhere. */
static inline void coll_fold_slots(shmcoll_team_t *team, const shmcoll_reduce_op_t *op,
                                   uint64_t step, int use_inline, size_t offset, size_t n,
                                   void *out) {
    const shmcoll_channel_t *ch = &team->channel;
    const int p = ch->size;
    const char *last = (const char *)coll_slot(ch, p - 1, step, use_inline) + offset;
    if (p == 1) {
        coll_copy(team, out, last, shmcoll_reduce_op_span(op, n));
        return;
    }
    const char *prev = (const char *)coll_slot(ch, p - 2, step, use_inline) + offset;
    coll_reduce(team, op, prev, last, out, n);
    for (int r = p - 3; r >= 0; r--)
        coll_reduce(team, op, (const char *)coll_slot(ch, r, step, use_inline) + offset, out, out,
                    n);
}

shmcoll_status_t shmcoll_coll_reduce_flat(shmcoll_team_t *team, const void *sendbuf,
                                          void *recvbuf, size_t count,
                                          const shmcoll_reduce_op_t *op, int root);
shmcoll_status_t shmcoll_coll_reduce_split(shmcoll_team_t *team, const void *sendbuf,
                                           void *recvbuf, size_t count,
                                           const shmcoll_reduce_op_t *op, int root);

/* Which of the two reduction algorithms to use: identical on all members (it depends only on
 * arguments and team properties every member shares). */
int shmcoll_coll_reduce_use_flat(const shmcoll_team_t *team, const shmcoll_reduce_op_t *op,
                                 size_t count);

#endif
