/* Collectives of a group that spans nodes, composed of node phases (tasks on the node team, with
 * every algorithm of coll/) and network steps (group/net.h) between the nodes' leaders.
 *
 * A composed collective is a resumable state machine like a task (core/task.h): `progress`
 * starts node phases and network steps and returns IN_PROGRESS while one is in flight. A
 * blocking driver (shmcoll_group_run) waits for the phase in flight: a node phase with
 * the node task's bounded wait, a network step by testing it (the MPI library progresses it),
 * yielding the CPU in between. Every member runs the same sequence of node phases (a node task
 * per phase, started in the same order on all members of a node, as the node team requires);
 * only leaders run network steps. The plan of a composition is a function of the arguments every
 * member shares and of the group's map: no member decides alone. */
#ifndef SHMCOLL_GROUP_COMPOSE_H
#define SHMCOLL_GROUP_COMPOSE_H

#include "group/group.h"
#include "group/scratch.h"
#include "select/team_coll.h"

#include <stdlib.h>

#define SHMCOLL_COMPOSE_STATE_BYTES 512
#define SHMCOLL_COMPOSE_PIPE        4 /* node phases a pipelined composition keeps in flight */

typedef struct shmcoll_group_task shmcoll_group_task_t;

typedef struct shmcoll_compose_ops {
    /* Before anything is started: NOT_SUPPORTED (every member alike) or OK. */
    shmcoll_status_t (*init)(shmcoll_group_task_t *t);
    /* OK when done, IN_PROGRESS, or a failure; never waits (but see shmcoll_compose_node). */
    shmcoll_status_t (*progress)(shmcoll_group_task_t *t);
    void (*fini)(shmcoll_group_task_t *t); /* may be NULL */
} shmcoll_compose_ops_t;

struct shmcoll_group_task {
    shmcoll_group_t *group;
    const shmcoll_coll_args_t *args;
    const shmcoll_compose_ops_t *ops;
    const char *name; /* "allreduce", for messages */
    int form;         /* a form a tuning rule chose (select/registry.h nodes_form), or 0 */
    int pc;
    int blocking; /* the driver waits: node phases and network steps wait where they stand */
    /* A pipelined composition (several node phases and a network step in flight at once) sets
     * this at init: its tests never wait (a wait for one phase would stall the others, and the
     * MPI library progresses the network step only while it is tested), and a blocking driver
     * instead tests the network step, progresses the engine and yields between its calls. */
    int polls;
    shmcoll_task_t node;           /* the node phase in flight */
    shmcoll_coll_args_t node_args; /* its arguments */
    shmcoll_net_coll_t net;        /* the network step in flight (leaders) */
    void *net_request;
    shmcoll_status_t net_status; /* of the last step: IN_PROGRESS while it is in flight */
    double net_started;
    /* The node phases of a pipelined composition, each with its arguments. */
    shmcoll_task_t pipe[SHMCOLL_COMPOSE_PIPE];
    shmcoll_coll_args_t pipe_args[SHMCOLL_COMPOSE_PIPE];
    uint64_t dav; /* of the node phases done */
    _Alignas(16) unsigned char state[SHMCOLL_COMPOSE_STATE_BYTES];
};

#define SHMCOLL_COMPOSE_STATE(t, type) ((type *)(void *)(t)->state)

/* Why this thread's last composition across nodes was declined (SHMCOLL_ERR_NOT_SUPPORTED), for
 * the log of its fallback (SHMCOLL_VERBOSE=1, SHMCOLL_STATS=1); NULL: no reason given. Cleared
 * as each starts; a call on one node neither sets nor clears it (no cost on its path), so it is
 * read only after a composition. */
extern __thread const char *shmcoll_group_declined __attribute__((tls_model("initial-exec")));

/* Declines a composition's call for `why` (a string constant): SHMCOLL_ERR_NOT_SUPPORTED. */
static inline shmcoll_status_t shmcoll_compose_decline(const char *why) {
    shmcoll_group_declined = why;
    return SHMCOLL_ERR_NOT_SUPPORTED;
}

/* The composition serving `args` on `group`, or NULL (the call falls back). */
const shmcoll_compose_ops_t *shmcoll_group_compose_find(const shmcoll_group_t *group,
                                                        const shmcoll_coll_args_t *args);

/* The group's one entry for every collective: runs `args` (ranks, counts and displacements in
 * the group's terms) to its end, on the node team when the group is one node, else composed.
 * SHMCOLL_ERR_NOT_SUPPORTED: nothing was done, on any member (the caller falls back). */
shmcoll_status_t shmcoll_group_run(shmcoll_group_t *group, const shmcoll_coll_args_t *args);

/* shmcoll_group_run of a call made again with the same arguments: on one node through the row
 * kept in `choice` (select/team_coll.h), across nodes as any call. */
shmcoll_status_t shmcoll_group_run_chosen(shmcoll_group_t *group, const shmcoll_coll_args_t *args,
                                          shmcoll_coll_choice_t *choice);

