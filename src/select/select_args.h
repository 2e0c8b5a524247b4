/* What the selector's choice of an algorithm depends on: the call and the team, described by
 * values every member shares, so that every member picks the same algorithm without talking to
 * the others (select/registry.h). */
#ifndef SHMCOLL_SELECT_SELECT_ARGS_H
#define SHMCOLL_SELECT_SELECT_ARGS_H

#include "core/coll_args.h"

#include <stddef.h>

/* What the choice of a call depends on: arguments every member shares. */
typedef struct shmcoll_select_args {
    shmcoll_coll_kind_t kind;
    /* The size every member knows: bcast payload, reduction vector span (reduce_scatter: the
     * whole vector), one block (allgather, gather, scatter, alltoall), the longest block
     * (allgatherv); 0 for barrier and where only some members know the sizes (gatherv,
     * scatterv, alltoallv). */
    size_t bytes;
    size_t extent;   /* reductions: bytes between elements */
    int commutative; /* reductions */
    int in_place;    /* MPI_IN_PLACE, which MPI makes the same everywhere where it matters */
} shmcoll_select_args_t;

/* SHMCOLL_CMA_MAX's default (base/config.h, 1024G): no block is that long, so it bounds none. */
#define SHMCOLL_CMA_MAX_UNBOUNDED ((size_t)1 << 40)

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
    size_t cma_min;        /* ... for blocks of at least this many bytes */
    size_t cma_max;        /* ... and, for allgather and alltoall under auto, at most this many */
    int heap;              /* members may map each other's shared-heap arenas (core/team.h) */
    size_t heap_min;       /* ... for calls of at least this many bytes */
    int heap_chunks;       /* ... and of this many chunks for the pipelined kinds (registry.c) */
} shmcoll_select_team_t;

#endif
