/* What the multi-radix allreduces of Jocksch et al. share beyond their ops (coll.h): recursive
 * exchange (recexch.c, any op) and cyclic shift (cyclic.c, commutative ops, any p) choose their
 * factorisation of the team size here. */
#ifndef SHMCOLL_COLL_RADIX_DEFAULT_H
#define SHMCOLL_COLL_RADIX_DEFAULT_H

#include "kernels/reduce_op.h"
#include "base/status.h"
#include "core/team.h"
#include "patterns/radix.h"

#include <stddef.h>

/* ---- Multi-radix allreduce ----------------------------------------------------------------- */

/* Recursive exchange (recexch.c: any op, results in canonical rank order, bitwise identical
 * everywhere) and cyclic shift (cyclic.c: commutative ops) are tasks (their ops in coll.h) run
 * with params.factors, INVALID before any step unless shmcoll_pattern_recexch_check or
 * shmcoll_pattern_cyclic_check accepts it for the team size, or NULL for the default one below
 * (radices up to SHMCOLL_PATTERN_MAX_RADIX_DEFAULT; larger prime factors become radices of their
 * own). */

/* The default factorisation of team size p for a pattern, computed once per (pattern, p) and kept
 * in a small process-wide cache (a mutex guards it; teams of any thread may share it). */
typedef enum shmcoll_coll_radix_kind {
    SHMCOLL_COLL_RADIX_RECEXCH,
    SHMCOLL_COLL_RADIX_CYCLIC,
} shmcoll_coll_radix_kind_t;

shmcoll_status_t shmcoll_coll_radix_default(shmcoll_coll_radix_kind_t kind, int p,
                                            shmcoll_pattern_radix_t *f);

#endif
