/* Helpers shared by the algorithms of coll/: the copy and reduce primitives that count the bytes
 * they load and store (DAV, the data-access volume of the YHCCL paper: a copy of n bytes costs 2n,
 * out = a op b over n bytes costs 3n), the working set that chooses their loops, and the pieces
 * several algorithms share. Every algorithm is a task (core/task.h): these take the task, whose
 * lane (task->ch) the algorithm talks through. */
#ifndef SHMCOLL_COLL_INTERNAL_H
#define SHMCOLL_COLL_INTERNAL_H

#include "core/task.h"
#include "core/team.h"
#include "kernels/kernels.h"
#include "kernels/nt_policy.h"
#include "kernels/reduce_op.h"

#include <stdio.h>
#include <stdlib.h>

/* Reduction algorithms serve reduce (result at `root`) and allreduce (root = COLL_ALL). */
#define COLL_ALL (-1)

/* The root of a reduction task: the root for reduce, COLL_ALL for allreduce. */
static inline int coll_reduction_root(const shmcoll_task_t *task) {
    return task->args->kind == SHMCOLL_KIND_REDUCE ? task->args->root : COLL_ALL;
}

/* The input of a reduction: sendbuf, or recvbuf in place. */
static inline const char *coll_input(const shmcoll_task_t *task) {
    return task->args->sendbuf ? (const char *)task->args->sendbuf
                               : (const char *)task->args->recvbuf;
}

/* An element layout and function the reduction kernels can use (a user function or kernel, an
 * extent no smaller than the data). */
static inline int coll_op_usable(const shmcoll_reduce_op_t *op) {
    return op->size > 0 && op->extent >= op->size && (op->kernel || op->user_fn);
}

/* The algorithm's working set W for this call (YHCCL Algorithms 2-4), which the copies below
 * consult: the send and receive bytes it touches (`own`) plus the shared buffers in flight while
 * each member stages `staged` bytes through its slots — those bytes, at most both parities, on
 * every member. Every member derives both from values all share, so all choose their copies
 * alike. */
static inline void coll_declare_working_set(shmcoll_task_t *task, size_t own, size_t staged) {
    const size_t both_parities = 2 * task->ch->chunk;
    task->working_set =
        own + (size_t)task->team->size * (staged < both_parities ? staged : both_parities);
}

/* A temporal copy. When the declared working set is well beyond what the core's own caches
 * hold (team->memory_copy_min), one side of the copy at least comes from or goes to memory: the
 * memory loop then keeps more misses in flight (kernels.h); otherwise the plain loop, faster
 * for cached buffers. */
static inline void coll_copy(shmcoll_task_t *task, void *dst, const void *src, size_t bytes) {
    if (!bytes || dst == src) return;
    if (bytes <= SHMCOLL_KERNEL_COPY_SMALL_MAX)
        shmcoll_kernel_copy_small(dst, src, bytes);
    else if (task->working_set > task->team->memory_copy_min)
        shmcoll_kernel_copy_memory(dst, src, bytes);
    else
        shmcoll_kernel_copy(dst, src, bytes);
    task->dav += 2 * bytes;
}

/* A copy with streaming stores when `stream`, else a temporal copy as above. */
static inline void coll_copy_streamed(shmcoll_task_t *task, void *dst, const void *src,
                                      size_t bytes, int stream) {
    if (!bytes || dst == src) return;
    if (stream) {
        shmcoll_kernel_copy_nt(dst, src, bytes);
        task->dav += 2 * bytes;
    } else {
        coll_copy(task, dst, src, bytes);
    }
}

/* A copy into a destination the caller will not read again soon (a receive buffer being filled
 * for the application): when the declared working set exceeds the usable cache, streaming stores,
 * so the copy neither evicts the shared buffers still in use nor pays for reading lines it
 * overwrites (YHCCL Algorithm 1), where the team's cores can use up the memory's bandwidth;
 * where they are too few, the stores the process measured faster (kernels.h,
 * shmcoll_kernel_copy_measured): on a 2-core Cascade Lake guest streaming was 8-20% slower, on
 * the 2-core AMD EPYC guest the project is measured on now it copies from cache to memory in
 * half the time. Else (or SHMCOLL_NT=never) a temporal copy as above; SHMCOLL_NT=always streams. */
