/* Hierarchical pipelined reduce and allreduce (XHC, Katevenis et al., section IV-B), with
 * single-writer buffers.
 *
 * The team's SHMCOLL_HIER_REDUCE hierarchy (levels 0..L-1, the top one group) is walked upwards
 * chunk by chunk. Every member's buffer is cut into regions, one per role, so that a member can
 * play all its roles in one step:
 *   copy-in     in step c, every member copies chunk c of its input into its buffer;
 *   level i     in step c+1+i, every group of level i reduces chunk c: its m members cut the
 *               chunk into m parts and member j folds part j of the members' inputs, in member
 *               order, into its level-i region. A member's input at level 0 is its copied-in
 *               chunk; at level i > 0 it is the result of the level-(i-1) group it leads, which
 *               lies spread over that group's members, part by part (hier_schedule.h names the
 *               holder of each piece). So a partial result is never gathered at a leader: the
 *               reducers above read it where it was produced;
 *   result      reduce: in step c+L+1 the root copies the top group's parts into its receive
 *               buffer. allreduce: the result is broadcast down the same hierarchy (the tree of
 *               hier_bcast.c, with every top-group member reading the parts directly): a member
 *               at depth d copies chunk c in step c+L+d, into its own region first when it has
 *               children to republish it for.
 * A chunk thus goes one level further per step while the chunks behind it follow, every level
 * working at once: reduce takes chunks + L + 1 steps, allreduce chunks + L + height. Each element
 * is reduced exactly once (one fold per group), so allreduce results are bitwise identical
 * everywhere, and in rank order when every level's groups cover contiguous rank ranges: then
 * non-commutative ops are served too; otherwise they are NOT_SUPPORTED.
 *
 * Synchronisation: one post per step and member; a reducer waits only for the members holding
 * its pieces (its own group below), a member only for its parent on the way down; a writer
 * claims its buffer only from the members that may read it (after a full claim per parity at
 * the start). Reads are always of the previous step's buffers, which is what the claim protects.
 * DAV for s bytes (sizes = extents) when every group has two members or more: copy-in 2ps, folds
 * 3(p-1)s (one reduction per tree edge), result copies 2s (reduce) or 2ps plus 2s per member
 * that republishes (allreduce; one per level-0 group): reduce s(5p-1), allreduce s(7p-3+2g),
 * g = level-0 groups. A group of one member forwards its input by a copy (2s).
 * Possible refinements: a chunk size per level; reducing one's own part straight from the send
 * buffer (MA style) to skip part of the copy-in. */
#include "coll/algos_hier.h"
#include "coll/coll.h"
#include "coll/coll_internal.h"
#include "coll/hier_schedule.h"
#include "base/config.h"
#include "core/team_topo.h"

typedef shmcoll_coll_hier_reduce_t hreduce_t;

enum { MODE_NOTHING, MODE_COPY, MODE_RUN };

static size_t round_line(size_t bytes) {
    return (bytes + 63) & ~(size_t)63;
}

/* Bytes of buffer the regions take for chunks of n elements; fills the offsets. A level's region
 * holds the largest part of that level, the one of its smallest group. */
static size_t layout(hreduce_t *h, size_t n, int with_down) {
    const size_t extent = h->op->extent;
    size_t at = round_line(n * extent);
    h->off_in = 0;
    for (int i = 0; i < h->levels; i++) {
        const shmcoll_topo_level_t *l = &h->hier->levels[i];
        int smallest = l->groups[0].nmembers;
        for (int g = 1; g < l->ngroups; g++)
            smallest = l->groups[g].nmembers < smallest ? l->groups[g].nmembers : smallest;
        h->off_part[i] = at;
        at += round_line(shmcoll_coll_hier_part_len(n, smallest, h->align) * extent);
    }
    h->off_down = at;
    if (with_down) at += round_line(n * extent);
    return at;
}

