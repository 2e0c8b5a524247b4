/* Topology-aware hierarchical algorithms (XHC, Katevenis et al., section IV): data moves level by
 * level of the team's hierarchy (core/team_topo.h), in chunks, pipelined across chunks and
 * levels, so it crosses each NUMA node and socket boundary once per group rather than once per
 * member. The levels come from the knobs SHMCOLL_HIER_BCAST and SHMCOLL_HIER_REDUCE; a team whose
 * placement is unknown gets a flat hierarchy, on which these algorithms still work (as a
 * pipelined flat broadcast and a split reduction).
 *
 * Their tasks' ops are in coll.h. This header shares their resumable bodies: the hierarchical
 * broadcast and reduction each run as a state of their own (setup in init, run in progress), so
 * the hierarchical barrier (hier_barrier.c) runs one after the other inside its task. */
#ifndef SHMCOLL_COLL_ALGOS_HIER_H
#define SHMCOLL_COLL_ALGOS_HIER_H

#include "base/status.h"
#include "core/task.h"
#include "kernels/reduce_op.h"
#include "shm/channel.h"
#include "topo/hierarchy.h"

#include <stddef.h>
#include <stdint.h>

/* ---- Hierarchies --------------------------------------------------------------------------- */

/* The root to look a hierarchy up with (core/team_topo.h) for a collective rooted at `root`.
 * Without a root the lowest ranks lead, so rank 0 leads every group it is in: the hierarchy
 * rooted at 0 is the unrooted one, which the team built and pinned in its cache at creation.
 * Looking it up so keeps the entry a task holds while in flight from being replaced by the
 * lookups of tasks started after it (the barrier holds two). */
static inline int shmcoll_coll_hier_lookup_root(int root) {
    return root == 0 ? -1 : root;
}

/* ---- Claims -------------------------------------------------------------------------------- */

/* Claiming a step from the members that may read this member's buffers only, not the whole team:
 * a NUMA-local member then never waits for (nor reads the flags of) members elsewhere. That is
 * sound once every member is known to be done with whatever the previous collective read of ours,
 * so the first claim of each buffer parity in a collective is a full one. */
typedef struct shmcoll_coll_hier_claim {
    const int *readers; /* every member that may read this member's buffers, itself excluded */
    int nreaders;
    int full_done[2]; /* a full claim of this parity happened in this collective */
    uint64_t claimed; /* the last step claimed */
} shmcoll_coll_hier_claim_t;

/* Before the first claim of a collective. */
static inline void shmcoll_coll_hier_claim_reset(shmcoll_coll_hier_claim_t *claim,
                                                 const int *readers, int nreaders) {
    *claim = (shmcoll_coll_hier_claim_t){.readers = readers, .nreaders = nreaders};
}

/* Claim `step` (channel.h's test form: OK, or IN_PROGRESS with the flag in *w). Progress is
 * recorded only once the claim holds, so it may be repeated; later calls for the same step return
 * OK at once. */
shmcoll_status_t shmcoll_coll_hier_test_claim(shmcoll_channel_t *ch,
                                              shmcoll_coll_hier_claim_t *claim, uint64_t step,
                                              shmcoll_wait_t *w);

/* ---- Broadcast (hier_bcast.c) -------------------------------------------------------------- */

/* `bytes` of buf from root to every member, down the tree of the SHMCOLL_HIER_BCAST hierarchy.
 * Steps: chunks + tree height (at most the number of levels). */
typedef struct shmcoll_coll_hier_bcast {
    char *buf;
    size_t bytes;
    int single; /* p = 1: nothing to do */
    int parent; /* -1 at the root */
    int depth;
    int use_inline;
    size_t piece, steps;
    const shmcoll_topo_hier_t *hier;
    shmcoll_coll_hier_claim_t claim; /* readers: the children (lane scratch) */
    size_t k;                        /* the step in hand, counted from 0 */
    uint64_t step;
} shmcoll_coll_hier_bcast_t;

/* From init: NOT_SUPPORTED (a bad level list), a failure, or OK with `b` planned. */
shmcoll_status_t shmcoll_coll_hier_bcast_setup(shmcoll_task_t *task, shmcoll_coll_hier_bcast_t *b,
                                               void *buf, size_t bytes, int root);

/* From progress, resumable at *pc (0 before the first call; 0 again once it returns OK). */
shmcoll_status_t shmcoll_coll_hier_bcast_run(shmcoll_task_t *task, shmcoll_coll_hier_bcast_t *b,
                                             int *pc);

/* From fini: lets go of the hierarchy setup took (core/team_topo.h: held while in flight). */
void shmcoll_coll_hier_bcast_done(shmcoll_task_t *task, shmcoll_coll_hier_bcast_t *b);

/* ---- Reduce and allreduce (hier_reduce.c) --------------------------------------------------- */

/* recvbuf at root = sendbuf(0) op ... op sendbuf(p-1), up the SHMCOLL_HIER_REDUCE hierarchy;
 * root COLL_ALL: the same reduction, its result then broadcast down the same hierarchy, bitwise
 * identical on every member (each element is reduced once). Non-commutative ops only when every
 * level's groups cover contiguous rank ranges (else NOT_SUPPORTED). sendbuf NULL at the root: its
 * input is in recvbuf. Steps: chunks + levels + 1 (reduce) or + tree height (allreduce). */
typedef struct shmcoll_coll_hier_reduce {
    const shmcoll_topo_hier_t *hier;
    const shmcoll_reduce_op_t *op;
    const char *input;
    char *recvbuf;
    size_t count;
    int root;      /* or COLL_ALL */
    int mode;      /* what progress does: nothing (no elements), one copy (p = 1), or the run */
    size_t n;      /* elements per chunk */
    size_t chunks; /* ceil(count / n) */
    size_t align;  /* elements per cache line: parts start on one */
    /* Regions of a buffer, in bytes: the copied-in chunk, each level's part, the result. */
    size_t off_in, off_part[SHMCOLL_TOPO_MAX_LEVELS + 1], off_down;
    int levels;      /* of the hierarchy, L */
    int my_levels;   /* levels this member reduces at: 0 .. my_levels-1 */
    int down_depth;  /* 0: gets no result; else the result's chunk c reaches it in step c+L+d */
    int down_parent; /* -1: reads the top group's parts */
    int nchildren;   /* members that copy the result from this one */
    size_t steps;
    shmcoll_coll_hier_claim_t claim; /* readers in the lane scratch, then children, feeders */
    size_t k;                        /* the step in hand, counted from 0 */
    uint64_t step;
    int i;        /* the level in hand */
    int f;        /* the feeder waited for */
    int nfeeders; /* of the level in hand */
    int t;        /* the top-group part in hand */
} shmcoll_coll_hier_reduce_t;

shmcoll_status_t shmcoll_coll_hier_reduce_setup(shmcoll_task_t *task, shmcoll_coll_hier_reduce_t *r,
                                                const void *sendbuf, void *recvbuf, size_t count,
                                                const shmcoll_reduce_op_t *op, int root);

shmcoll_status_t shmcoll_coll_hier_reduce_run(shmcoll_task_t *task, shmcoll_coll_hier_reduce_t *r,
                                              int *pc);

void shmcoll_coll_hier_reduce_done(shmcoll_task_t *task, shmcoll_coll_hier_reduce_t *r);

#endif
