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
#include "coll/coll_internal.h"
#include "coll/hier_schedule.h"
#include "core/config.h"
#include "core/team_topo.h"

#include <stdlib.h>

typedef struct hreduce {
    shmcoll_team_t *team;
    const shmcoll_topo_hier_t *hier;
    const shmcoll_reduce_op_t *op;
    const char *input;
    char *recvbuf;
    size_t count;
    size_t n;      /* elements per chunk */
    size_t chunks; /* ceil(count / n) */
    size_t align;  /* elements per cache line: parts start on one */
    /* Regions of a buffer, in bytes: the copied-in chunk, each level's part, the result. */
    size_t off_in, off_part[SHMCOLL_TOPO_MAX_LEVELS + 1], off_down;
    int levels;      /* of the hierarchy, L */
    int my_levels;   /* levels this member reduces at: 0 .. my_levels-1 */
    int down_depth;  /* 0: gets no result; else the result's chunk c reaches it in step c+L+d */
    int down_parent; /* -1: reads the top group's parts */
    int nchildren;   /* members that copy the result from this one */
    shmcoll_coll_hier_claim_t claim;
    int *feeders;        /* scratch, [size] */
    const char **inputs; /* scratch, [size] */
} hreduce_t;

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

/* The largest chunk whose regions fit a buffer (0: not even one element). */
static size_t chunk_elements(hreduce_t *h, int with_down) {
    const size_t buffer = h->team->channel.chunk;
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

static char *slot(const hreduce_t *h, int rank, uint64_t step, size_t offset) {
    return (char *)shmcoll_channel_buffer(&h->team->channel, rank, step) + offset;
}

/* out = in[0] op in[1] op ... op in[m-1] over n elements, folded from the right (the canonical
 * order given MPI's in/inout function shape; see coll_fold_first). One input: a copy. */
static void fold(hreduce_t *h, const char *const *in, int m, size_t n, char *out) {
    if (m == 1) {
        coll_copy(h->team, out, in[0], shmcoll_reduce_op_span(h->op, n));
        return;
    }
    coll_reduce(h->team, h->op, in[m - 2], in[m - 1], out, n);
    for (int k = m - 3; k >= 0; k--) coll_reduce(h->team, h->op, in[k], out, out, n);
}

/* Level i of chunk c: fold this member's part of its group's inputs into its level-i region. */
static shmcoll_status_t reduce_level(hreduce_t *h, int i, size_t c, uint64_t step) {
    shmcoll_channel_t *ch = &h->team->channel;
    const shmcoll_topo_level_t *l = &h->hier->levels[i];
    const shmcoll_topo_group_t *g = &l->groups[l->group_of[ch->rank]];
    const size_t nc = chunk_len(h, c), extent = h->op->extent;
    size_t lo, len;
    shmcoll_coll_hier_part(nc, g->nmembers, h->align, l->slot[ch->rank], &lo, &len);
    if (!len) return SHMCOLL_OK;
    SHMCOLL_CHECK(shmcoll_coll_hier_claim(ch, &h->claim, step));
    const int nfeeders = shmcoll_coll_hier_feeders(h->hier, i, ch->rank, nc, h->align, h->feeders);
    for (int f = 0; f < nfeeders; f++)
        if (h->feeders[f] != ch->rank)
            SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, h->feeders[f], step - 1));
    char *out = slot(h, ch->rank, step, h->off_part[i]);
    const size_t in_offset = i == 0 ? h->off_in : h->off_part[i - 1];
    /* Cut the part where any member's input changes holder; fold each piece. */
    for (size_t e = lo, end; e < lo + len; e = end) {
        end = lo + len;
        for (int k = 0; k < g->nmembers; k++) {
            size_t first, piece_end;
            const int holder = shmcoll_coll_hier_holder(h->hier, i, g->members[k], nc, h->align, e,
                                                        &first, &piece_end);
            h->inputs[k] = slot(h, holder, step - 1, in_offset) + (e - first) * extent;
            end = piece_end < end ? piece_end : end;
        }
        fold(h, h->inputs, g->nmembers, end - e, out + (e - lo) * extent);
    }
    return SHMCOLL_OK;
}

