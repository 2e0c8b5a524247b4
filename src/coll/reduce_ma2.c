/* Socket-aware two-level movement-avoiding reduction (YHCCL, Peng et al., section 3.3 and
 * Figure 7), for commutative ops on teams that span several sockets.
 *
 * The members are grouped by socket: m groups of n >= 2 members each (every group the same size;
 * any other shape, prime p among them, is NOT_SUPPORTED and the one-level chain of reduce_ma.c
 * serves it). The p result
 * blocks are dealt to the positions in a group: position i covers blocks [i*m, (i+1)*m), the
 * same element range in every group. Each round processes one slice of every position's range:
 *   stages 0..n-1  within each group, the chain of reduce_ma.c over the group's n members (a
 *                  member waits only for its neighbour in its own socket): the member at
 *                  position i ends with slice t of range i reduced over its group, in its buffer;
 *   step 2         member r takes its result block's part of that slice from the member at
 *                  position r/m of every group and reduces the m partial results, into its
 *                  receive buffer (reduce_scatter) or into its buffer, from which every member
 *                  (allreduce) or the root (reduce) copies the p parts out.
 * DAV: s(3p - m) in the chains and 3s(m - 1) in step 2, so s(3p + 2m - 3) for reduce_scatter,
 * s(5p + 2m - 3) for allreduce (copy-out 2sp) and s(3p + 2m - 1) for reduce (copy-out 2s): a
 * little more than one level's s(3p - 1), for a chain of n - 1 waits inside a socket instead of
 * p - 1 waits of which some cross sockets; only step 2 and the copy-out cross.
 *
 * Buffer reuse: stage k >= 2 and step 2 (when n >= 2) reuse a buffer only the group neighbour
 * downstream read since the last full claim; stages 0 and 1 reuse buffers of the previous
 * round's last stage and step 2, which many members read, so they claim from all. */
#include "coll/coll_internal.h"
#include "core/team_topo.h"

/* The socket groups of the team when they have equal sizes: the hierarchy level that groups by
 * socket, or NULL (one socket, unknown placement, unequal groups, one member per socket: the
 * hierarchy has no level of single members). */
static const shmcoll_topo_level_t *socket_groups(shmcoll_team_t *team) {
    const shmcoll_topo_hier_t *hier = NULL;
    if (shmcoll_team_hierarchy(team, "socket", -1, &hier) != SHMCOLL_OK || hier->nlevels < 2)
        return NULL;
    const shmcoll_topo_level_t *level = &hier->levels[0];
    if (level->kind != SHMCOLL_TOPO_SOCKET || level->ngroups < 2) return NULL;
    for (int g = 1; g < level->ngroups; g++)
        if (level->groups[g].nmembers != level->groups[0].nmembers) return NULL;
    return level;
}

int shmcoll_coll_ma2_groups(shmcoll_team_t *team) {
    const shmcoll_topo_level_t *level = socket_groups(team);
    return level ? level->ngroups : 0;
}

/* Position i's range: elements [*first, *end) of blocks i*m .. i*m+m-1. */
static void position_range(const coll_blocks_t *blocks, int i, int m, size_t *first, size_t *end) {
    size_t unused, last_first, last_len;
    coll_block(blocks, i * m, first, &unused);
    coll_block(blocks, i * m + m - 1, &last_first, &last_len);
    *end = last_first + last_len;
}

/* Elements [*lo, *lo + *len) of slice `round` of position i's range. */
static void position_slice(const coll_blocks_t *blocks, int i, int m, size_t slice, size_t round,
                           size_t *lo, size_t *len) {
    size_t first, end;
    position_range(blocks, i, m, &first, &end);
    *lo = first + round * slice;
    *len = *lo < end ? (end - *lo < slice ? end - *lo : slice) : 0;
}

/* The part [*lo, *lo + *len) of member r's result block that slice `round` covers. */
static void result_part(const coll_blocks_t *blocks, int r, int m, size_t slice, size_t round,
                        size_t *lo, size_t *len) {
    size_t first, count, at, n;
    coll_block(blocks, r, &first, &count);
    position_slice(blocks, r / m, m, slice, round, &at, &n);
    const size_t a = first > at ? first : at;
    const size_t b = first + count < at + n ? first + count : at + n;
    *lo = a;
    *len = b > a ? b - a : 0;
}

