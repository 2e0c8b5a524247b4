/* Topology-aware hierarchical algorithms (XHC, Katevenis et al., section IV): data moves level by
 * level of the team's hierarchy (core/team_topo.h), in chunks, pipelined across chunks and
 * levels, so it crosses each NUMA node and socket boundary once per group rather than once per
 * member. The levels come from the knobs SHMCOLL_HIER_BCAST and SHMCOLL_HIER_REDUCE; a team whose
 * placement is unknown gets a flat hierarchy, on which these algorithms still work (as a
 * pipelined flat broadcast and a split reduction).
 *
 * Like every algorithm of coll/, these are called by the entry points between coll_begin and
 * coll_end, and return SHMCOLL_OK, SHMCOLL_ERR_NOT_SUPPORTED (decided identically on every member,
 * before any step), or the failure of a wait. */
#ifndef SHMCOLL_COLL_ALGOS_HIER_H
#define SHMCOLL_COLL_ALGOS_HIER_H

#include "core/reduce_op.h"
#include "core/status.h"
#include "core/team.h"

#include <stddef.h>
#include <stdint.h>

/* `bytes` of buf from root to every member, down the tree of the SHMCOLL_HIER_BCAST hierarchy.
 * Steps: chunks + tree height (at most the number of levels). */
/* Arrival up the reduction hierarchy, release down the bcast hierarchy (hier_barrier.c). */
shmcoll_status_t shmcoll_coll_barrier_hier(shmcoll_team_t *team);

shmcoll_status_t shmcoll_coll_bcast_hier(shmcoll_team_t *team, void *buf, size_t bytes, int root);

/* recvbuf at root = sendbuf(0) op ... op sendbuf(p-1), up the SHMCOLL_HIER_REDUCE hierarchy.
 * Non-commutative ops only when every level's groups cover contiguous rank ranges (else
 * NOT_SUPPORTED). sendbuf NULL at the root: its input is in recvbuf. Steps: chunks + levels + 1. */
shmcoll_status_t shmcoll_coll_reduce_hier(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                          size_t count, const shmcoll_reduce_op_t *op, int root);

/* The same reduction, its result then broadcast down the same hierarchy: bitwise identical on
 * every member (each element is reduced once). Steps: chunks + levels + tree height. */
shmcoll_status_t shmcoll_coll_allreduce_hier(shmcoll_team_t *team, const void *sendbuf,
                                             void *recvbuf, size_t count,
                                             const shmcoll_reduce_op_t *op);

/* ---- Shared by the hierarchical algorithms ----------------------------------------------- */

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

/* Claim `step` (once per step; later calls for the same step return at once). */
shmcoll_status_t shmcoll_coll_hier_claim(shmcoll_channel_t *ch, shmcoll_coll_hier_claim_t *claim,
                                         uint64_t step);

#endif
