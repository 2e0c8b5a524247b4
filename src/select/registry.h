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

#include "core/reduce_op.h"
#include "core/status.h"
#include "core/team.h"

#include <stddef.h>

typedef enum shmcoll_coll_kind {
    SHMCOLL_KIND_BARRIER,
    SHMCOLL_KIND_BCAST,
    SHMCOLL_KIND_REDUCE,
    SHMCOLL_KIND_ALLREDUCE,
    SHMCOLL_KIND_COUNT
} shmcoll_coll_kind_t;

/* "barrier", "bcast", ...; NULL past the end. */
const char *shmcoll_coll_kind_name(shmcoll_coll_kind_t kind);
/* The kind named `name`, or -1. */
int shmcoll_coll_kind_parse(const char *name);

/* What the choice of a call depends on. */
typedef struct shmcoll_select_args {
    shmcoll_coll_kind_t kind;
    size_t bytes;    /* message bytes: bcast payload, reduction vector span; 0 for barrier */
    size_t extent;   /* reductions: bytes between elements */
    int commutative; /* reductions */
} shmcoll_select_args_t;

/* What the choice depends on of the team: the same on every member. */
typedef struct shmcoll_select_team {
    int size;
    size_t chunk;
    int oversubscribed;
    int bcast_levels;     /* levels of the bcast hierarchy (1: flat machine or unknown placement) */
    int bcast_max_group;  /* members of its largest group */
    int reduce_levels;    /* levels of the reduction hierarchy */
    int reduce_max_group; /* members of its largest group */
    int reduce_contiguous; /* every reduction level groups contiguous ranks */
    int cma;               /* shmcoll_cma_use_t: which collectives may move single-copy */
    int socket_groups;     /* sockets the team spans with equal members each (2+), else 0 */
    size_t cma_min;        /* ... for messages of at least this many bytes */
} shmcoll_select_team_t;

typedef shmcoll_status_t (*shmcoll_run_barrier_fn)(shmcoll_team_t *team);
typedef shmcoll_status_t (*shmcoll_run_bcast_fn)(shmcoll_team_t *team, void *buf, size_t bytes,
                                                 int root);
/* root COLL_ALL (-1): allreduce. */
typedef shmcoll_status_t (*shmcoll_run_reduce_fn)(shmcoll_team_t *team, const void *sendbuf,
                                                  void *recvbuf, size_t count,
                                                  const shmcoll_reduce_op_t *op, int root);

typedef struct shmcoll_algo {
    shmcoll_coll_kind_t kind;
    const char *name; /* used in SHMCOLL_TUNE (@name), stats and listings */
    const char *description;
    int (*supports)(const shmcoll_select_args_t *args, const shmcoll_select_team_t *team);
    /* Modelled time in microseconds: synchronisations x their latency + bytes each member moves
     * / bandwidth (from the algorithm's DAV). Only the order between algorithms matters. */
    double (*cost)(const shmcoll_select_args_t *args, const shmcoll_select_team_t *team);
    union {
        shmcoll_run_barrier_fn barrier;
        shmcoll_run_bcast_fn bcast;
        shmcoll_run_reduce_fn reduce; /* reduce and allreduce */
    } run;
} shmcoll_algo_t;

/* The i-th registered algorithm, NULL past the end. */
const shmcoll_algo_t *shmcoll_algo_at(int index);
/* The algorithm `name` of `kind`, or NULL. */
const shmcoll_algo_t *shmcoll_algo_find(shmcoll_coll_kind_t kind, const char *name);

#endif
