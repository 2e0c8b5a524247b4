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
 * round's last stage and step 2, which many members read, so they claim from all.
 *
 * As a task: one ops for reduce and allreduce (the registry's row) and reduce_scatter (blocks as
 * the caller gives them, in place through a copy of the input made at the start of the run, as
 * in reduce_ma.c). Step 2 first awaits the m partial results in group order, then reduces them,
 * each operand's address computed again after the waits. */
#include "coll/coll.h"
#include "coll/coll_internal.h"
#include "core/team_topo.h"

typedef struct reduce_ma2 {
    coll_ma_t ma; /* upstream and downstream in the own group */
    const shmcoll_topo_level_t *level;
    int m, n; /* m socket groups of n members */
    int pos;  /* this member's position in its group */
    /* The run. */
    int g;            /* step 2: the group whose partial result is awaited */
    int r;            /* copy-out: the member whose part is copied */
    uint64_t step;    /* step 2's */
    uint64_t chained; /* the chain's last step */
} reduce_ma2_t;

/* Position i's range: elements [*first, *end) of blocks i*m .. i*m+m-1. */
static void position_range(const coll_blocks_t *blocks, int i, int m, size_t *first, size_t *end) {
    size_t unused, last_first, last_len;
    coll_block_at(blocks, i * m, first, &unused);
    coll_block_at(blocks, i * m + m - 1, &last_first, &last_len);
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
    coll_block_at(blocks, r, &first, &count);
    position_slice(blocks, r / m, m, slice, round, &at, &n);
    const size_t a = first > at ? first : at;
    const size_t b = first + count < at + n ? first + count : at + n;
    *lo = a;
    *len = b > a ? b - a : 0;
}

static shmcoll_status_t reduce_ma2_init(shmcoll_task_t *task) {
    reduce_ma2_t *s = SHMCOLL_TASK_STATE(task, reduce_ma2_t);
    const int me = task->ch->rank;
    s->level = shmcoll_team_socket_level(&task->team->hiers);
    if (!s->level) return SHMCOLL_ERR_NOT_SUPPORTED;
    SHMCOLL_CHECK(shmcoll_coll_ma_plan(task, &s->ma));
    s->m = s->level->ngroups;
    s->n = s->level->groups[0].nmembers;
    const int *group = s->level->groups[s->level->group_of[me]].members;
    s->pos = s->level->slot[me];
    s->ma.upstream = group[(s->pos + 1) % s->n];
    s->ma.downstream = group[(s->pos + s->n - 1) % s->n];
    size_t longest = 0;
    for (int i = 0; i < s->n; i++) {
        size_t first, end;
        position_range(&s->ma.blocks, i, s->m, &first, &end);
        longest = end - first > longest ? end - first : longest;
    }
    s->ma.rounds = coll_div_ceil(longest, s->ma.slice);
    return SHMCOLL_OK;
}

/* Chain stage k of the round: the slice of position (pos + 1 + k) mod n's range. */
static void chain_slice(shmcoll_task_t *task, const char **mine, size_t *n, void **out) {
    const reduce_ma2_t *s = SHMCOLL_TASK_STATE(task, reduce_ma2_t);
    size_t lo;
    position_slice(&s->ma.blocks, (s->pos + 1 + s->ma.k) % s->n, s->m, s->ma.slice, s->ma.round,
                   &lo, n);
    *mine = s->ma.in.input + lo * task->args->op->extent;
    *out = NULL;
}

/* The member of group g at the position holding this member's result block. */
static int holder(shmcoll_task_t *task, const reduce_ma2_t *s, int g) {
    return s->level->groups[g].members[task->ch->rank / s->m];
}

/* Group g's partial result of elements [lo, ...) of the slice at `at`, posted at the chain's
 * last step. */
static const char *partial(shmcoll_task_t *task, const reduce_ma2_t *s, int g, size_t lo,
                           size_t at) {
    return (const char *)shmcoll_channel_buffer(task->ch, holder(task, s, g), s->chained) +
           (lo - at) * task->args->op->extent;
}

