/* Multi-radix recursive exchange allreduce (Jocksch et al., section 2.1): a reduce-scatter phase
 * and an allgather phase over the factorisation p = f_0 * f_1 * ... * f_(n-1) of
 * patterns/recexch.h.
 *
 * The vector is processed in rounds of at most one buffer, cut into p blocks of whole cache
 * lines (parts smaller than a line would make members write the same line, section 2.1.3). A
 * slot holds a round at its natural offsets, so a member's block range is where it lies in the
 * vector and no index arithmetic changes between steps. Per round, 2n + 1 steps:
 *   step 0      every member copies its input into its slot, except the part it folds itself;
 *   step 1+j    (reduce-scatter step j) member r, digit d in its group of f_j members that hold
 *               the same block range, folds part d of that range over the group in ascending
 *               digit order into its slot: its own part straight from its input (j = 0) or
 *               from its previous slot, the others' from theirs. Partial results cover
 *               contiguous rank intervals that the fold concatenates in order, so after step
 *               n-1 member r holds one block reduced as x_0 op x_1 op ... op x_(p-1): canonical
 *               order, safe for non-commutative ops;
 *   step n+1+a  (allgather step j = n-1-a) member r copies the block ranges of its group,
 *               its own included, into its slot, undoing reduce-scatter step j; the last
 *               allgather step writes the receive buffer instead.
 * Each block is reduced by one member only and then copied, so every member's result is bitwise
 * identical. In place works because the receive buffer is first written in the last step, after
 * the last read of the input (step 1). A member waits only for the peers whose data it reads
 * (f_j - 1 per step) and only when that data is not empty, which keeps tiny messages to a few
 * waits per member; each step that writes a slot claims it (everybody done with step - 2). As a
 * task, the driver of radix_run.c makes these waits, claims, posts and acks; the step functions
 * here say whom it waits for and do the copies and folds between them.
 *
 * DAV per round of s bytes (predefined kernels, size = extent; it does not depend on how the
 * blocks are cut):  s [ 2(p - p/f_0) + 3(p-1) + 2 * sum_{j=0}^{n-1} p / (f_0 ... f_(j-1)) ]
 *   copy in (each member all but its part), the p-1 combinations of every element, and the
 *   allgather's copies of ranges of size s, s/f_0, s/(f_0 f_1), ... per member.
 *   {p} (one step): s(7p-5); {2,2,2} for p = 8: 57s; {4,2}: 53s. Movement-avoiding allreduce
 *   moves s(5p-1) in p stages; this one needs 2n+1 synchronisations instead.
 *
 * This file also holds the process-wide cache of default factorisations that cyclic.c shares. */
#include "coll/radix_default.h"
#include "coll/coll.h"
#include "coll/coll_internal.h"
#include "coll/radix_run.h"
#include "patterns/cyclic.h"
#include "patterns/recexch.h"

#include <pthread.h>

/* ---- Cache of default factorisations ------------------------------------------------------- */

/* A few team sizes per process (communicator sizes repeat); the search of a factorisation is
 * cheap but not free next to a small allreduce. */
#define RADIX_CACHE_ENTRIES 16

static struct {
    int valid;
    shmcoll_coll_radix_kind_t kind;
    int p;
    shmcoll_pattern_radix_t f;
} radix_cache[RADIX_CACHE_ENTRIES];
static int radix_cache_next;
static pthread_mutex_t radix_cache_lock = PTHREAD_MUTEX_INITIALIZER;

shmcoll_status_t shmcoll_coll_radix_default(shmcoll_coll_radix_kind_t kind, int p,
                                            shmcoll_pattern_radix_t *f) {
    pthread_mutex_lock(&radix_cache_lock);
    for (int i = 0; i < RADIX_CACHE_ENTRIES; i++)
        if (radix_cache[i].valid && radix_cache[i].kind == kind && radix_cache[i].p == p) {
            *f = radix_cache[i].f;
            pthread_mutex_unlock(&radix_cache_lock);
            return SHMCOLL_OK;
        }
    const int limit = SHMCOLL_PATTERN_MAX_RADIX_DEFAULT;
    shmcoll_status_t status = kind == SHMCOLL_COLL_RADIX_RECEXCH
                                  ? shmcoll_pattern_recexch_factorise(p, limit, f)
                                  : shmcoll_pattern_cyclic_factorise(p, limit, f);
    if (status == SHMCOLL_OK) {
        const int i = radix_cache_next;
        radix_cache_next = (i + 1) % RADIX_CACHE_ENTRIES;
        radix_cache[i].kind = kind;
        radix_cache[i].p = p;
        radix_cache[i].f = *f;
        radix_cache[i].valid = 1;
    }
    pthread_mutex_unlock(&radix_cache_lock);
    return status;
}

/* ---- The allreduce ------------------------------------------------------------------------- */

/* Elements of blocks [first, first + count) of the current round. */
static void block_range(const coll_radix_run_t *rx, int first, int count, size_t *lo, size_t *hi) {
    const size_t a = (size_t)first * rx->blocks.per, z = (size_t)(first + count) * rx->blocks.per;
    *lo = a < rx->blocks.n ? a : rx->blocks.n;
    *hi = z < rx->blocks.n ? z : rx->blocks.n;
}