/* The largest chunk whose regions fit a buffer of `buffer` bytes (0: not even one element). */
static size_t chunk_elements(hreduce_t *h, size_t buffer, int with_down) {
    size_t lo = 0, hi = buffer / h->op->extent;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo + 1) / 2;
        if (layout(h, mid, with_down) <= buffer)
            lo = mid;
        else
            hi = mid - 1;
    }
    layout(h, lo ? lo : 1, with_down);
    return lo;
}

static size_t chunk_len(const hreduce_t *h, size_t c) {
    const size_t first = c * h->n;
    return h->count - first < h->n ? h->count - first : h->n;
}

static char *slot(const shmcoll_channel_t *ch, int rank, uint64_t step, size_t offset) {
    return (char *)shmcoll_channel_buffer(ch, rank, step) + offset;
}

/* out = in[0] op in[1] op ... op in[m-1] over n elements, folded from the right (the canonical
 * order given MPI's in/inout function shape; see coll_fold_first). One input: a copy. */
static void fold(shmcoll_task_t *task, const shmcoll_reduce_op_t *op, const void *const *in, int m,
                 size_t n, char *out) {
    if (m == 1) {
        coll_copy(task, out, in[0], shmcoll_reduce_op_span(op, n));
        return;
    }
    coll_reduce(task, op, in[m - 2], in[m - 1], out, n);
    for (int k = m - 3; k >= 0; k--) coll_reduce(task, op, in[k], out, out, n);
}

/* This member's part [*lo, *lo + *len) of chunk c at level i. */
static void level_part(const hreduce_t *h, int me, int i, size_t c, size_t *lo, size_t *len) {
    const shmcoll_topo_level_t *l = &h->hier->levels[i];
    const shmcoll_topo_group_t *g = &l->groups[l->group_of[me]];
    shmcoll_coll_hier_part(chunk_len(h, c), g->nmembers, h->align, l->slot[me], lo, len);
}

/* Level i of chunk c, once its feeders have posted step-1: fold this member's part of its
 * group's inputs into its level-i region. */
static void fold_level(shmcoll_task_t *task, const hreduce_t *h, int i, size_t c, uint64_t step) {
    const shmcoll_channel_t *ch = task->ch;
    const shmcoll_topo_level_t *l = &h->hier->levels[i];
    const shmcoll_topo_group_t *g = &l->groups[l->group_of[ch->rank]];
    const size_t nc = chunk_len(h, c), extent = h->op->extent;
    const void **inputs = task->lane->ptrs; /* g->nmembers <= p */
    size_t lo, len;
    level_part(h, ch->rank, i, c, &lo, &len);
    char *out = slot(ch, ch->rank, step, h->off_part[i]);
    const size_t in_offset = i == 0 ? h->off_in : h->off_part[i - 1];
    /* Cut the part where any member's input changes holder; fold each piece. */
    for (size_t e = lo, end; e < lo + len; e = end) {
        end = lo + len;
        for (int k = 0; k < g->nmembers; k++) {
            size_t first, piece_end;
            const int holder = shmcoll_coll_hier_holder(h->hier, i, g->members[k], nc, h->align, e,
                                                        &first, &piece_end);
            inputs[k] = slot(ch, holder, step - 1, in_offset) + (e - first) * extent;
            end = piece_end < end ? piece_end : end;
        }
        fold(task, h->op, inputs, g->nmembers, end - e, out + (e - lo) * extent);
    }
}

/* The step lag of the result at this member: its chunk c arrives in step c + L + d. */
static size_t result_lag(const hreduce_t *h) {
    return (size_t)h->levels + (size_t)h->down_depth;
}

static const shmcoll_topo_group_t *top_group(const hreduce_t *h) {
    return &h->hier->levels[h->levels - 1].groups[0];
}