static inline void coll_copy_out(shmcoll_task_t *task, void *dst, const void *src, size_t bytes) {
    const shmcoll_team_t *team = task->team;
    const shmcoll_nt_mode_t mode = shmcoll_kernel_nt_mode();
    if (bytes <= SHMCOLL_KERNEL_COPY_SMALL_MAX || /* less than a line: never streamed */
        !shmcoll_kernel_nt_decide(mode, task->working_set, 0, team->usable_cache, 1)) {
        coll_copy(task, dst, src, bytes);
        return;
    }
    if (team->bandwidth_bound || mode == SHMCOLL_NT_ALWAYS) {
        coll_copy_streamed(task, dst, src, bytes, 1);
        return;
    }
    if (dst == src) return;
    shmcoll_kernel_copy_measured(dst, src, bytes);
    task->dav += 2 * bytes;
}

/* out = a op b over n elements; out may alias a or b exactly. A user function only has the
 * shape inout = in op inout, so out == a is served as b op a: callers alias a only for
 * commutative ops. */
static inline void coll_reduce(shmcoll_task_t *task, const shmcoll_reduce_op_t *op, const void *a,
                               const void *b, void *out, size_t n) {
    if (!n) return;
    if (op->kernel) {
        op->kernel(a, b, out, n);
    } else if (out == a) {
        op->user_fn(b, out, n, op->user_ctx);
    } else {
        coll_copy(task, out, b, shmcoll_reduce_op_span(op, n));
        op->user_fn(a, out, n, op->user_ctx);
    }
    task->dav += 3 * n * op->size;
}

/* Where member r's contribution of `step` sits: its slot of kind `slot` (shm/channel.h). Callers
 * that know only the inline area and the buffer pass their use_inline flag (0 or 1). */
static inline const void *coll_slot(const shmcoll_channel_t *ch, int r, uint64_t step,
                                    shmcoll_slot_t slot) {
    return slot == SHMCOLL_SLOT_INLINE  ? shmcoll_channel_inline(ch, r, step)
           : slot == SHMCOLL_SLOT_EAGER ? shmcoll_channel_eager(ch, r, step)
                                        : shmcoll_channel_buffer(ch, r, step);
}

/* The slot of a payload of `bytes` that one member writes alone in a step: its inline area where
 * the payload fits `inline_bytes` of it (SHMCOLL_POST_PAYLOAD_BYTES where the step publishes
 * nothing in aux), else its eager slot, else its buffer. */
static inline shmcoll_slot_t coll_sender_slot(const shmcoll_channel_t *ch, size_t bytes,
                                              size_t inline_bytes) {
    return bytes <= inline_bytes ? SHMCOLL_SLOT_INLINE
           : bytes <= ch->eager  ? SHMCOLL_SLOT_EAGER
                                 : SHMCOLL_SLOT_BUFFER;
}

/* The bytes a slot of kind `slot` holds, its inline area counted as `inline_bytes`. */
static inline size_t coll_slot_bytes(const shmcoll_channel_t *ch, shmcoll_slot_t slot,
                                     size_t inline_bytes) {
    return slot == SHMCOLL_SLOT_INLINE  ? inline_bytes
           : slot == SHMCOLL_SLOT_EAGER ? ch->eager
                                        : ch->chunk;
}

/* out = x0 op x1 op ... op x(m-1) over the first m members (m >= 1), where xr is n elements at
 * byte `offset` of member r's slot of `step`. Folded from the right (x(m-2) op x(m-1) first),
 * which is the canonical rank order for non-commutative ops given MPI's in/inout function shape,
 * and the same order on every member, so allreduce results are bitwise identical everywhere. */
