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

#include <stdlib.h>

typedef struct reduce_ma2 {
    /* The plan. */
    const char *input; /* sendbuf, recvbuf in place, or the copy aside */
    char *aside;       /* in-place reduce_scatter: the input's copy (malloc), else NULL */
    coll_blocks_t blocks;
    coll_result_t result;
    int wants_all; /* copies every round's p reduced parts out */
    const shmcoll_topo_level_t *level;
    int m, n; /* m socket groups of n members */
    int pos;  /* this member's position in its group */
    int upstream, downstream;
    size_t slice, rounds;
    /* The run. */
    size_t round;
    int k;            /* chain stage */
    int g;            /* step 2: the group whose partial result is awaited */
    int r;            /* copy-out: the member whose part is copied */
    uint64_t step;    /* the stage's; then step 2's */
    uint64_t chained; /* the chain's last step */
} reduce_ma2_t;

_Static_assert(sizeof(reduce_ma2_t) <= SHMCOLL_TASK_STATE_BYTES, "reduce_ma2 state too large");

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
    const shmcoll_coll_args_t *a = task->args;
    const shmcoll_reduce_op_t *op = a->op;
    const int me = task->ch->rank, p = task->ch->size;
    const int scattered = coll_scatters(task);
    /* Reduce and allreduce need a chain of two or more. */
    if (!scattered && (!op->commutative || p < 2)) return SHMCOLL_ERR_NOT_SUPPORTED;
    s->slice = task->ch->chunk / op->extent;
    s->level = shmcoll_team_socket_level(&task->team->hiers);
    if (s->slice == 0 || !op->commutative || !s->level) return SHMCOLL_ERR_NOT_SUPPORTED;
    s->m = s->level->ngroups;
    s->n = s->level->groups[0].nmembers;
    const int *group = s->level->groups[s->level->group_of[me]].members;
    s->pos = s->level->slot[me];
    s->upstream = group[(s->pos + 1) % s->n];
    s->downstream = group[(s->pos + s->n - 1) % s->n];

    const int root = coll_reduction_root(task);
    s->blocks = coll_task_blocks(task);
    s->result = scattered          ? COLL_RESULT_SCATTERED
                : root == COLL_ALL ? COLL_RESULT_ALL
                                   : COLL_RESULT_ROOT;
    s->wants_all = s->result == COLL_RESULT_ALL || (s->result == COLL_RESULT_ROOT && me == root);
    size_t longest = 0;
    for (int i = 0; i < s->n; i++) {
        size_t first, end;
        position_range(&s->blocks, i, s->m, &first, &end);
        longest = end - first > longest ? end - first : longest;
    }
    s->rounds = coll_div_ceil(longest, s->slice);
    /* YHCCL Algorithm 2: send and receive buffers plus the shared slices in flight. */
    const size_t span = shmcoll_reduce_op_span(op, s->blocks.n);
    coll_declare_working_set(task, 2 * span, span);
    s->input = coll_input(task);
    s->aside = NULL;
    if (scattered && !a->sendbuf) {
        s->aside = malloc(span ? span : 1);
        if (!s->aside) return SHMCOLL_ERR_NO_MEMORY;
        s->input = s->aside;
    }
    return SHMCOLL_OK;
}

/* Chain stage s->k of the round, its claim and upstream's post in. */
static void chain_stage(shmcoll_task_t *task, const reduce_ma2_t *s) {
    const shmcoll_reduce_op_t *op = task->args->op;
    size_t lo, len;
    position_slice(&s->blocks, (s->pos + 1 + s->k) % s->n, s->m, s->slice, s->round, &lo, &len);
    shmcoll_coll_ma_stage(task, op, s->k, s->step, s->input + lo * op->extent, len, NULL,
                          s->upstream);
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
    result_part(&s->blocks, me, s->m, s->slice, s->round, &lo, &len);
    position_slice(&s->blocks, me / s->m, s->m, s->slice, s->round, &at, &unused);
    coll_block_at(&s->blocks, me, &first, &count);
    char *out = s->result == COLL_RESULT_SCATTERED
                    ? (char *)task->args->recvbuf + (lo - first) * op->extent
                    : shmcoll_channel_buffer(task->ch, me, s->step);
    coll_reduce(task, op, partial(task, s, 0, lo, at), partial(task, s, 1, lo, at), out, len);
    for (int g = 2; g < s->m; g++)
        coll_reduce(task, op, out, partial(task, s, g, lo, at), out, len);
}