/* Elements of the top group's part t of chunk c. */
static size_t top_part_len(const hreduce_t *h, size_t c, int t) {
    size_t lo, len;
    shmcoll_coll_hier_part(chunk_len(h, c), top_group(h)->nmembers, h->align, t, &lo, &len);
    return len;
}

/* The result's chunk c goes to the receive buffer, or to this member's result region of `step`
 * when it has children to republish it for. */
static char *result_target(const shmcoll_task_t *task, const hreduce_t *h, size_t c,
                           uint64_t step) {
    return h->nchildren ? slot(task->ch, task->ch->rank, step, h->off_down)
                        : h->recvbuf + c * h->n * h->op->extent;
}

static void copy_result(shmcoll_task_t *task, const hreduce_t *h, char *to, const char *from,
                        size_t span) {
    if (h->nchildren)
        coll_copy(task, to, from, span);
    else
        coll_copy_out(task, to, from, span);
}

/* Part t of the result's chunk c, from its holder in the top group (which posted step-1). */
static void copy_top_part(shmcoll_task_t *task, const hreduce_t *h, size_t c, int t,
                          uint64_t step) {
    size_t lo, len;
    shmcoll_coll_hier_part(chunk_len(h, c), top_group(h)->nmembers, h->align, t, &lo, &len);
    const char *part =
        slot(task->ch, top_group(h)->members[t], step - 1, h->off_part[h->levels - 1]);
    copy_result(task, h, result_target(task, h, c, step) + lo * h->op->extent, part,
                shmcoll_reduce_op_span(h->op, len));
}

/* The result's chunk c from the parent's result region (which it posted in step-1). */
static void copy_from_parent(shmcoll_task_t *task, const hreduce_t *h, size_t c, uint64_t step) {
    copy_result(task, h, result_target(task, h, c, step),
                slot(task->ch, h->down_parent, step - 1, h->off_down),
                shmcoll_reduce_op_span(h->op, chunk_len(h, c)));
}

/* Adds the members of `more` that `into` lacks. */
static int merge(int *into, int n, const int *more, int nmore) {
    for (int a = 0; a < nmore; a++) {
        int seen = 0;
        for (int b = 0; b < n && !seen; b++) seen = into[b] == more[a];
        if (!seen) into[n++] = more[a];
    }
    return n;
}

static shmcoll_status_t plan(shmcoll_task_t *task, hreduce_t *h);

shmcoll_status_t shmcoll_coll_hier_reduce_setup(shmcoll_task_t *task, hreduce_t *h,
                                                const void *sendbuf, void *recvbuf, size_t count,
                                                const shmcoll_reduce_op_t *op, int root) {
    if (!coll_op_usable(op)) return SHMCOLL_ERR_NOT_SUPPORTED;
    const int p = task->ch->size;
    h->op = op;
    h->input = sendbuf ? sendbuf : recvbuf;
    h->recvbuf = recvbuf;
    h->count = count;
    h->root = root;
    h->mode = count == 0 ? MODE_NOTHING : p == 1 ? MODE_COPY : MODE_RUN;
    h->hier = NULL;
    if (h->mode != MODE_RUN) return SHMCOLL_OK;
    const shmcoll_topo_hier_t *hier = NULL;
    shmcoll_status_t status = shmcoll_team_hierarchy_take(
        &task->team->hiers, shmcoll_config()->hier_reduce,
        shmcoll_coll_hier_lookup_root(root == COLL_ALL ? -1 : root), &hier);
    if (status == SHMCOLL_ERR_INVALID) return SHMCOLL_ERR_NOT_SUPPORTED; /* a bad level list */
    SHMCOLL_CHECK(status);
    h->hier = hier;
    status = plan(task, h);
    if (status != SHMCOLL_OK) shmcoll_coll_hier_reduce_done(task, h);
    return status;
}

void shmcoll_coll_hier_reduce_done(shmcoll_task_t *task, hreduce_t *h) {
    shmcoll_team_hierarchy_release(&task->team->hiers, h->hier);
    h->hier = NULL;
}

