/* Building blocks that several compositions across nodes (compose_*.c) are written with: where
 * every member's block lies in a buffer, the buffers a composition owns, the node phases that
 * gather blocks to a node rank, scatter them from it or reduce the inputs to the leader, the
 * leaders' network step with its byte count, and the plan that gather and scatter share (every
 * member's block at the root, carried between the nodes packed in node order).
 *
 * They live apart from compose.h, which holds the driver and the primitives, so that what two
 * compositions do alike is written once: a node phase set up here is the same arguments, hence
 * the same algorithm and the same DAV, wherever it is used. None of them waits, except the
 * resumable halves of the rooted plan, which keep their own resume point. */
#ifndef SHMCOLL_GROUP_COMPOSE_BLOCKS_H
#define SHMCOLL_GROUP_COMPOSE_BLOCKS_H

#include "group/compose.h"

/* Where the block of each member lies in one member's buffer: `block` bytes at q * block (the
 * uniform kinds: gather, scatter, allgather), or counts[q] bytes at displs[q] (their v-variants,
 * whose arrays are read only where the call defines them). */
typedef struct shmcoll_compose_layout {
    int uniform;
    size_t block;
    const size_t *counts, *displs; /* NULL when uniform, as compose.h's block layouts take them */
} shmcoll_compose_layout_t;

static inline size_t shmcoll_compose_layout_count(const shmcoll_compose_layout_t *l, int q) {
    return l->uniform ? l->block : l->counts[q];
}
static inline size_t shmcoll_compose_layout_displ(const shmcoll_compose_layout_t *l, int q) {
    return l->uniform ? (size_t)q * l->block : l->displs[q];
}

/* The heap buffers of a composition: its arrays in one arena and up to four scratch buffers,
 * taken at init or at a phase boundary and freed together, by init when it fails and by fini. */
typedef struct shmcoll_compose_heap {
    void *arena;
    void *scratch[4];
} shmcoll_compose_heap_t;

void shmcoll_compose_heap_free(shmcoll_compose_heap_t *heap);
/* An init's way out when it fails (nothing is left for a fini): frees the heap, returns
 * `status`. */
shmcoll_status_t shmcoll_compose_heap_unwind(shmcoll_compose_heap_t *heap, shmcoll_status_t status);

/* Whether each of the n counts (or displacements) fits what a network step takes. */
int shmcoll_compose_fits_all(const size_t *counts, int n);

/* Node phases: set up t->node_args, for shmcoll_compose_node_start. */

/* A node gather to node rank `root`: each member's `bytes` from `send` into `recv` at the root,
 * `bytes` each at i * bytes when uniform (a gather), else at displs[i], counts[i] bytes from
 * node rank i (a gatherv; counts and displs are read at the root only). */
void shmcoll_compose_gather_blocks(shmcoll_group_task_t *t, int uniform, const void *send,
                                   size_t bytes, void *recv, const size_t *counts,
                                   const size_t *displs, int root);

/* A node scatter from node rank `root`, the reverse: each member receives `bytes` into `recv`,
 * from i * bytes in `send` at the root when uniform (a scatter), else from displs[i] (a
 * scatterv with counts[i] == node rank i's bytes; read at the root only). */
void shmcoll_compose_scatter_blocks(shmcoll_group_task_t *t, int uniform, const void *send,
                                    const size_t *counts, const size_t *displs, void *recv,
                                    size_t bytes, int root);

/* A node reduce of `count` elements of every member's input (sendbuf, or recvbuf in place) to
 * the leader (node rank 0), into `result` there. */
void shmcoll_compose_reduce_to_leader(shmcoll_group_task_t *t, void *result, size_t count);

/* Starts `args` as the network step among the leaders of channel 0 (this member leads it),
 * counting the `handed` bytes this leader hands to the network (SHMCOLL_STATS: net=);
 * `overlapped` as for shmcoll_compose_net_start. */
shmcoll_status_t shmcoll_compose_leaders_start(shmcoll_group_task_t *t,
                                               const shmcoll_coll_args_t *args, size_t handed,
                                               int overlapped);

/* ---- The rooted plan of gather and scatter ------------------------------------------------
 * Root r on node R at node rank rr; every member's block packed in node order. Every node but R
 * moves its members' blocks as one buffer P at its leader (the leaders' network step carries P
 * to or from R's leader); R's leader holds the other nodes' blocks P' for the network step, and
 * R's own members' blocks never cross it (they move straight between r and its node). r sees
 * the other nodes' blocks packed in node order in other_blocks: in its own buffer where they lie
 * so (the blocks back to back in rank order with nodes in blocks, and r leads R or R is the
 * first or the last node), else in scratch, restaged from or to their displacements. Gather and
 * scatter are the two directions of this one plan; each composition runs its phases in its own
 * order. */
typedef struct shmcoll_compose_rooted {
    shmcoll_compose_layout_t at_root; /* the blocks in r's buffer (its arrays: r's only) */
    int root_node, root_rank;         /* R and rr */
    size_t my_size;                   /* this member's block */
    size_t other_bytes;               /* the blocks of the nodes but R (R's leader and r) */
    size_t *node_total;               /* [nnodes] (r, R's leader; other leaders: their own) */
    size_t *net_counts, *net_displs;  /* [nnodes] (R's leader): the network step's, in P' */
    size_t *ncounts, *ndispls;        /* [node size]: node gather(v) / scatter(v) (r, leaders) */
    size_t *tcounts, *tdispls;        /* [node size]: transfers */
    char *packed;                     /* R's leader: P'; other leaders: P */
    char *user;                       /* r's recvbuf (gather) or sendbuf (scatter: only read) */
    char *other_blocks;               /* r: the other nodes' blocks packed (user or scratch) */
    int other_blocks_in_scratch;      /* r: they are restaged from or to their displacements */
    int pc;                           /* the resumable halves' (one at a time) */
    shmcoll_compose_heap_t heap;
} shmcoll_compose_rooted_t;

/* The plan of this member for t's gather(v) or scatter(v): NOT_SUPPORTED where a count of the
 * uniform kinds does not fit the network (every member alike), OK, or a failure; on anything
 * but OK nothing is left to free. */
shmcoll_status_t shmcoll_compose_rooted_init(shmcoll_group_task_t *t, shmcoll_compose_rooted_t *r);

/* Every node but R, the v-variants: a node gather of the members' block sizes to the leader,
 * which then knows its node's total, lays out its node's blocks in P and takes P (the only
 * member that could not size it at init). Resumable (r->pc). */
shmcoll_status_t shmcoll_compose_rooted_learn_node_sizes(shmcoll_group_task_t *t,
                                                         shmcoll_compose_rooted_t *r);

/* Node R, the v-variants with rr != 0: a transfer of every node's total from r, which alone
 * knows the counts, to R's leader, which then plans the network step and takes P'. Resumable
 * (r->pc). */
shmcoll_status_t shmcoll_compose_rooted_learn_totals(shmcoll_group_task_t *t,
                                                     shmcoll_compose_rooted_t *r);

/* At r, when other_blocks is scratch: moves the other nodes' blocks between it and their
 * displacements in r's buffer, out to them (gather, once they have arrived) or in from them
 * (scatter, before they leave), each copy counted in the DAV. Elsewhere nothing. */
void shmcoll_compose_rooted_restage(shmcoll_group_task_t *t, shmcoll_compose_rooted_t *r,
                                    int to_displacements);

#endif