/* The result's chunk c reaches this member: from the top group's parts, or from its parent. */
static shmcoll_status_t receive_result(hreduce_t *h, size_t c, uint64_t step) {
    shmcoll_channel_t *ch = &h->team->channel;
    const size_t nc = chunk_len(h, c), extent = h->op->extent;
    const size_t span = shmcoll_reduce_op_span(h->op, nc);
    char *dst = h->recvbuf + c * h->n * extent, *mine = slot(h, ch->rank, step, h->off_down);
    char *target = h->nchildren ? mine : dst;
    if (h->nchildren) SHMCOLL_CHECK(shmcoll_coll_hier_claim(ch, &h->claim, step));
    if (h->down_parent < 0) {
        const shmcoll_topo_group_t *top = &h->hier->levels[h->levels - 1].groups[0];
        for (int t = 0; t < top->nmembers; t++) {
            size_t lo, len;
            shmcoll_coll_hier_part(nc, top->nmembers, h->align, t, &lo, &len);
            if (!len) continue;
            const int holder = top->members[t];
            if (holder != ch->rank) SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, holder, step - 1));
            const char *part = slot(h, holder, step - 1, h->off_part[h->levels - 1]);
            const size_t part_span = shmcoll_reduce_op_span(h->op, len);
            if (target == dst)
                coll_copy_out(h->team, dst + lo * extent, part, part_span);
            else
                coll_copy(h->team, target + lo * extent, part, part_span);
        }
    } else {
        SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, h->down_parent, step - 1));
        const char *from = slot(h, h->down_parent, step - 1, h->off_down);
        if (target == dst)
            coll_copy_out(h->team, dst, from, span);
        else
            coll_copy(h->team, target, from, span);
    }
    if (target != dst) coll_copy_out(h->team, dst, mine, span);
    return SHMCOLL_OK;
}