/* The rest of setup, once the hierarchy is held: NOT_SUPPORTED or OK. */
static shmcoll_status_t plan(shmcoll_task_t *task, hreduce_t *h) {
    const shmcoll_topo_hier_t *hier = h->hier;
    const shmcoll_reduce_op_t *op = h->op;
    const int me = task->ch->rank, root = h->root;
    const size_t count = h->count;
    if (!op->commutative)
        for (int i = 0; i < hier->nlevels; i++)
            if (!hier->levels[i].contiguous) return SHMCOLL_ERR_NOT_SUPPORTED;

    h->align = op->extent <= 64 && 64 % op->extent == 0 ? 64 / op->extent : 1;
    h->levels = hier->nlevels;
    h->my_levels = shmcoll_topo_hier_depth_of(hier, me);
    coll_declare_working_set(task, 2 * shmcoll_reduce_op_span(op, count),
                             shmcoll_reduce_op_span(op, count));
    h->n = chunk_elements(h, task->ch->chunk, root == COLL_ALL);
    if (h->n == 0) return SHMCOLL_ERR_NOT_SUPPORTED; /* an element larger than the regions */
    h->chunks = coll_div_ceil(count, h->n);

    int height = 1; /* reduce: only the root receives, from the top group's parts */
    h->down_parent = -1;
    h->down_depth = me == root;
    if (root == COLL_ALL) {
        const shmcoll_coll_hier_source_t source = SHMCOLL_COLL_HIER_FROM_TOP;
        h->down_parent = shmcoll_coll_hier_parent(hier, source, me, NULL);
        h->down_depth = shmcoll_coll_hier_depth(hier, source, me);
        height = shmcoll_coll_hier_height(hier, source);
    }
    h->steps = h->chunks + (size_t)h->levels + (size_t)height;
    return SHMCOLL_OK;
}