static shmcoll_status_t reduce_ma2_progress(shmcoll_task_t *task) {
    reduce_ma2_t *s = SHMCOLL_TASK_STATE(task, reduce_ma2_t);
    shmcoll_channel_t *ch = task->ch;
    const shmcoll_reduce_op_t *op = task->args->op;
    const int me = ch->rank, p = ch->size;
    size_t lo, len; /* set after the last wait before each use */
    SHMCOLL_RESUME_BEGIN(&task->pc);
    if (s->aside)
        coll_copy(task, s->aside, task->args->recvbuf, shmcoll_reduce_op_span(op, s->blocks.n));
    for (s->round = 0; s->round < s->rounds; s->round++) {
        for (s->k = 0; s->k < s->n; s->k++) {
            s->step = shmcoll_channel_next_step(ch);
            SHMCOLL_AWAIT(task, &task->pc, coll_ma_test_claim(task, s->k, s->step, s->downstream));
            if (s->k > 0)
                SHMCOLL_AWAIT(task, &task->pc,
                              shmcoll_channel_test_post(ch, s->upstream, s->step - 1, &task->wait));
            chain_stage(task, s);
        }

        /* Step 2: the m groups' partial results of this member's part, reduced. */
        s->chained = s->step;
        s->step = shmcoll_channel_next_step(ch);
        SHMCOLL_AWAIT(task, &task->pc,
                      s->n >= 2
                          ? shmcoll_channel_test_claim_one(ch, s->step, s->downstream, &task->wait)
                          : shmcoll_channel_test_claim(ch, s->step, &task->wait));
        result_part(&s->blocks, me, s->m, s->slice, s->round, &lo, &len);
        if (len) {
            for (s->g = 0; s->g < s->m; s->g++)
                SHMCOLL_AWAIT(
                    task, &task->pc,
                    shmcoll_channel_test_post(ch, holder(task, s, s->g), s->chained, &task->wait));
            reduce_partials(task, s);
        }
        shmcoll_channel_ack(ch, s->chained);
        shmcoll_channel_post(ch, s->step);

        if (s->wants_all && s->result != COLL_RESULT_SCATTERED) {
            for (s->r = 0; s->r < p; s->r++) {
                result_part(&s->blocks, s->r, s->m, s->slice, s->round, &lo, &len);
                if (!len) continue;
                SHMCOLL_AWAIT(task, &task->pc,
                              shmcoll_channel_test_post(ch, s->r, s->step, &task->wait));
                result_part(&s->blocks, s->r, s->m, s->slice, s->round, &lo, &len);
                coll_copy_out(task, (char *)task->args->recvbuf + lo * op->extent,
                              shmcoll_channel_buffer(ch, s->r, s->step),
                              shmcoll_reduce_op_span(op, len));
            }
        }
        shmcoll_channel_ack(ch, s->step);
    }
    SHMCOLL_RESUME_END(&task->pc);
}

static void reduce_ma2_fini(shmcoll_task_t *task) {
    free(SHMCOLL_TASK_STATE(task, reduce_ma2_t)->aside);
}

const shmcoll_task_ops_t shmcoll_coll_reduce_ma2_ops = {
    .init = reduce_ma2_init, .progress = reduce_ma2_progress, .fini = reduce_ma2_fini};
