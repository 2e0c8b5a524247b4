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
#include "coll/coll.h"
#include "coll/coll_internal.h"
#include "coll/hier_schedule.h"
#include "base/config.h"
#include "core/team_topo.h"

shmcoll_status_t shmcoll_coll_hier_test_claim(shmcoll_channel_t *ch,
                                              shmcoll_coll_hier_claim_t *claim, uint64_t step,
                                              shmcoll_wait_t *w) {
    if (claim->claimed == step) return SHMCOLL_OK;
    if (!claim->full_done[step & 1]) {
        SHMCOLL_CHECK(shmcoll_channel_test_claim(ch, step, w));
        claim->full_done[step & 1] = 1;
    } else {
        for (int k = 0; k < claim->nreaders; k++)
            SHMCOLL_CHECK(shmcoll_channel_test_claim_one(ch, step, claim->readers[k], w));
    }
    claim->claimed = step;
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_coll_hier_bcast_setup(shmcoll_task_t *task, shmcoll_coll_hier_bcast_t *b,
                                               void *buf, size_t bytes, int root) {
    shmcoll_channel_t *ch = task->ch;
    b->buf = buf;
    b->bytes = bytes;
    b->single = bytes == 0 || ch->size == 1;
    b->hier = NULL;
    if (b->single) return SHMCOLL_OK;
    const shmcoll_topo_hier_t *hier = NULL;
    shmcoll_status_t status =
        shmcoll_team_hierarchy_take(&task->team->hiers, shmcoll_config()->hier_bcast,
                                    shmcoll_coll_hier_lookup_root(root), &hier);
    if (status == SHMCOLL_ERR_INVALID) return SHMCOLL_ERR_NOT_SUPPORTED; /* a bad level list */
    SHMCOLL_CHECK(status);
    const shmcoll_coll_hier_source_t source = SHMCOLL_COLL_HIER_FROM_ROOT;
    b->hier = hier;
    b->parent = shmcoll_coll_hier_parent(hier, source, ch->rank, NULL);
    b->depth = shmcoll_coll_hier_depth(hier, source, ch->rank);
    b->use_inline = bytes <= SHMCOLL_INLINE_BYTES;
    b->piece = b->use_inline ? SHMCOLL_INLINE_BYTES : ch->chunk;
    b->steps = coll_div_ceil(bytes, b->piece) + (size_t)shmcoll_coll_hier_height(hier, source);
    coll_declare_working_set(task, 2 * bytes, bytes); /* YHCCL Algorithm 3 */
    return SHMCOLL_OK;
}

/* Step k of one member handles chunk k - depth when there is one: the root publishes it; a
 * member with children copies its parent's slot into its own (republishes), then copies out. */
shmcoll_status_t shmcoll_coll_hier_bcast_run(shmcoll_task_t *task, shmcoll_coll_hier_bcast_t *b,
                                             int *pc) {
    shmcoll_channel_t *ch = task->ch;
    const size_t depth = (size_t)b->depth;
    SHMCOLL_RESUME_BEGIN(pc);
    if (b->single) return SHMCOLL_OK;
    {
        /* The children, this run's claim readers: in the lane's scratch, which is this task's
         * while it runs. */
        int *children = task->lane->ints;
        shmcoll_coll_hier_claim_reset(
            &b->claim, children,
            shmcoll_coll_hier_children(b->hier, SHMCOLL_COLL_HIER_FROM_ROOT, ch->rank, children));
    }
    for (b->k = 0; b->k < b->steps; b->k++) {
        b->step = shmcoll_channel_next_step(ch);
        if (b->k >= depth && (b->k - depth) * b->piece < b->bytes) {
            if (b->parent < 0) { /* the root publishes */
                SHMCOLL_AWAIT(task, pc,
                              shmcoll_coll_hier_test_claim(ch, &b->claim, b->step, &task->wait));
                coll_copy(task, (void *)coll_slot(ch, ch->rank, b->step, b->use_inline),
                          b->buf + (b->k - depth) * b->piece,
                          coll_round_bytes(b->bytes, b->k - depth, b->piece));
            } else {
                SHMCOLL_AWAIT(task, pc,
                              shmcoll_channel_test_post(ch, b->parent, b->step - 1, &task->wait));
                if (b->claim.nreaders) /* republish for the children, then copy out locally */
                    SHMCOLL_AWAIT(
                        task, pc,
                        shmcoll_coll_hier_test_claim(ch, &b->claim, b->step, &task->wait));
                const size_t n = coll_round_bytes(b->bytes, b->k - depth, b->piece);
                const void *from = coll_slot(ch, b->parent, b->step - 1, b->use_inline);
                if (b->claim.nreaders) {
                    void *mine = (void *)coll_slot(ch, ch->rank, b->step, b->use_inline);
                    coll_copy(task, mine, from, n);
                    from = mine;
                }
                coll_copy_out(task, b->buf + (b->k - depth) * b->piece, from, n);
            }
        }
        shmcoll_channel_post(ch, b->step);
        if (b->k) shmcoll_channel_ack(ch, b->step - 1); /* read in this step: the parent's step-1 */
    }
    shmcoll_channel_ack(ch, b->step);
    SHMCOLL_RESUME_END(pc);
}

/* ---- The task ------------------------------------------------------------------------------ */

static shmcoll_status_t bcast_hier_init(shmcoll_task_t *task) {
    return shmcoll_coll_hier_bcast_setup(task, SHMCOLL_TASK_STATE(task, shmcoll_coll_hier_bcast_t),
                                         task->args->recvbuf, task->args->count, task->args->root);
}

static shmcoll_status_t bcast_hier_progress(shmcoll_task_t *task) {
    return shmcoll_coll_hier_bcast_run(task, SHMCOLL_TASK_STATE(task, shmcoll_coll_hier_bcast_t),
                                       &task->pc);
}

void shmcoll_coll_hier_bcast_done(shmcoll_task_t *task, shmcoll_coll_hier_bcast_t *b) {
    shmcoll_team_hierarchy_release(&task->team->hiers, b->hier);
    b->hier = NULL;
}

static void bcast_hier_fini(shmcoll_task_t *task) {
    shmcoll_coll_hier_bcast_done(task, SHMCOLL_TASK_STATE(task, shmcoll_coll_hier_bcast_t));
}

const shmcoll_task_ops_t shmcoll_coll_bcast_hier_ops = {
    .init = bcast_hier_init, .progress = bcast_hier_progress, .fini = bcast_hier_fini};