/* Step k of the collective: copy-in of chunk k, level i of chunk k-1-i, result chunk k-L-d. */
static shmcoll_status_t reduce_step(hreduce_t *h, size_t k, uint64_t step) {
    shmcoll_channel_t *ch = &h->team->channel;
    if (k < h->chunks) {
        SHMCOLL_CHECK(shmcoll_coll_hier_claim(ch, &h->claim, step));
        coll_copy(h->team, slot(h, ch->rank, step, h->off_in), h->input + k * h->n * h->op->extent,
                  shmcoll_reduce_op_span(h->op, chunk_len(h, k)));
    }
    for (int i = 0; i < h->my_levels && k >= (size_t)i + 1; i++)
        if (k - 1 - (size_t)i < h->chunks)
            SHMCOLL_CHECK(reduce_level(h, i, k - 1 - (size_t)i, step));
    const size_t lag = (size_t)h->levels + (size_t)h->down_depth;
    if (h->down_depth && k >= lag && k - lag < h->chunks)
        SHMCOLL_CHECK(receive_result(h, k - lag, step));
    return SHMCOLL_OK;
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

/* Both collectives; root COLL_ALL: allreduce. */
static shmcoll_status_t reduce_hier(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                    size_t count, const shmcoll_reduce_op_t *op, int root) {
    if (op->size == 0 || op->extent < op->size || (!op->kernel && !op->user_fn))
        return SHMCOLL_ERR_NOT_SUPPORTED;
    if (count == 0) return SHMCOLL_OK;
    shmcoll_channel_t *ch = &team->channel;
    const int me = ch->rank, p = ch->size;
    const char *input = sendbuf ? sendbuf : recvbuf;
    if (p == 1) {
        coll_copy(team, recvbuf, input, shmcoll_reduce_op_span(op, count));
        return SHMCOLL_OK;
    }
    const shmcoll_topo_hier_t *hier = NULL;
    shmcoll_status_t status = shmcoll_team_hierarchy(team, shmcoll_config()->hier_reduce,
                                                     root == COLL_ALL ? -1 : root, &hier);
    if (status == SHMCOLL_ERR_INVALID) return SHMCOLL_ERR_NOT_SUPPORTED; /* a bad level list */
    SHMCOLL_CHECK(status);
    if (!op->commutative)
        for (int i = 0; i < hier->nlevels; i++)
            if (!hier->levels[i].contiguous) return SHMCOLL_ERR_NOT_SUPPORTED;

    hreduce_t h = {
        .team = team,
        .hier = hier,
        .op = op,
        .input = input,
        .recvbuf = recvbuf,
        .count = count,
        .align = op->extent <= 64 && 64 % op->extent == 0 ? 64 / op->extent : 1,
        .levels = hier->nlevels,
        .my_levels = shmcoll_topo_hier_depth_of(hier, me),
    };
    coll_declare_working_set(team, 2 * shmcoll_reduce_op_span(op, count),
                             shmcoll_reduce_op_span(op, count));
    h.n = chunk_elements(&h, root == COLL_ALL);
    if (h.n == 0) return SHMCOLL_ERR_NOT_SUPPORTED; /* an element larger than the regions */
    h.chunks = coll_div_ceil(count, h.n);

    int *readers = malloc(sizeof(int) * 3 * (size_t)p);
    h.inputs = malloc(sizeof(char *) * (size_t)p);
    if (!readers || !h.inputs) {
        free(readers);
        free(h.inputs);
        return SHMCOLL_ERR_NO_MEMORY;
    }
    int *children = readers + p;
    h.feeders = readers + 2 * p;
    int height = 1; /* reduce: only the root receives, from the top group's parts */
    h.down_parent = -1;
    h.down_depth = me == root;
    if (root == COLL_ALL) {
        const shmcoll_coll_hier_source_t source = SHMCOLL_COLL_HIER_FROM_TOP;
        h.down_parent = shmcoll_coll_hier_parent(hier, source, me, NULL);
        h.down_depth = shmcoll_coll_hier_depth(hier, source, me);
        h.nchildren = shmcoll_coll_hier_children(hier, source, me, children);
        height = shmcoll_coll_hier_height(hier, source);
    }
    h.claim.readers = readers;
    h.claim.nreaders = shmcoll_coll_hier_reduce_readers(hier, me, root, readers);
    h.claim.nreaders = merge(readers, h.claim.nreaders, children, h.nchildren);

    const size_t steps = h.chunks + (size_t)h.levels + (size_t)height;
    uint64_t step = ch->step;
    for (size_t k = 0; k < steps; k++) {
        step = shmcoll_channel_next_step(ch);
        status = reduce_step(&h, k, step);
        if (status != SHMCOLL_OK) break;
        shmcoll_channel_post(ch, step);
        if (k) shmcoll_channel_ack(ch, step - 1); /* read in this step: buffers of step-1 */
    }
    if (status == SHMCOLL_OK) shmcoll_channel_ack(ch, step);
    free(readers);
    free(h.inputs);
    return status;
}

shmcoll_status_t shmcoll_coll_reduce_hier(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                          size_t count, const shmcoll_reduce_op_t *op, int root) {
    if (root < 0 || root >= team->size) return SHMCOLL_ERR_INVALID;
    return reduce_hier(team, sendbuf, recvbuf, count, op, root);
}

shmcoll_status_t shmcoll_coll_allreduce_hier(shmcoll_team_t *team, const void *sendbuf,
                                             void *recvbuf, size_t count,
                                             const shmcoll_reduce_op_t *op) {
    return reduce_hier(team, sendbuf, recvbuf, count, op, COLL_ALL);
}
