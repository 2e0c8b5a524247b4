/* A team: the processes of one communicator on one node, and the shared segment they talk through.
 *
 * Created from a bootstrap interface (rank, size and an allgather), so the same collectives run
 * under MPI and under fork()ed test processes without MPI. All members must call every team
 * function and every collective in the same order (as MPI requires of collectives); every
 * decision that changes the protocol is derived from arguments all members share. */
#ifndef SHMCOLL_CORE_TEAM_H
#define SHMCOLL_CORE_TEAM_H

#include "base/status.h"
#include "shm/segment.h"
#include "shm/channel.h"
#include "core/team_topo.h"
#include "topo/hierarchy.h"
#include "topo/place.h"

#include <stdatomic.h>

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
    /* This member cannot go on (its caller failed to prepare): team creation then fails on
     * every member, so that no member takes another path alone. */
    int unready;
} shmcoll_bootstrap_t;

/* Which collectives move large blocks single-copy (SHMCOLL_CMA). */
typedef enum shmcoll_cma_use {
    SHMCOLL_CMA_OFF,  /* none: off, or the kernel refuses cross-memory attach */
    SHMCOLL_CMA_AUTO, /* gather and scatter (the root's copies spread over the members),
                         allgather and alltoall up to cma_max, bcast (registry.c) */
    SHMCOLL_CMA_ALL,  /* every data-movement collective and bcast, at any size */
} shmcoll_cma_use_t;

/* Lanes a team may have (SHMCOLL_LANES). */
#define SHMCOLL_MAX_LANES 4

/* One lane of a team: a step protocol of its own over its own part of the segment, and the tasks
 * started on it that are not done yet, in start order (core/task.h). Consecutive collectives run
 * on consecutive lanes, so several can be in flight at once, each with its own slots. */
typedef struct shmcoll_lane {
    shmcoll_channel_t channel;
    struct shmcoll_task *head, *tail;
    int nonblocking; /* tasks queued that the engine advances (core/task.h) */
    /* Claimed by the one thread that advances the lane now (core/task.c): the application's
     * thread in a test or wait, another thread's engine pass, the MPI library's progress hook.
     * Also keeps a progress function that re-enters through MPI off its own lane. */
    atomic_int busy;
    atomic_int listed; /* in the engine's list (core/task.c) */
    /* Scratch for the running task of the lane, allocated with the team so that no collective
     * allocates (a failed allocation on one member would leave the others waiting): 4 x size
     * ints and 2 x size + 2 pointers. Only progress may write it: init runs when a task starts,
     * possibly while an earlier task of the lane is still running with the scratch. */
    int *ints;
    const void **ptrs;
    /* Bytes the kernels of the lane's finished tasks loaded and stored (shmcoll_team_dav): written
     * only under the lane's claim, so a plain store suffices where the team's own counter took a
     * locked add, which waits for the collective's stores to the peers' lines to drain first. */
    uint64_t dav;
} shmcoll_lane_t;

/* What a SHMCOLL_CMA setting asks for (a malformed one is reported, and means auto). */
shmcoll_cma_use_t shmcoll_team_cma_asked(const char *text);

typedef struct shmcoll_team {
    int rank;
    int size;
    int ncpus;          /* CPUs the members may run on (union of their affinity masks) */
    int oversubscribed; /* more members than CPUs: waiting ranks yield at once */
    double sleep_after; /* oversubscribed: seconds of yielding before a waiter sleeps; else -1 */
    pid_t *pids;        /* pid of every member, for the liveness check of waits */
    shmcoll_topo_place_t *places; /* where every member runs (core/team_topo.h) */
    shmcoll_team_hiers_t hiers;   /* its hierarchies (core/team_topo.h) */
    shmcoll_segment_t segment;
    uint64_t segment_id[2]; /* the segment's name bits: its id where it is kept (team_pool.h) */
    shmcoll_lane_t lanes[SHMCOLL_MAX_LANES]; /* the step protocols over the segment */
    int nlanes;
    size_t chunk;       /* bytes of each member's data buffer in every lane */
    size_t budget_held; /* what the team holds of this process's budget (core/budget.h) */
    uint64_t started;   /* collectives started on the team */
    int next_lane;      /* the lane of the next one: started mod nlanes */

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

    /* Single-copy transfers (shm/cma.h), where every member may read and write every other
     * member's memory and SHMCOLL_CMA asks for them; blocks of at least cma_min bytes then move
     * single-copy (allgather and alltoall only up to cma_max bytes, unless SHMCOLL_CMA=all). */
    shmcoll_cma_use_t cma;
    size_t cma_min;
    size_t cma_max;
    uint64_t cma_probe; /* a random word the others read at setup to test the permission */

    /* Single copy through shared heaps (heap/heap.h, docs/HEAP.md): every member can map every
     * other member's heap arenas (probed at setup) and SHMCOLL_HEAP is not off. Collectives of
     * at least heap_min bytes then agree whether all their buffers lie in heaps. */
    int heap;
    size_t heap_min;

    /* Counters of the collectives done on the team (each task keeps its own): bytes loaded and
     * stored by this member's copy and reduce kernels outside the lanes' tasks (a composition's
     * own copies; shmcoll_team_dav adds the lanes'), and the algorithm of the last one. */
    uint64_t dav;
    const char *last_algo;
    shmcoll_status_t failed; /* sticky: a team that timed out or lost a member stays unusable */
    char error[256];         /* message of the last failure, naming the peer and the operation */
} shmcoll_team_t;

/* Collective over the bootstrap members. On failure no member has a team (all agree) and no file
 * is left in the segment directory; NO_SPACE and SYSTEM are the fallback-worthy outcomes. */
shmcoll_status_t shmcoll_team_create(const shmcoll_bootstrap_t *bootstrap, shmcoll_team_t **team);

/* This member cannot take part in the team's collectives any more (a local failure before a
 * collective, e.g. an allocation): the team fails for good, and the failure is published so
 * the other members stop at once with an error naming this member instead of waiting for it.
 * Returns `status`. */
shmcoll_status_t shmcoll_team_fail(shmcoll_team_t *team, shmcoll_status_t status);

/* Bytes this member's kernels loaded and stored in the team's collectives so far (the DAV of the
 * YHCCL paper): the lanes' counts and the team's own. Any thread may read it. */
static inline uint64_t shmcoll_team_dav(const shmcoll_team_t *team) {
    uint64_t dav = __atomic_load_n(&team->dav, __ATOMIC_RELAXED);
    for (int l = 0; l < team->nlanes; l++)
        dav += __atomic_load_n(&team->lanes[l].dav, __ATOMIC_RELAXED);
    return dav;
}

/* Local: detaches from the segment (already unlinked) and frees the team. */
void shmcoll_team_destroy(shmcoll_team_t *team);

/* The chunk a team of `size` members with `nlanes` lanes gets when each member grants `grant`
 * bytes of its budget (core/budget.h): the configured one, halved until the team fits the grant
 * (and the largest segment); 0 when not even the smallest chunk fits. *bytes: the segment's size
 * at that chunk (at the smallest when none fits). SIZE_MAX: no bound. */
size_t shmcoll_team_plan_chunk(int size, int nlanes, size_t grant, size_t *bytes);

/* Marks the team oversubscribed after its birth (waiting members yield at once, the selector
 * counts the cost of sharing CPUs): for a team whose CPUs other teams of the same machine use,
 * which only its caller can know (several simulated nodes on one kernel). Every member must
 * call it before the team's first collective, or none. */
void shmcoll_team_share_cpus(shmcoll_team_t *team);

#endif