/* A collective started on a group, to be tested or waited for: on one node a task of the node
 * team, across nodes a composition (a group runs one composition in flight at a time: starting
 * a collective completes the one before). */
struct shmcoll_group_op {
    shmcoll_group_t *group;
    shmcoll_group_task_t *t; /* the composition in flight, or NULL */
    shmcoll_task_t task;     /* the node team's task (one node) */
    shmcoll_status_t status; /* IN_PROGRESS until done */
};

/* On one node, the name of the row the node team's selector picks for `args` (*inner: what a
 * wrapping row runs when the call does not qualify), and whether row `name` serves `args`
 * (args->row). Across nodes, for allreduce, the row of the form its plan takes
 * (group/allreduce_plan.h) and whether another form's row is a way for the call (args->row asks
 * the composition for it); for the other kinds NULL and 0 (the composition has one form, its node
 * phases choose for themselves). */
const char *shmcoll_group_pick(shmcoll_group_t *group, const shmcoll_coll_args_t *args,
                               const char **inner);
int shmcoll_group_row_serves(shmcoll_group_t *group, const shmcoll_coll_args_t *args,
                             const char *name);

/* Whether a tuning rule gives `args` to the MPI library (@mpi) on the group, on one node or
 * across nodes; the same on every member. */
int shmcoll_group_takes_mpi(shmcoll_group_t *group, const shmcoll_coll_args_t *args);

/* Whether the group serves collectives started now and completed later (shmcoll_group_start):
 * on one node always; across nodes only where network steps do not block (compose.c), else the
 * MPI library serves them. The same on every member. */
int shmcoll_group_starts(const shmcoll_group_t *group);

/* Starts `args` on the group (args must live until the op is done). OK: started (op->status
 * may already be OK); NOT_SUPPORTED: nothing was done on any member; else a failure. */
shmcoll_status_t shmcoll_group_start(shmcoll_group_t *group, const shmcoll_coll_args_t *args,
                                     shmcoll_group_op_t *op);
/* OK once done, IN_PROGRESS, or a failure. Never waits. */
shmcoll_status_t shmcoll_group_test(shmcoll_group_op_t *op);
/* Waits for the op to end (yielding the CPU; progressing the process's other tasks). */
shmcoll_status_t shmcoll_group_wait(shmcoll_group_op_t *op);

/* ---- For the compositions (compose_*.c) ------------------------------------------------- */

/* Starts t->node_args as the node phase. A phase the node team cannot serve is a failure here
 * (too late to fall back: a composition's init checks that it will be served). */
shmcoll_status_t shmcoll_compose_node_start(shmcoll_group_task_t *t);
/* OK once the node phase is done, else IN_PROGRESS (a blocking task waits for it here). */
shmcoll_status_t shmcoll_compose_node_test(shmcoll_group_task_t *t);

/* Starts t->pipe_args[i] as node phase t->pipe[i] of a pipelined composition (t->polls), which
 * may keep several in flight; every member starts them in the same order. */
shmcoll_status_t shmcoll_compose_pipe_start(shmcoll_group_task_t *t, int i);
/* OK once node phase t->pipe[i] is done, else IN_PROGRESS; never waits. */
shmcoll_status_t shmcoll_compose_pipe_test(shmcoll_group_task_t *t, int i);

/* Starts t->net as a network step (this member leads its channel). `overlapped`: on some node,
 * node phases run while it is in flight; the same value on every leader (blocking and
 * non-blocking collectives do not match in MPI). Otherwise nothing happens until it is done,
 * and a blocking driver that does not poll runs it to its end here with the MPI library's
 * blocking collective (its fastest path, where the non-blocking one may be another, slower
 * implementation) where the network has one (group/net.h) and SHMCOLL_NET_BOUNDED is off. */
shmcoll_status_t shmcoll_compose_net_start(shmcoll_group_task_t *t, int overlapped);
/* OK once the step is done, else IN_PROGRESS (a blocking task waits for it here, bounded by
 * SHMCOLL_TIMEOUT where it is set). */
shmcoll_status_t shmcoll_compose_net_test(shmcoll_group_task_t *t);
/* Whether a network step that nothing overlaps runs as the MPI library's blocking collective
 * (the call blocks, the composition does not poll, the network has one, SHMCOLL_NET_BOUNDED is
 * off): the same on every member. A composition's init may choose its plan by it. */
int shmcoll_compose_net_may_block(const shmcoll_group_task_t *t);

/* The bytes of a call, the same on every member: what the selector sees, times the ranks for the
 * kinds that move a block per rank. Steps of calls beyond the network's block_max never block. */
size_t shmcoll_compose_call_bytes(const shmcoll_group_t *group, const shmcoll_coll_args_t *args);

/* Tests the network step in flight once, if any: its status (OK when none is in flight). */
shmcoll_status_t shmcoll_compose_net_poll(shmcoll_group_task_t *t);

