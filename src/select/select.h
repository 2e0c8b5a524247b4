/* The selector: which registered algorithm serves a call.
 *
 * An explicit choice (SHMCOLL_TUNE, SHMCOLL_TUNE_FILE) wins when its algorithm supports the call;
 * otherwise the algorithm with the lowest modelled cost among those that support it. Per team the
 * model's answers are kept in a table per (collective, commutativity, size band) — size bands are
 * powers of two — filled on first use; every member fills it from the same shared values, so all
 * members agree without talking. */
#ifndef SHMCOLL_SELECT_SELECT_H
#define SHMCOLL_SELECT_SELECT_H

#include "select/registry.h"
#include "select/tune.h"
#include "topo/hierarchy.h"

/* Size bands, the keys of choices by size: 0 for 0 bytes, else 1 + floor(log2(bytes)), so band
 * b > 0 holds [2^(b-1), 2^b). */
#define SHMCOLL_SELECT_BANDS 64
static inline int shmcoll_select_band(size_t bytes) {
    return bytes ? 64 - __builtin_clzll((unsigned long long)bytes) : 0;
}

/* The choice for `args` on a team described by `team`, applying `tune` (may be NULL). NULL when
 * no algorithm supports the call (the caller falls back). */
const shmcoll_algo_t *shmcoll_select(const shmcoll_select_args_t *args,
                                     const shmcoll_select_team_t *team, const shmcoll_tune_t *tune);

/* The description of a live team: size, chunk, oversubscription and the shapes of its bcast and
 * reduction hierarchies (SHMCOLL_HIER_BCAST / SHMCOLL_HIER_REDUCE). */
void shmcoll_select_describe(shmcoll_team_t *team, shmcoll_select_team_t *out);

/* The same from the parts: team size, chunk, oversubscription and the two hierarchies (NULL:
 * flat), for describing teams that do not exist (shmcoll-info). */
void shmcoll_select_describe_shape(int size, size_t chunk, int oversubscribed,
                                   const shmcoll_topo_hier_t *bcast,
                                   const shmcoll_topo_hier_t *reduce, shmcoll_select_team_t *out);

/* The choice for a call on a live team, through its table. */
const shmcoll_algo_t *shmcoll_select_for_team(shmcoll_team_t *team,
                                              const shmcoll_select_args_t *args);

/* The row `name` of the call's kind where it supports the call on the team, else NULL. */
const shmcoll_algo_t *shmcoll_select_row_for_team(shmcoll_team_t *team,
                                                  const shmcoll_select_args_t *args,
                                                  const char *name);

/* What a wrapping row (registry.h: the heap rows) runs when its call does not qualify: the choice
 * for the same call on the same team without wrapping rows. */
const shmcoll_algo_t *shmcoll_select_inner_for_team(shmcoll_team_t *team,
                                                    const shmcoll_select_args_t *args);

#endif
