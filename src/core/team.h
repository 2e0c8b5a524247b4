/* A team: the processes of one communicator on one node, and the shared segment they talk through.
 *
 * Created from a bootstrap interface (rank, size and an allgather), so the same collectives run
 * under MPI and under fork()ed test processes without MPI. All members must call every team
 * function and every collective in the same order (as MPI requires of collectives); every
 * decision that changes the protocol is derived from arguments all members share. */
#ifndef SHMCOLL_CORE_TEAM_H
#define SHMCOLL_CORE_TEAM_H

#include "core/status.h"
#include "shm/segment.h"
#include "shm/channel.h"
#include "topo/hierarchy.h"
#include "topo/place.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct shmcoll_bootstrap {
    int rank;
    int size;
    /* Collective over the members: out[r * bytes .. (r+1) * bytes) receives rank r's `in`.
     * Returns 0 on success. */
    int (*allgather)(void *ctx, const void *in, void *out, size_t bytes);
    void *ctx;
} shmcoll_bootstrap_t;

#define SHMCOLL_TEAM_HIER_CACHE 8

/* Which collectives move large blocks single-copy (SHMCOLL_CMA). */
typedef enum shmcoll_cma_use {
    SHMCOLL_CMA_OFF,  /* none: off, or the kernel refuses cross-memory attach */
    SHMCOLL_CMA_AUTO, /* gather and scatter (the root's copies spread over the members), and
                         allgather and alltoall while their buffers fit in cache */
    SHMCOLL_CMA_ALL,  /* every data-movement collective and bcast, at any size */
} shmcoll_cma_use_t;

typedef struct shmcoll_team_hier_entry {
    char levels[64];
    int root;
    shmcoll_topo_hier_t *hier; /* NULL: empty entry */
} shmcoll_team_hier_entry_t;

typedef struct shmcoll_team {
    int rank;
    int size;
    int ncpus;                    /* CPUs the members may run on (union of their affinity masks) */
    int oversubscribed;           /* more members than CPUs: waiting ranks yield at once */
    pid_t *pids;                  /* pid of every member, for the liveness check of waits */
    shmcoll_topo_place_t *places; /* where every member runs (core/team_topo.h) */
    shmcoll_team_hier_entry_t hier_cache[SHMCOLL_TEAM_HIER_CACHE];
    int hier_next;
    shmcoll_segment_t segment;
    shmcoll_channel_t channel; /* the step protocol over the segment (shm/channel.h) */

    /* Called now and then during long waits, so the MPI library underneath keeps progressing
     * the caller's other requests. */
    void (*progress)(void *ctx);
    void *progress_ctx;

    /* Owned by select/: the team's selection table, freed with select_state_free. */
    void *select_state;
    void (*select_state_free)(void *state);

    size_t usable_cache; /* for non-temporal decisions (core/team_topo.h) */
    int bandwidth_bound; /* enough members per memory domain to be limited by its bandwidth */
    /* Working sets above this many bytes (four times the core's own cache) live in memory: their
     * copies take the memory loop (coll/coll_internal.h). SIZE_MAX when the caches are unknown. */
    size_t memory_copy_min;
    /* The running collective's working set, declared by its algorithm (YHCCL's W: the send,
     * receive and shared buffers it touches); 0 until declared, which keeps copies cache-bound. */
    size_t working_set;

    /* Single-copy transfers (shm/cma.h), where every member may read and write every other
     * member's memory and SHMCOLL_CMA asks for them; blocks of at least cma_min bytes then move
     * single-copy (allgather and alltoall only up to cma_max bytes, unless SHMCOLL_CMA=all). */
    shmcoll_cma_use_t cma;
    size_t cma_min;
    size_t cma_max;
    uint64_t cma_probe; /* a random word the others read at setup to test the permission */

    uint64_t dav;            /* bytes loaded + stored by this member's copy/reduce kernels */
    const char *last_algo;   /* name of the algorithm the last collective used */
    shmcoll_status_t failed; /* sticky: a team that timed out or lost a member stays unusable */
    char error[256];         /* message of the last failure, naming the peer and the operation */
} shmcoll_team_t;

/* Collective over the bootstrap members. On failure no member has a team (all agree) and no file
 * is left in the segment directory; NO_SPACE and SYSTEM are the fallback-worthy outcomes. */
shmcoll_status_t shmcoll_team_create(const shmcoll_bootstrap_t *bootstrap, shmcoll_team_t **team);

/* Local: detaches from the segment (already unlinked) and frees the team. */
void shmcoll_team_destroy(shmcoll_team_t *team);

#endif