/* Whether this member leads channel c of its node (node rank c). */
static inline int shmcoll_compose_leads(const shmcoll_group_task_t *t, int channel) {
    return t->group->map.node_rank[t->group->rank] == channel;
}

/* Scratch at init: never NULL for 0 bytes (NULL means no memory); large buffers come from the
 * pool that keeps them between calls (group/scratch.h), and go back with shmcoll_compose_free. */
static inline void *shmcoll_compose_malloc(size_t bytes) {
    return shmcoll_scratch_get(bytes);
}

static inline void shmcoll_compose_free(void *buf) {
    shmcoll_scratch_put(buf);
}

/* A local copy (unpacking, permuting blocks), counted in the node team's DAV as the node
 * phases' copies are. dst == src or 0 bytes: nothing. */
void shmcoll_compose_copy(shmcoll_group_task_t *t, void *dst, const void *src, size_t bytes);

/* out = a op b over n elements (a on the left), a local reduction counted in the node team's DAV.
 * out may be b, never a (unless the op has a kernel). */
void shmcoll_compose_reduce(shmcoll_group_task_t *t, const shmcoll_reduce_op_t *op, const void *a,
                            const void *b, void *out, size_t n);

/* Scratch of a size this member learns only from a node phase (the v-variants: a leader learns
 * its node members' block sizes by gathering them), taken once per call at that phase boundary,
 * never inside a wait, and freed by the composition's fini. A failed allocation fails the node
 * team (its members stop at once, naming this one) and returns SHMCOLL_ERR_NO_MEMORY. */
shmcoll_status_t shmcoll_compose_alloc(shmcoll_group_task_t *t, void **buf, size_t bytes);

/* A failure found while running (a network count that does not fit an int, learned only
 * then): the message goes to the team's error and the node team fails. Returns `status`. */
shmcoll_status_t shmcoll_compose_fail(shmcoll_group_task_t *t, shmcoll_status_t status,
                                      const char *what);

/* ---- Block layouts of the data-movement compositions ------------------------------------
 * The blocks of all members, cnt[q] bytes each (or `uniform` bytes each when cnt is NULL),
 * packed in node order (node 0's members in node rank order, then node 1's, ...): node n's
 * blocks take node_total[n] bytes at node_off[n]; member q's block is at pos[q]. Any of the
 * out arrays may be NULL. Returns the total. */
size_t shmcoll_compose_node_packed(const shmcoll_group_map_t *map, const size_t *cnt,
                                   size_t uniform, size_t *node_total, size_t *node_off,
                                   size_t *pos);

/* Whether the blocks of every member (cnt[q] bytes at displ[q], or `uniform` bytes at
 * q * uniform when cnt is NULL) lie back to back in rank order from *base (blocks of 0 bytes
 * may lie anywhere). With nodes in blocks, node-packed order is then the buffer's own. */
int shmcoll_compose_contiguous(int size, const size_t *cnt, const size_t *displ, size_t uniform,
                               size_t *base);

/* Whether every node holds a block of consecutive ranks. */
int shmcoll_compose_all_blocks(const shmcoll_group_map_t *map);

/* A composition's checks of its call, each OK or its decline (shmcoll_compose_decline): a
 * reduction by `op` composes where the op commutes or the nodes are blocks of consecutive ranks
 * (node order is then rank order); `count` elements must fit a network step's int count. */
shmcoll_status_t shmcoll_compose_order_fits(const shmcoll_reduce_op_t *op,
                                            const shmcoll_group_map_t *map);
shmcoll_status_t shmcoll_compose_count_fits(size_t count);

/* Sets up t->node_args as a transfer of `bytes` from node rank `from` to node rank `to` of this
 * node (a node gatherv rooted at `to` in which only `from` sends; every member of the node takes
 * part). `counts` and `displs` are node-size arrays of the receiver that live until the phase is
 * done. */
void shmcoll_compose_transfer(shmcoll_group_task_t *t, int from, int to, const void *src, void *dst,
                              size_t bytes, size_t *counts, size_t *displs);

/* The compositions, one file each: compose_allreduce.c, compose_barrier.c, ... */
extern const shmcoll_compose_ops_t shmcoll_compose_allreduce_ops;
extern const shmcoll_compose_ops_t shmcoll_compose_barrier_ops;
extern const shmcoll_compose_ops_t shmcoll_compose_bcast_ops;
extern const shmcoll_compose_ops_t shmcoll_compose_reduce_ops;
extern const shmcoll_compose_ops_t shmcoll_compose_allgather_ops;      /* and allgatherv */
extern const shmcoll_compose_ops_t shmcoll_compose_gather_ops;         /* and gatherv */
extern const shmcoll_compose_ops_t shmcoll_compose_scatter_ops;        /* and scatterv */
extern const shmcoll_compose_ops_t shmcoll_compose_alltoall_ops;       /* and alltoallv */
extern const shmcoll_compose_ops_t shmcoll_compose_reduce_scatter_ops; /* and _block */
extern const shmcoll_compose_ops_t shmcoll_compose_scan_ops;           /* and exscan */

#endif