static inline void coll_fold_first(shmcoll_task_t *task, const shmcoll_reduce_op_t *op,
                                   uint64_t step, int use_inline, size_t offset, size_t n, int m,
                                   void *out) {
    const shmcoll_channel_t *ch = task->ch;
    const char *last = (const char *)coll_slot(ch, m - 1, step, use_inline) + offset;
    if (m == 1) {
        coll_copy(task, out, last, shmcoll_reduce_op_span(op, n));
        return;
    }
    const char *prev = (const char *)coll_slot(ch, m - 2, step, use_inline) + offset;
    coll_reduce(task, op, prev, last, out, n);
    for (int r = m - 3; r >= 0; r--)
        coll_reduce(task, op, (const char *)coll_slot(ch, r, step, use_inline) + offset, out, out,
                    n);
}

/* The fold over all members. */
static inline void coll_fold_slots(shmcoll_task_t *task, const shmcoll_reduce_op_t *op,
                                   uint64_t step, int use_inline, size_t offset, size_t n,
                                   void *out) {
    coll_fold_first(task, op, step, use_inline, offset, n, task->ch->size, out);
}

/* out = x[0] op x[1] op ... op x[m-1] over n elements (m >= 1; m = 1 copies), in this order, so
 * non-commutative ops see their operands in canonical order. out may be x[0] only for kernels
 * and commutative ops; otherwise it must differ from every operand. Counts DAV. */
void shmcoll_coll_fold_ordered(shmcoll_task_t *task, const shmcoll_reduce_op_t *op,
                               const void *const *x, int m, void *out, size_t n);

/* Byte blocks of the data-movement collectives: uniform (`bytes` each, back to back) or given
 * per member (counts and displacements, in bytes). */
typedef struct coll_bytes {
    size_t bytes;
    const size_t *counts;
    const size_t *displs;
} coll_bytes_t;

static inline size_t coll_bytes_count(const coll_bytes_t *b, int r) {
    return b->counts ? b->counts[r] : b->bytes;
}

static inline size_t coll_bytes_displ(const coll_bytes_t *b, int r) {
    return b->counts ? b->displs[r] : (size_t)r * b->bytes;
}

/* Bytes of a block that fall into round `round` of `piece`-byte rounds. */
static inline size_t coll_round_bytes(size_t total, size_t round, size_t piece) {
    size_t lo = round * piece;
    if (lo >= total) return 0;
    return total - lo < piece ? total - lo : piece;
}

/* a / b rounded up; a block that fits one piece, the common case of small calls, without the
 * division (tens of cycles, as much as the rest of a tiny call's plan). */
static inline size_t coll_div_ceil(size_t a, size_t b) {
    return a <= b ? a != 0 : (a + b - 1) / b;
}

/* Per-destination piece of a buffer shared by p destinations: cache-line multiples when they
 * fit, so destinations never share a line. */
static inline size_t coll_piece_per_member(size_t chunk, int p) {
    size_t piece = chunk / (size_t)p;
    return piece >= 64 ? piece & ~(size_t)63 : (piece ? piece : 1);
}

/* A buffer one member fills for the p - 1 others (scatter's root, alltoall's every member) is cut
 * into p - 1 pieces: its own block never travels. Cut into p, half of each round's buffer went
 * unused at p = 2 and a block took twice the rounds. */
static inline size_t coll_piece_per_other(size_t chunk, int p) {
    return coll_piece_per_member(chunk, p > 1 ? p - 1 : 1);
}

/* Which of `writer`'s pieces for the others is member q's (q != writer): the same on both sides. */
static inline size_t coll_other_index(int q, int writer) {
    return (size_t)(q - (q > writer));
}

/* Copies piece `round` of every other member's block (bytes at `slot_offset` of its slot of
 * `step`; COLL_READER_PIECE: at this member's piece of a slot cut for the others,
 * coll_other_index) to recvbuf at the block's displacement, starting with the right-hand
 * neighbour.
 * Resumable (core/task.h): IN_PROGRESS with task->wait set, then call again with the same
 * arguments; `c` is its own state, zeroed before the first call. */
#define COLL_READER_PIECE SIZE_MAX
typedef struct coll_collect {
    int pc;
    int i;
} coll_collect_t;

shmcoll_status_t shmcoll_coll_collect_round(shmcoll_task_t *task, coll_collect_t *c, uint64_t step,
                                            shmcoll_slot_t slot, size_t slot_offset,
                                            const coll_bytes_t *blocks, size_t round, size_t piece,
                                            char *recvbuf);

