/* The algorithm registry: every algorithm of every collective, with what it supports and what it
 * costs, in one table (select/registry.c). The selector (select.h) picks from it per call; the
 * listing tools print it. An algorithm is registered only once it passes the whole team-test
 * matrix.
 *
 * Everything an algorithm's supports() and cost() look at is in shmcoll_select_args_t and
 * shmcoll_select_team_t, which hold only values every team member shares (arguments MPI requires
 * to be equal, team size, chunk size, hierarchy shape), so every member picks the same algorithm
 * without talking to the others. */
#ifndef SHMCOLL_SELECT_REGISTRY_H
#define SHMCOLL_SELECT_REGISTRY_H

#include "base/status.h"
#include "core/coll_args.h"
#include "core/task.h"
#include "select/select_args.h"

#include <stddef.h>
#include <stdint.h>

/* One row per algorithm: {kinds, supports, cost, task ops}. */
typedef struct shmcoll_algo {
    uint32_t kinds;   /* SHMCOLL_KIND_BIT of every kind it serves */
    const char *name; /* used in SHMCOLL_TUNE (@name), stats and listings */
    const char *description;
    int (*supports)(const shmcoll_select_args_t *args, const shmcoll_select_team_t *team);
    /* Modelled time in microseconds: synchronisations x their latency + bytes each member moves
     * / bandwidth (from the algorithm's DAV). Only the order between algorithms matters. NULL:
     * no model; such rows are preferred in registry order where they support the call (the
     * single-copy and one-step rows: measured faster wherever they apply, see their rows). */
    double (*cost)(const shmcoll_select_args_t *args, const shmcoll_select_team_t *team);
    const shmcoll_task_ops_t *ops; /* NULL: the MPI library's own algorithm (@mpi), or a form */
    /* params.wraps: a wrapping row (the heap rows): its task first agrees whether the call
     * qualifies (every buffer in a shared heap) and otherwise runs the row the selector picks
     * without wrapping rows, in the same task (params.inner, set per call by
     * select/team_coll.c). */
    shmcoll_task_params_t params;
    /* 0: an algorithm of a node team (or @mpi). Else a form of a collective across nodes (its
     * number, which group/ interprets): chosen only by a tuning rule, for communicators that
     * span nodes; a node team never runs it (supports() says no). */
    int nodes_form;
} shmcoll_algo_t;

/* Whether row `a` serves `kind`. */
static inline int shmcoll_algo_serves(const shmcoll_algo_t *a, shmcoll_coll_kind_t kind) {
    return (a->kinds & SHMCOLL_KIND_BIT(kind)) != 0;
}

/* The i-th registered algorithm, NULL past the end. */
const shmcoll_algo_t *shmcoll_algo_at(int index);
/* The algorithm `name` serving `kind`, or NULL. */
const shmcoll_algo_t *shmcoll_algo_find(shmcoll_coll_kind_t kind, const char *name);

#endif