/* Step 2, the m groups' partial results of this member's part all posted: reduced into the
 * receive buffer (reduce_scatter) or this member's buffer of the step. */
static void reduce_partials(shmcoll_task_t *task, const reduce_ma2_t *s) {
    const shmcoll_reduce_op_t *op = task->args->op;
    const int me = task->ch->rank;
    size_t lo, len, at, unused, first, count;
    result_part(&s->ma.blocks, me, s->m, s->ma.slice, s->ma.round, &lo, &len);
    position_slice(&s->ma.blocks, me / s->m, s->m, s->ma.slice, s->ma.round, &at, &unused);
    coll_block_at(&s->ma.blocks, me, &first, &count);
    char *out = s->ma.result == COLL_RESULT_SCATTERED
                    ? (char *)task->args->recvbuf + (lo - first) * op->extent
                    : shmcoll_channel_buffer(task->ch, me, s->step);
    coll_reduce(task, op, partial(task, s, 0, lo, at), partial(task, s, 1, lo, at), out, len);
    for (int g = 2; g < s->m; g++)
        coll_reduce(task, op, out, partial(task, s, g, lo, at), out, len);
}

static shmcoll_status_t reduce_ma2_progress(shmcoll_task_t *task) {
    reduce_ma2_t *s = SHMCOLL_TASK_STATE(task, reduce_ma2_t);
    coll_ma_t *ma = &s->ma;
    shmcoll_channel_t *ch = task->ch;
    const shmcoll_reduce_op_t *op = task->args->op;
    const int me = ch->rank, p = ch->size;
    size_t lo, len; /* set after the last wait before each use */
    SHMCOLL_RESUME_BEGIN(&task->pc);
    coll_aside_copy(task, &ma->in);
    for (ma->round = 0; ma->round < ma->rounds; ma->round++) {
        SHMCOLL_AWAIT_TEST(&task->pc, shmcoll_coll_ma_chain(task, ma, s->n, chain_slice));

        /* Step 2: the m groups' partial results of this member's part, reduced. */
        s->chained = ma->step;
        s->step = shmcoll_channel_next_step(ch);
        SHMCOLL_AWAIT(task, &task->pc,
                      s->n >= 2
                          ? shmcoll_channel_test_claim_one(ch, s->step, ma->downstream, &task->wait)
                          : shmcoll_channel_test_claim(ch, s->step, &task->wait));
        result_part(&ma->blocks, me, s->m, ma->slice, ma->round, &lo, &len);
        if (len) {
            for (s->g = 0; s->g < s->m; s->g++)
                SHMCOLL_AWAIT(
                    task, &task->pc,
                    shmcoll_channel_test_post(ch, holder(task, s, s->g), s->chained, &task->wait));
            reduce_partials(task, s);
        }
        shmcoll_channel_ack(ch, s->chained);
        shmcoll_channel_post(ch, s->step);

        if (ma->wants_all && ma->result != COLL_RESULT_SCATTERED) {
            for (s->r = 0; s->r < p; s->r++) {
                result_part(&ma->blocks, s->r, s->m, ma->slice, ma->round, &lo, &len);
                if (!len) continue;
                SHMCOLL_AWAIT(task, &task->pc,
                              shmcoll_channel_test_post(ch, s->r, s->step, &task->wait));
                result_part(&ma->blocks, s->r, s->m, ma->slice, ma->round, &lo, &len);
                coll_copy_out(task, (char *)task->args->recvbuf + lo * op->extent,
                              shmcoll_channel_buffer(ch, s->r, s->step),
                              shmcoll_reduce_op_span(op, len));
            }
        }
        shmcoll_channel_ack(ch, s->step);
    }
    SHMCOLL_RESUME_END(&task->pc);
}

const shmcoll_task_ops_t shmcoll_coll_reduce_ma2_ops = {
    .init = reduce_ma2_init, .progress = reduce_ma2_progress, .fini = shmcoll_coll_ma_fini};