/* ---- Data movement (gather.c, scatter.c, allgather.c, alltoall.c, single_copy.c) --------- */

/* Whether blocks of up to `longest` bytes move single-copy. The team must be able to (every pair
 * passed the probe at setup) and the blocks long enough to pay for a system call each. Then
 * gather and scatter (`rooted`) always do: single copies spread the root's p-1 copies over the
 * others. Allgather and alltoall do with SHMCOLL_CMA=all, else up to SHMCOLL_CMA_MAX: for larger
 * blocks, whose buffers come from memory, the kernel's copy (which pins the other process's
 * pages one by one) was slower than the slot pipeline, whose copies hit cache on one side. Every
 * member passes the same values, so all choose alike. The registry's rows encode the same rules
 * for the calls whose sizes every member knows (select/registry.c); gatherv, scatterv and
 * alltoallv consult this after agreeing on their longest block. */
static inline int coll_single_copy(const shmcoll_team_t *team, int rooted, size_t longest) {
    if (team->cma == SHMCOLL_CMA_OFF || longest < team->cma_min) return 0;
    return rooted || team->cma == SHMCOLL_CMA_ALL || longest <= team->cma_max;
}

/* This member's own block of gather(v) (what it sends) or scatter(v) (what it receives). */
static inline size_t coll_own_bytes(const shmcoll_coll_args_t *a) {
    return a->kind == SHMCOLL_KIND_GATHERV    ? a->sendbytes
           : a->kind == SHMCOLL_KIND_SCATTERV ? a->recvbytes
                                              : a->count;
}

/* The receive blocks of gather(v), allgather(v) and alltoall(v) (core/coll_args.h): `count`
 * bytes each, or recvcounts / rdispls for the v-variants (NULL at a gatherv's non-roots). */
static inline coll_bytes_t coll_recv_blocks(const shmcoll_coll_args_t *a) {
    if (shmcoll_coll_kinds[a->kind].varying)
        return (coll_bytes_t){.counts = a->recvcounts, .displs = a->rdispls};
    return (coll_bytes_t){.bytes = a->count};
}

/* The send blocks of scatter(v) and alltoall(v): `count` bytes each, or sendcounts / sdispls
 * (NULL at a scatterv's non-roots). */
static inline coll_bytes_t coll_send_blocks(const shmcoll_coll_args_t *a) {
    if (shmcoll_coll_kinds[a->kind].varying)
        return (coll_bytes_t){.counts = a->sendcounts, .displs = a->sdispls};
    return (coll_bytes_t){.bytes = a->count};
}

/* The single-copy bodies gatherv, scatterv and alltoallv also run after agreeing on their longest
 * block (coll/single_copy.c). Resumable, as collect_round; `c` zeroed before the first call.
 * These helpers, collect_round and agree_max wait in place themselves when the task is blocking,
 * so their callers resume them with SHMCOLL_AWAIT_TEST. */
typedef struct coll_single {
    int pc;
    int i;
    int exposed; /* a block moves single-copy: the exposing member waits for the others */
    uint64_t step;
} coll_single_t;

/* Every member exposes `sendbuf` and reads its block of `out` from every other member's. Not in
 * place: the blocks to send must not be overwritten while the others read them (allgather's one
 * outgoing block, read by all, may lie in recvbuf). `piece` 0: every block single-copy. Else
 * alltoallv's one step: blocks of SHMCOLL_CMA_MIN bytes and more, and those longer than `piece`,
 * single-copy, the others through their sender's slot, in their reader's piece (`piece` bytes
 * at the reader's place); each block's way follows from its own size, which its sender and its
 * reader both know. A member waits for the others' acknowledgements only when it exposed a
 * block. */
shmcoll_status_t shmcoll_coll_alltoall_single(shmcoll_task_t *task, coll_single_t *c,
                                              const char *sendbuf, const coll_bytes_t *out,
                                              char *recvbuf, const coll_bytes_t *in, size_t piece);