shmcoll_status_t shmcoll_coll_reduce_ma2(shmcoll_team_t *team, const void *input, void *recvbuf,
                                         const shmcoll_reduce_op_t *op, const coll_blocks_t *blocks,
                                         coll_result_t result, int root) {
    shmcoll_channel_t *ch = &team->channel;
    const int me = ch->rank, p = ch->size;
    const size_t slice = ch->chunk / op->extent;
    const shmcoll_topo_level_t *level = socket_groups(team);
    if (slice == 0 || !op->commutative || !level) return SHMCOLL_ERR_NOT_SUPPORTED;
    const int m = level->ngroups, n = level->groups[0].nmembers;
    const int *group = level->groups[level->group_of[me]].members;
    const int pos = level->slot[me];
    const int upstream = group[(pos + 1) % n], downstream = group[(pos + n - 1) % n];

    size_t longest = 0;
    for (int i = 0; i < n; i++) {
        size_t first, end;
        position_range(blocks, i, m, &first, &end);
        longest = end - first > longest ? end - first : longest;
    }
    const size_t rounds = coll_div_ceil(longest, slice);
    const int wants_all = result == COLL_RESULT_ALL || (result == COLL_RESULT_ROOT && me == root);
    /* YHCCL Algorithm 2: send and receive buffers plus the shared slices in flight. */
    coll_declare_working_set(team, 2 * shmcoll_reduce_op_span(op, blocks->n),
                             shmcoll_reduce_op_span(op, blocks->n));

    for (size_t round = 0; round < rounds; round++) {
        uint64_t step = 0;
        for (int k = 0; k < n; k++) {
            step = shmcoll_channel_next_step(ch);
            size_t lo, len;
            position_slice(blocks, (pos + 1 + k) % n, m, slice, round, &lo, &len);
            SHMCOLL_CHECK(shmcoll_coll_ma_stage(team, op, k, step,
                                                (const char *)input + lo * op->extent, len, NULL,
                                                upstream, downstream));
        }

        /* Step 2: the m groups' partial results of this member's part, reduced. */
        const uint64_t chained = step;
        step = shmcoll_channel_next_step(ch);
        SHMCOLL_CHECK(n >= 2 ? shmcoll_channel_claim_one(ch, step, downstream)
                             : shmcoll_channel_claim(ch, step));
        size_t lo, len, at, unused;
        result_part(blocks, me, m, slice, round, &lo, &len);
        position_slice(blocks, me / m, m, slice, round, &at, &unused);
        if (len) {
            size_t first, count;
            coll_block(blocks, me, &first, &count);
            char *out = result == COLL_RESULT_SCATTERED
                            ? (char *)recvbuf + (lo - first) * op->extent
                            : shmcoll_channel_buffer(ch, me, step);
            const char *partial[m];
            for (int g = 0; g < m; g++) {
                const int holder = level->groups[g].members[me / m];
                SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, holder, chained));
                partial[g] = (const char *)shmcoll_channel_buffer(ch, holder, chained) +
                             (lo - at) * op->extent;
            }
            coll_reduce(team, op, partial[0], partial[1], out, len);
            for (int g = 2; g < m; g++) coll_reduce(team, op, out, partial[g], out, len);
        }
        shmcoll_channel_ack(ch, chained);
        shmcoll_channel_post(ch, step);

        if (wants_all && result != COLL_RESULT_SCATTERED) {
            for (int r = 0; r < p; r++) {
                result_part(blocks, r, m, slice, round, &lo, &len);
                if (!len) continue;
                SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, r, step));
                coll_copy_out(team, (char *)recvbuf + lo * op->extent,
                              shmcoll_channel_buffer(ch, r, step), shmcoll_reduce_op_span(op, len));
            }
        }
        shmcoll_channel_ack(ch, step);
    }
    return SHMCOLL_OK;
}
