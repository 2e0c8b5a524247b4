/* Tree and multi-radix algorithms over the step protocol: k-nomial broadcast, reduction and
 * barrier (knomial.c), the dissemination barrier (dissem.c), and the multi-radix allreduces of
 * Jocksch et al.: recursive exchange (recexch.c, any op) and cyclic shift (cyclic.c, commutative
 * ops, any p).
 *
 * These are algorithm bodies: the public entry points (coll.h) call coll_begin/coll_end around
 * them. Each returns SHMCOLL_OK, SHMCOLL_ERR_NOT_SUPPORTED before consuming any step (decided from
 * arguments every member shares), or the failure of a wait. Every member calls them with the
 * same arguments, as for the public collectives. */
#ifndef SHMCOLL_COLL_ALGOS_TREE_H
#define SHMCOLL_COLL_ALGOS_TREE_H

#include "core/reduce_op.h"
#include "core/status.h"
#include "core/team.h"
#include "patterns/radix.h"

#include <stddef.h>

/* ---- k-nomial trees (radix k >= 2; k >= p is the flat tree) -------------------------------- */

/* `bytes` of buf from `root` to everyone, pipelined chunk by chunk down the tree. */
shmcoll_status_t shmcoll_coll_bcast_knomial(shmcoll_team_t *team, void *buf, size_t bytes, int root,
                                            int k);

/* recvbuf at root = sendbuf(0) op ... op sendbuf(p-1); sendbuf NULL at the root: in place.
 * Non-commutative ops are combined in canonical rank order. */
shmcoll_status_t shmcoll_coll_reduce_knomial(shmcoll_team_t *team, const void *sendbuf,
                                             void *recvbuf, size_t count,
                                             const shmcoll_reduce_op_t *op, int root, int k);

shmcoll_status_t shmcoll_coll_barrier_knomial(shmcoll_team_t *team, int k);

/* Hops from the root to the deepest member of a k-nomial tree over p members (0 for p = 1): the
 * most non-zero base-k digits of any relative rank below p. */
int shmcoll_coll_knomial_height(int p, int k);

/* ---- Dissemination barrier ----------------------------------------------------------------- */

shmcoll_status_t shmcoll_coll_barrier_dissem(shmcoll_team_t *team);

/* ---- Multi-radix allreduce ----------------------------------------------------------------- */

/* Recursive exchange with the default factorisation of the team size (radices up to
 * SHMCOLL_PATTERN_MAX_RADIX_DEFAULT; larger prime factors become radices of their own). Any op,
 * non-commutative ones included: results in canonical rank order, bitwise identical everywhere. */
shmcoll_status_t shmcoll_coll_allreduce_recexch(shmcoll_team_t *team, const void *sendbuf,
                                                void *recvbuf, size_t count,
                                                const shmcoll_reduce_op_t *op);
/* The same with a given factorisation (INVALID unless shmcoll_pattern_recexch_check accepts it
 * for the team size), for tuners and tests. */
shmcoll_status_t shmcoll_coll_allreduce_recexch_radix(shmcoll_team_t *team, const void *sendbuf,
                                                      void *recvbuf, size_t count,
                                                      const shmcoll_reduce_op_t *op,
                                                      const shmcoll_pattern_radix_t *f);

/* Cyclic shift with the default factorisation; commutative ops only (NOT_SUPPORTED otherwise). */
shmcoll_status_t shmcoll_coll_allreduce_cyclic(shmcoll_team_t *team, const void *sendbuf,
                                               void *recvbuf, size_t count,
                                               const shmcoll_reduce_op_t *op);
/* The same with a given factorisation (INVALID unless shmcoll_pattern_cyclic_check accepts it). */
shmcoll_status_t shmcoll_coll_allreduce_cyclic_radix(shmcoll_team_t *team, const void *sendbuf,
                                                     void *recvbuf, size_t count,
                                                     const shmcoll_reduce_op_t *op,
                                                     const shmcoll_pattern_radix_t *f);

/* The default factorisation of team size p for a pattern, computed once per (pattern, p) and kept
 * in a small process-wide cache (a mutex guards it; teams of any thread may share it). */
typedef enum shmcoll_coll_radix_kind {
    SHMCOLL_COLL_RADIX_RECEXCH,
    SHMCOLL_COLL_RADIX_CYCLIC,
} shmcoll_coll_radix_kind_t;

shmcoll_status_t shmcoll_coll_radix_default(shmcoll_coll_radix_kind_t kind, int p,
                                            shmcoll_pattern_radix_t *f);

/* out = x[0] op x[1] op ... op x[m-1] over n elements (m >= 1; m = 1 copies), in this order, so
 * non-commutative ops see their operands in canonical order. out may be x[0] only for kernels
 * and commutative ops; otherwise it must differ from every operand. Counts DAV. */
void shmcoll_coll_fold_ordered(shmcoll_team_t *team, const shmcoll_reduce_op_t *op,
                               const void *const *x, int m, void *out, size_t n);

#endif