/* One step. Blocks of SHMCOLL_CMA_MIN bytes and more, and those too long for a chunk, are written
 * into the root's buffer single-copy; the others (only gatherv mixes the two) pass through their
 * sender's slot in the same step. Each block's way follows from its own size, which its sender
 * and the root both know: gatherv needs no agreement first where cma_min <= chunk (the one-step
 * row). The root publishes its buffer, and waits for acknowledgements, only when a block is
 * written into it single-copy. */
shmcoll_status_t shmcoll_coll_gather_single(shmcoll_task_t *task, coll_single_t *c,
                                            const char *mine, size_t my_count, char *recvbuf,
                                            const coll_bytes_t *blocks, int root);
/* One step, as gather's: blocks of SHMCOLL_CMA_MIN bytes and more, and those too long for a
 * piece of the root's slot (coll_piece_per_member), are read from the root's exposed buffer
 * single-copy, the others (only scatterv mixes the two) from their piece of the root's slot. The
 * root waits for acknowledgements only when it exposed a block. */
shmcoll_status_t shmcoll_coll_scatter_single(shmcoll_task_t *task, coll_single_t *c,
                                             const char *sendbuf, const coll_bytes_t *blocks,
                                             char *recvbuf, size_t my_count, int root);

/* One step in which `root` (or, with COLL_ALL, every member) publishes a number in its inline
 * area; a->result is then the root's number, or the maximum over all members. Used by the
 * v-variants, where only some members know how many rounds the collective takes. Resumable, as
 * collect_round; `a` zeroed before the first call. a->flags, set by the caller before the first
 * call, rides along: the root's, or the OR over all members. */
typedef struct coll_agree {
    int pc;
    int r;
    uint64_t step;
    uint64_t result;
    uint64_t flags;
} coll_agree_t;

shmcoll_status_t shmcoll_coll_agree_max(shmcoll_task_t *task, coll_agree_t *a, uint64_t mine,
                                        int root);

/* ---- The slot pipelines of gather(v), scatter(v) and alltoall(v) (pipeline.c) ------------- */

/* Their state: rounds of `piece` bytes through the slots; the v-variants, whose block sizes only
 * some members know, first agree on the longest block in one step, after which the call moves
 * single-copy or in rounds. */
typedef struct coll_pipeline {
    int agreeing;          /* a v-variant: agree on the longest block first */
    int single;            /* moves single-copy after agreeing */
    uint64_t mine_longest; /* what this member brings to the agreement */
    shmcoll_slot_t slot;   /* where the pieces go */
    size_t piece;
    size_t rounds;
    size_t round;
    uint64_t step;
    coll_agree_t agree;
    coll_single_t single_copy;
    coll_collect_t collect;
} coll_pipeline_t;

/* The rounds of blocks of up to `longest` bytes (piece, rounds and the working set), planned by
 * each collective. */
typedef void (*coll_pipeline_plan_fn)(shmcoll_task_t *task, coll_pipeline_t *s, size_t longest);

/* A call's state at init. Uniform blocks: the rounds of `plan` for `count` bytes. A v-variant:
 * the agreement first, to which `root` (COLL_ALL: every member) brings the longest of `blocks`
 * but its own. */
void shmcoll_coll_pipeline_init(shmcoll_task_t *task, coll_pipeline_t *s,
                                const coll_bytes_t *blocks, int root, coll_pipeline_plan_fn plan);

/* A v-variant's agreement step (resumable, as collect_round). Then the call moves single-copy
 * (s->single, task->algo "single-copy") where `may_single` and coll_single_copy allow it for
 * blocks of the agreed length (gather and scatter, rooted: `root` not COLL_ALL), else in the
 * rounds of `plan`. */
shmcoll_status_t shmcoll_coll_pipeline_agree(shmcoll_task_t *task, coll_pipeline_t *s, int root,
                                             int may_single, coll_pipeline_plan_fn plan);

/* The init of the single-copy rows of these collectives and allgather(v) (single_copy.c), whose
 * progress is their pipeline's: the single-copy body at once. NOT_SUPPORTED where the team cannot
 * use cross-memory attach. */