/* Step k of the collective: copy-in of chunk k, level i of chunk k-1-i, result chunk k-L-d. */
shmcoll_status_t shmcoll_coll_hier_reduce_run(shmcoll_task_t *task, hreduce_t *h, int *pc) {
    shmcoll_channel_t *ch = task->ch;
    const int me = ch->rank, p = ch->size;
    const size_t extent = h->op->extent;
    /* The lane's scratch, this task's while it runs: the claim's readers, the result's
     * children, the feeders of the level in hand. */
    int *readers = task->lane->ints, *children = readers + p, *feeders = readers + 2 * p;
    SHMCOLL_RESUME_BEGIN(pc);
    if (h->mode == MODE_NOTHING) return SHMCOLL_OK;
    if (h->mode == MODE_COPY) {
        coll_copy(task, h->recvbuf, h->input, shmcoll_reduce_op_span(h->op, h->count));
        return SHMCOLL_OK;
    }
    h->nchildren =
        h->root == COLL_ALL
            ? shmcoll_coll_hier_children(h->hier, SHMCOLL_COLL_HIER_FROM_TOP, me, children)
            : 0;
    shmcoll_coll_hier_claim_reset(
        &h->claim, readers,
        merge(readers, shmcoll_coll_hier_reduce_readers(h->hier, me, h->root, readers), children,
              h->nchildren));

    for (h->k = 0; h->k < h->steps; h->k++) {
        h->step = shmcoll_channel_next_step(ch);
        /* Copy-in of chunk k. */
        if (h->k < h->chunks) {
            SHMCOLL_AWAIT(task, pc,
                          shmcoll_coll_hier_test_claim(ch, &h->claim, h->step, &task->wait));
            coll_copy(task, slot(ch, me, h->step, h->off_in), h->input + h->k * h->n * extent,
                      shmcoll_reduce_op_span(h->op, chunk_len(h, h->k)));
        }
        /* Level i of chunk k-1-i: fold this member's part of its group's inputs. */
        for (h->i = 0; h->i < h->my_levels && h->k >= (size_t)h->i + 1; h->i++) {
            if (h->k - 1 - (size_t)h->i >= h->chunks) continue;
            {
                size_t lo, len;
                level_part(h, me, h->i, h->k - 1 - (size_t)h->i, &lo, &len);
                if (!len) continue;
            }
            SHMCOLL_AWAIT(task, pc,
                          shmcoll_coll_hier_test_claim(ch, &h->claim, h->step, &task->wait));
            h->nfeeders = shmcoll_coll_hier_feeders(
                h->hier, h->i, me, chunk_len(h, h->k - 1 - (size_t)h->i), h->align, feeders);
            for (h->f = 0; h->f < h->nfeeders; h->f++)
                if (feeders[h->f] != me)
                    SHMCOLL_AWAIT(
                        task, pc,
                        shmcoll_channel_test_post(ch, feeders[h->f], h->step - 1, &task->wait));
            fold_level(task, h, h->i, h->k - 1 - (size_t)h->i, h->step);
        }
        /* The result's chunk k-L-d reaches this member: from the top group's parts, or from its
         * parent; into its own region first when it has children to republish it for. */
        if (h->down_depth && h->k >= result_lag(h) && h->k - result_lag(h) < h->chunks) {
            if (h->nchildren)
                SHMCOLL_AWAIT(task, pc,
                              shmcoll_coll_hier_test_claim(ch, &h->claim, h->step, &task->wait));
            if (h->down_parent < 0) {
                for (h->t = 0; h->t < top_group(h)->nmembers; h->t++) {
                    if (!top_part_len(h, h->k - result_lag(h), h->t)) continue;
                    if (top_group(h)->members[h->t] != me)
                        SHMCOLL_AWAIT(task, pc,
                                      shmcoll_channel_test_post(ch, top_group(h)->members[h->t],
                                                                h->step - 1, &task->wait));
                    copy_top_part(task, h, h->k - result_lag(h), h->t, h->step);
                }
            } else {
                SHMCOLL_AWAIT(
                    task, pc,
                    shmcoll_channel_test_post(ch, h->down_parent, h->step - 1, &task->wait));
                copy_from_parent(task, h, h->k - result_lag(h), h->step);
            }
            if (h->nchildren) { /* republished: now this member's own copy */
                const size_t c = h->k - result_lag(h);
                coll_copy_out(task, h->recvbuf + c * h->n * extent,
                              slot(ch, me, h->step, h->off_down),
                              shmcoll_reduce_op_span(h->op, chunk_len(h, c)));
            }
        }
        shmcoll_channel_post(ch, h->step);
        if (h->k) shmcoll_channel_ack(ch, h->step - 1); /* read in this step: buffers of step-1 */
    }
    shmcoll_channel_ack(ch, h->step);
    SHMCOLL_RESUME_END(pc);
}

/* ---- The task: reduce (root) and allreduce (COLL_ALL) -------------------------------------- */

static shmcoll_status_t reduce_hier_init(shmcoll_task_t *task) {
    const shmcoll_coll_args_t *a = task->args;
    return shmcoll_coll_hier_reduce_setup(task, SHMCOLL_TASK_STATE(task, hreduce_t), a->sendbuf,
                                          a->recvbuf, a->count, a->op, coll_reduction_root(task));
}

static shmcoll_status_t reduce_hier_progress(shmcoll_task_t *task) {
    return shmcoll_coll_hier_reduce_run(task, SHMCOLL_TASK_STATE(task, hreduce_t), &task->pc);
}

static void reduce_hier_fini(shmcoll_task_t *task) {
    shmcoll_coll_hier_reduce_done(task, SHMCOLL_TASK_STATE(task, hreduce_t));
}

const shmcoll_task_ops_t shmcoll_coll_reduce_hier_ops = {
    .init = reduce_hier_init, .progress = reduce_hier_progress, .fini = reduce_hier_fini};
