/* Hierarchical pipelined broadcast (XHC, Katevenis et al., section IV-A; the tree of KNEM-coll's
 * Figure 1).
 *
 * The team's SHMCOLL_HIER_BCAST hierarchy, built with the root leading every group it is in, is
 * a tree: at every level each group's leader publishes, its other members copy (the schedule is
 * in hier_schedule.h). The root copies chunk c of the message into its buffer in step c; a member
 * at tree depth d copies chunk c from its parent's buffer of step c+d-1 into its own buffer in
 * step c+d: into its receive buffer, and first into its own slot when it leads a group below (it
 * then republishes the chunk for its children, and reads the remote copy only once). A chunk thus
 * moves one level down per step while the next chunks follow it, so all levels copy at once and
 * the whole broadcast takes chunks + height steps (height: the tree's depth, at most the number
 * of levels). Data crosses a NUMA node or socket boundary only from a leader to a leader: once
 * per group.
 *
 * Synchronisation: one post per step and member; each member waits for its parent's post only;
 * a writer claims its buffer from its children only (after a full claim of each parity at the
 * start), so a group progresses with its own leader and never waits for the other end of the
 * machine. Reuse needs no extra acknowledgement: a child acknowledges chunk c once it copied it,
 * and the parent's claim of step c+d+2 waits for exactly that.
 * DAV for s bytes: 2s per member (the root's copy in, everyone else's copy out) plus 2s per
 * non-root member that republishes: 2s(p + I), I = non-root members with children (on a machine
 * whose NUMA nodes hold two or more members each, I = NUMA nodes occupied - 1).
 * Messages of up to 64 bytes ride in the inline area of the post flag: one cache line per hop.
 * A possible refinement (XHC III-B): a chunk size per level, matched to its link. */
#include "coll/algos_hier.h"
#include "coll/coll_internal.h"
#include "coll/hier_schedule.h"
#include "core/config.h"
#include "core/team_topo.h"

#include <stdlib.h>

shmcoll_status_t shmcoll_coll_hier_claim(shmcoll_channel_t *ch, shmcoll_coll_hier_claim_t *claim,
                                         uint64_t step) {
    if (claim->claimed == step) return SHMCOLL_OK;
    if (!claim->full_done[step & 1]) {
        SHMCOLL_CHECK(shmcoll_channel_claim(ch, step));
        claim->full_done[step & 1] = 1;
    } else {
        for (int k = 0; k < claim->nreaders; k++)
            SHMCOLL_CHECK(shmcoll_channel_claim_one(ch, step, claim->readers[k]));
    }
    claim->claimed = step;
    return SHMCOLL_OK;
}

/* This member's side of the tree. */
typedef struct bcast_plan {
    int parent; /* -1 at the root */
    int depth;
    int height;
    shmcoll_coll_hier_claim_t claim; /* readers: the children */
} bcast_plan_t;

/* One step of one member: handles chunk k - depth when there is one. */
static shmcoll_status_t bcast_step(shmcoll_team_t *team, bcast_plan_t *plan, char *buf,
                                   size_t bytes, size_t piece, int use_inline, size_t k,
                                   uint64_t step) {
    shmcoll_channel_t *ch = &team->channel;
    if (k < (size_t)plan->depth) return SHMCOLL_OK;
    const size_t offset = (k - (size_t)plan->depth) * piece;
    if (offset >= bytes) return SHMCOLL_OK;
    const size_t n = bytes - offset < piece ? bytes - offset : piece;
    void *mine = (void *)coll_slot(ch, ch->rank, step, use_inline);
    if (plan->parent < 0) { /* the root publishes */
        SHMCOLL_CHECK(shmcoll_coll_hier_claim(ch, &plan->claim, step));
        coll_copy(team, mine, buf + offset, n);
        return SHMCOLL_OK;
    }
    SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, plan->parent, step - 1));
    const void *from = coll_slot(ch, plan->parent, step - 1, use_inline);
    if (plan->claim.nreaders) { /* republish for the children, then copy out locally */
        SHMCOLL_CHECK(shmcoll_coll_hier_claim(ch, &plan->claim, step));
        coll_copy(team, mine, from, n);
        from = mine;
    }
    coll_copy_out(team, buf + offset, from, n);
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_coll_bcast_hier(shmcoll_team_t *team, void *buf, size_t bytes, int root) {
    if (root < 0 || root >= team->size) return SHMCOLL_ERR_INVALID;
    if (bytes == 0 || team->size == 1) return SHMCOLL_OK;
    const shmcoll_topo_hier_t *hier = NULL;
    shmcoll_status_t status =
        shmcoll_team_hierarchy(team, shmcoll_config()->hier_bcast, root, &hier);
    if (status == SHMCOLL_ERR_INVALID) return SHMCOLL_ERR_NOT_SUPPORTED; /* a bad level list */
    SHMCOLL_CHECK(status);

    shmcoll_channel_t *ch = &team->channel;
    int *children = malloc(sizeof(int) * (size_t)team->size);
    if (!children) return SHMCOLL_ERR_NO_MEMORY;
    const shmcoll_coll_hier_source_t source = SHMCOLL_COLL_HIER_FROM_ROOT;
    bcast_plan_t plan = {
        .parent = shmcoll_coll_hier_parent(hier, source, ch->rank, NULL),
        .depth = shmcoll_coll_hier_depth(hier, source, ch->rank),
        .height = shmcoll_coll_hier_height(hier, source),
        .claim = {.readers = children,
                  .nreaders = shmcoll_coll_hier_children(hier, source, ch->rank, children)},
    };
    const int use_inline = bytes <= SHMCOLL_INLINE_BYTES;
    const size_t piece = use_inline ? SHMCOLL_INLINE_BYTES : ch->chunk;
    const size_t steps = coll_div_ceil(bytes, piece) + (size_t)plan.height;
    coll_declare_working_set(team, 2 * bytes, bytes); /* YHCCL Algorithm 3 */

    uint64_t step = ch->step;
    for (size_t k = 0; k < steps; k++) {
        step = shmcoll_channel_next_step(ch);
        status = bcast_step(team, &plan, buf, bytes, piece, use_inline, k, step);
        if (status != SHMCOLL_OK) break;
        shmcoll_channel_post(ch, step);
        if (k) shmcoll_channel_ack(ch, step - 1); /* read in this step: the parent's step-1 */
    }
    if (status == SHMCOLL_OK) shmcoll_channel_ack(ch, step);
    free(children);
    return status;
}