shmcoll_status_t shmcoll_coll_single_init(shmcoll_task_t *task);

/* The sending half of a round of scatter and alltoall: piece `round` of every other member's
 * block of `blocks` in `sendbuf` into that member's piece of this member's buffer of `step`
 * (claimed by the caller). */
void shmcoll_coll_fill_pieces(shmcoll_task_t *task, const coll_pipeline_t *s, const char *sendbuf,
                              const coll_bytes_t *blocks);

/* p blocks of an element range: equal parts of `per` elements (clipped to n; counts NULL), or
 * explicit per-block counts with their prefix offsets (reduce_scatter). */
typedef struct coll_blocks {
    size_t n;
    size_t per;
    const size_t *counts;
    const size_t *firsts;
} coll_blocks_t;

static inline void coll_block(const coll_blocks_t *blocks, int j, size_t *first, size_t *len) {
    if (blocks->counts) {
        *first = blocks->firsts[j];
        *len = blocks->counts[j];
        return;
    }
    size_t lo = (size_t)j * blocks->per, hi = lo + blocks->per;
    lo = lo < blocks->n ? lo : blocks->n;
    hi = hi < blocks->n ? hi : blocks->n;
    *first = lo;
    *len = hi - lo;
}

/* n elements in p equal blocks that start on cache-line boundaries where the element size
 * allows it, so no two members write the same line. */
static inline coll_blocks_t coll_blocks_equal(const shmcoll_reduce_op_t *op, size_t n, int p) {
    size_t align = (op->extent <= 64 && 64 % op->extent == 0) ? 64 / op->extent : 1;
    size_t per = (n + (size_t)p - 1) / (size_t)p;
    per = (per + align - 1) / align * align;
    return (coll_blocks_t){.n = n, .per = per ? per : 1};
}

/* Where the result of a reduction goes. */
typedef enum coll_result {
    COLL_RESULT_SCATTERED, /* block j to member j's recvbuf (reduce_scatter) */
    COLL_RESULT_ALL,       /* everything to every member (allreduce) */
    COLL_RESULT_ROOT,      /* everything to the root (reduce) */
} coll_result_t;

/* Whether a reduction task scatters its result (reduce_scatter, reduce_scatter_block). */
static inline int coll_scatters(const shmcoll_task_t *task) {
    return task->args->kind == SHMCOLL_KIND_REDUCE_SCATTER ||
           task->args->kind == SHMCOLL_KIND_REDUCE_SCATTER_BLOCK;
}

/* The blocks of a reduction task: p equal ones (coll_blocks_equal) for reduce and allreduce,
 * `count` elements each for reduce_scatter_block, recvcounts[j] for block j of reduce_scatter.
 * The last come without firsts: there is no per-call memory for p offsets (the lane's ints are
 * too narrow for element offsets, and its scratch belongs to the lane's running task, not yet to
 * this one while it is set up), so their offsets are sums of the counts before them, kept as
 * running sums by the chains or taken by coll_block_at; never coll_block on them. */
static inline coll_blocks_t coll_task_blocks(const shmcoll_task_t *task) {
    const shmcoll_coll_args_t *a = task->args;
    const int p = task->ch->size;
    if (a->kind == SHMCOLL_KIND_REDUCE_SCATTER) {
        size_t total = 0;
        for (int j = 0; j < p; j++) total += a->recvcounts[j];
        return (coll_blocks_t){.n = total, .counts = a->recvcounts};
    }
    if (a->kind == SHMCOLL_KIND_REDUCE_SCATTER_BLOCK)
        return (coll_blocks_t){.n = a->count * (size_t)p, .per = a->count};
    return coll_blocks_equal(a->op, a->count, p);
}

/* Elements of block j. */
static inline size_t coll_block_len(const coll_blocks_t *blocks, int j) {
    if (blocks->counts) return blocks->counts[j];
    size_t lo = (size_t)j * blocks->per, hi = lo + blocks->per;
    lo = lo < blocks->n ? lo : blocks->n;
    hi = hi < blocks->n ? hi : blocks->n;
    return hi - lo;
}