/* Elements member r holds after the first `steps` reduce-scatter steps. */
static void held_range(const coll_radix_run_t *rx, int steps, int r, size_t *lo, size_t *hi) {
    int first, count;
    shmcoll_pattern_recexch_blocks(&rx->f, steps, r, &first, &count);
    block_range(rx, first, count, lo, hi);
}

static void *slot_at(const shmcoll_task_t *task, const coll_radix_run_t *rx, int r, uint64_t step,
                     size_t element) {
    return (char *)coll_slot(task->ch, r, step, rx->use_inline) + element * task->args->op->extent;
}

/* Copy elements [lo, hi) between two buffers laid out as the round. */
static void copy_range(shmcoll_task_t *task, char *dst, const char *src, size_t lo, size_t hi,
                       int out) {
    if (hi <= lo) return;
    const shmcoll_reduce_op_t *op = task->args->op;
    const size_t at = lo * op->extent, bytes = shmcoll_reduce_op_span(op, hi - lo);
    if (out)
        coll_copy_out(task, dst + at, src + at, bytes);
    else
        coll_copy(task, dst + at, src + at, bytes);
}

/* Step 0: the input goes into the slot, except the part this member folds in step 1. */
static int publish_writes(shmcoll_task_t *task, coll_radix_run_t *rx) {
    size_t lo, hi;
    held_range(rx, 1, task->ch->rank, &lo, &hi);
    return lo > 0 || hi < rx->blocks.n;
}

static void publish(shmcoll_task_t *task, coll_radix_run_t *rx) {
    size_t lo, hi;
    held_range(rx, 1, task->ch->rank, &lo, &hi);
    char *slot = slot_at(task, rx, task->ch->rank, rx->step, 0);
    copy_range(task, slot, rx->input, 0, lo, 0);
    copy_range(task, slot, rx->input, hi, rx->blocks.n, 0);
}

/* Reduce-scatter step j, reading the step before: the group's members but this one are waited
 * for in ascending digit order, then the slot claimed and part d folded. */
static int reduce_scatter_begin(shmcoll_task_t *task, coll_radix_run_t *rx) {
    const int me = task->ch->rank;
    rx->d = shmcoll_pattern_recexch_group(&rx->f, rx->j, me, rx->members);
    size_t lo, hi;
    held_range(rx, rx->j + 1, me, &lo, &hi);
    return hi > lo;
}

static int reduce_scatter_peer(shmcoll_task_t *task, coll_radix_run_t *rx, int g) {
    return g == rx->d ? -1 : rx->members[g];
}

static void reduce_scatter(shmcoll_task_t *task, coll_radix_run_t *rx) {
    const int me = task->ch->rank, j = rx->j, radix = rx->f.radix[j];
    const uint64_t step = rx->step;
    size_t lo, hi;
    held_range(rx, j + 1, me, &lo, &hi);
    for (int g = 0; g < radix; g++)
        rx->x[g] = g != rx->d ? slot_at(task, rx, rx->members[g], step - 1, lo)
                   : j == 0   ? rx->input + lo * task->args->op->extent
                              : slot_at(task, rx, me, step - 1, lo);
    shmcoll_coll_fold_ordered(task, task->args->op, rx->x, radix, slot_at(task, rx, me, step, lo),
                              hi - lo);
}

/* Allgather step j, reading the step before; the last one (j = 0) fills recvbuf. Own part first
 * (it is in cache), then the others from the next digit on, so the members of a group do not all
 * read the same peer first. */
static int allgather_begin(shmcoll_task_t *task, coll_radix_run_t *rx) {
    const int me = task->ch->rank;
    rx->d = shmcoll_pattern_recexch_group(&rx->f, rx->j, me, rx->members);
    if (rx->last) return 0;
    size_t lo, hi;
    held_range(rx, rx->j, me, &lo, &hi);
    return hi > lo;
}

static int allgather_peer(shmcoll_task_t *task, coll_radix_run_t *rx, int i) {
    const int q = rx->members[(rx->d + i) % rx->f.radix[rx->j]];
    size_t lo, hi;
    held_range(rx, rx->j + 1, q, &lo, &hi);
    return hi > lo ? q : -1;
}

static void allgather_copy(shmcoll_task_t *task, coll_radix_run_t *rx, int i) {
    const int q = rx->members[(rx->d + i) % rx->f.radix[rx->j]];
    char *target = rx->last ? rx->recvbuf : (char *)slot_at(task, rx, task->ch->rank, rx->step, 0);
    size_t lo, hi;
    held_range(rx, rx->j + 1, q, &lo, &hi);
    copy_range(task, target, slot_at(task, rx, q, rx->step - 1, 0), lo, hi, rx->last);
}

static const coll_radix_steps_t recexch_steps = COLL_RADIX_STEPS(SHMCOLL_COLL_RADIX_RECEXCH, 0);

/* params.factors, or the default factorisation of the team size (radix_run.h). */
static shmcoll_status_t recexch_init(shmcoll_task_t *task) {
    return shmcoll_coll_radix_init(task, &recexch_steps);
}

const shmcoll_task_ops_t shmcoll_coll_allreduce_recexch_ops = {
    .init = recexch_init, .progress = shmcoll_coll_radix_progress};