/* coll_block, also for counted blocks without firsts (the offset then costs j additions). */
static inline void coll_block_at(const coll_blocks_t *blocks, int j, size_t *first, size_t *len) {
    if (!blocks->counts || blocks->firsts) {
        coll_block(blocks, j, first, len);
        return;
    }
    size_t sum = 0;
    for (int i = 0; i < j; i++) sum += blocks->counts[i];
    *first = sum;
    *len = blocks->counts[j];
}

/* The input of a reduction task, or a copy of it where it must be read aside: in place, a
 * reduce_scatter's input lies in the receive buffer that its results overwrite while later rounds
 * still read it (a member's result can overlap its input blocks at other offsets). The copy is
 * allocated by init (coll_aside_init: a failure is SHMCOLL_ERR_NO_MEMORY, which the engine
 * publishes to the others), made at the start of each run (coll_aside_copy) and freed by fini. */
typedef struct coll_aside {
    const char *input; /* sendbuf, recvbuf in place, or the copy */
    char *copy;        /* in-place reduce_scatter: the input's copy (malloc), else NULL */
    size_t span;       /* of the whole input */
} coll_aside_t;

static inline shmcoll_status_t coll_aside_init(shmcoll_task_t *task, coll_aside_t *in,
                                               size_t span) {
    in->input = coll_input(task);
    in->copy = NULL;
    in->span = span;
    if (coll_scatters(task) && !task->args->sendbuf) {
        in->copy = malloc(span ? span : 1);
        if (!in->copy) return SHMCOLL_ERR_NO_MEMORY;
        in->input = in->copy;
    }
    return SHMCOLL_OK;
}

static inline void coll_aside_copy(shmcoll_task_t *task, const coll_aside_t *in) {
    if (in->copy) coll_copy(task, in->copy, task->args->recvbuf, in->span);
}

/* ---- The movement-avoiding chain (reduce_ma.c; reduce_ma2.c runs it inside each socket) ---- */

/* What the one- and two-level chains share: the plan of the call and the stage in hand. It is the
 * first member of both algorithms' states (shmcoll_coll_ma_fini frees through it). */
typedef struct coll_ma {
    /* The plan. */
    coll_aside_t in;
    coll_blocks_t blocks;
    coll_result_t result;
    int wants_all;            /* copies every round's reduced slices out */
    int upstream, downstream; /* the chain's neighbours, set by the algorithm */
    size_t slice, rounds;     /* the algorithm counts the rounds */
    /* The run. */
    size_t round;
    int pc;        /* of shmcoll_coll_ma_chain */
    int k;         /* the stage */
    uint64_t step; /* the stage's */
} coll_ma_t;

/* init's part both chains share: NOT_SUPPORTED where they cannot serve the call (an op that does
 * not commute, an element larger than a buffer; reduce and allreduce: a team of one), else the
 * blocks of the kind, where the result goes, the slice, the working set and the input (set
 * aside in place: NO_MEMORY). */
shmcoll_status_t shmcoll_coll_ma_plan(shmcoll_task_t *task, coll_ma_t *ma);

/* Stage ma->k's slice: `n` elements of this member's input at `mine` for the block of the stage,
 * and where the stage writes (NULL: this member's buffer of the step). */
typedef void (*coll_ma_slice_fn)(shmcoll_task_t *task, const char **mine, size_t *n, void **out);

/* The chain of round ma->round: stages 0 .. stages-1, each on a step of its own. Stage k claims
 * its buffer (from all members for k <= 1, whose buffers the previous round's last stage and
 * results reused, else only from downstream, its one reader since), waits for upstream's post
 * of the step before (k > 0), then copies its input slice into its buffer (k = 0) or reduces it
 * with upstream's buffer of the previous stage and acknowledges that step, and posts. Resumable,
 * as collect_round; ma->pc zero before the first call. */
shmcoll_status_t shmcoll_coll_ma_chain(shmcoll_task_t *task, coll_ma_t *ma, int stages,
                                       coll_ma_slice_fn slice);

/* The fini of either chain: frees the input's copy. */
void shmcoll_coll_ma_fini(shmcoll_task_t *task);

#endif
