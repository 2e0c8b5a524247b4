/* Helpers shared by the algorithms of coll/: entering and leaving a collective, and the copy and
 * reduce primitives that count the bytes they load and store (DAV, the data-access volume of the
 * YHCCL paper: a copy of n bytes costs 2n, out = a op b over n bytes costs 3n). */
#ifndef SHMCOLL_COLL_INTERNAL_H
#define SHMCOLL_COLL_INTERNAL_H

#include "core/reduce_op.h"
#include "core/team.h"
#include "kernels/kernels.h"
#include "kernels/nt_policy.h"

#include <stdio.h>

/* Reduction algorithms serve reduce (result at `root`) and allreduce (root = COLL_ALL). */
#define COLL_ALL (-1)

static inline shmcoll_status_t coll_begin(shmcoll_team_t *team, const char *op) {
    if (team->failed) return team->failed; /* the message of the first failure stays */
    team->channel.waiter.op = op;
    team->channel.waiter.progress = team->progress;
    team->channel.waiter.progress_ctx = team->progress_ctx;
    team->working_set = 0;
    return SHMCOLL_OK;
}

/* The algorithm's working set W for this call (YHCCL Algorithms 2-4), which the copies below
 * consult: the send and receive bytes it touches (`own`) plus the shared buffers in flight while
 * each member stages `staged` bytes through its slots — those bytes, at most both parities, on
 * every member. Every member derives both from values all share, so all choose their copies
 * alike. */
static inline void coll_declare_working_set(shmcoll_team_t *team, size_t own, size_t staged) {
    const size_t both_parities = 2 * team->channel.chunk;
    team->working_set =
        own + (size_t)team->size * (staged < both_parities ? staged : both_parities);
}

/* A failure (not NOT_SUPPORTED) leaves the team in an unknown protocol state: make it sticky. */
static inline shmcoll_status_t coll_end(shmcoll_team_t *team, shmcoll_status_t status,
                                        const char *algo) {
    if (status == SHMCOLL_OK)
        team->last_algo = algo;
    else if (status != SHMCOLL_ERR_NOT_SUPPORTED)
        team->failed = status;
    return status;
}

/* A temporal copy. When the declared working set is well beyond what the core's own caches
 * hold (team->memory_copy_min), one side of the copy at least comes from or goes to memory: the
 * memory loop then keeps more misses in flight (kernels.h); otherwise the plain loop, faster
 * for cached buffers. */
static inline void coll_copy(shmcoll_team_t *team, void *dst, const void *src, size_t bytes) {
    if (!bytes || dst == src) return;
    if (team->working_set > team->memory_copy_min)
        shmcoll_kernel_copy_memory(dst, src, bytes);
    else
        shmcoll_kernel_copy(dst, src, bytes);
    team->dav += 2 * bytes;
}

/* A copy into a destination the caller will not read again soon (a receive buffer being filled
 * for the application): streaming stores when the declared working set exceeds the usable cache,
 * so the copy neither evicts the shared buffers still in use nor pays for reading lines it
 * overwrites (YHCCL Algorithm 1); else a temporal copy as above. */
static inline void coll_copy_out(shmcoll_team_t *team, void *dst, const void *src, size_t bytes) {
    if (!bytes || dst == src) return;
    if (shmcoll_kernel_nt_wanted(team->working_set, 0, team->usable_cache, team->bandwidth_bound)) {
        shmcoll_kernel_copy_nt(dst, src, bytes);
        team->dav += 2 * bytes;
    } else {
        coll_copy(team, dst, src, bytes);
    }
}

/* out = a op b over n elements; out may alias a or b exactly. A user function only has the
 * shape inout = in op inout, so out == a is served as b op a: callers alias a only for
 * commutative ops. */
static inline void coll_reduce(shmcoll_team_t *team, const shmcoll_reduce_op_t *op, const void *a,
                               const void *b, void *out, size_t n) {
    if (!n) return;
    if (op->kernel) {
        op->kernel(a, b, out, n);
    } else if (out == a) {
        op->user_fn(b, out, n, op->user_ctx);
    } else {
        coll_copy(team, out, b, shmcoll_reduce_op_span(op, n));
        op->user_fn(a, out, n, op->user_ctx);
    }
    team->dav += 3 * n * op->size;
}

/* Where member r's contribution of `step` sits: the inline area for tiny payloads, else its
 * data buffer. */
static inline const void *coll_slot(const shmcoll_channel_t *ch, int r, uint64_t step,
                                    int use_inline) {
    return use_inline ? shmcoll_channel_inline(ch, r, step) : shmcoll_channel_buffer(ch, r, step);
}

/* out = x0 op x1 op ... op x(m-1) over the first m members (m >= 1), where xr is n elements at
 * byte `offset` of member r's slot of `step`. Folded from the right (x(m-2) op x(m-1) first),
 * which is the canonical rank order for non-commutative ops given MPI's in/inout function shape,
 * and the same order on every member, so allreduce results are bitwise identical everywhere. */
static inline void coll_fold_first(shmcoll_team_t *team, const shmcoll_reduce_op_t *op,
                                   uint64_t step, int use_inline, size_t offset, size_t n, int m,
                                   void *out) {
    const shmcoll_channel_t *ch = &team->channel;
    const char *last = (const char *)coll_slot(ch, m - 1, step, use_inline) + offset;
    if (m == 1) {
        coll_copy(team, out, last, shmcoll_reduce_op_span(op, n));
        return;
    }
    const char *prev = (const char *)coll_slot(ch, m - 2, step, use_inline) + offset;
    coll_reduce(team, op, prev, last, out, n);
    for (int r = m - 3; r >= 0; r--)
        coll_reduce(team, op, (const char *)coll_slot(ch, r, step, use_inline) + offset, out, out,
                    n);
}

/* The fold over all members. */
static inline void coll_fold_slots(shmcoll_team_t *team, const shmcoll_reduce_op_t *op,
                                   uint64_t step, int use_inline, size_t offset, size_t n,
                                   void *out) {
    coll_fold_first(team, op, step, use_inline, offset, n, team->channel.size, out);
}

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

static inline size_t coll_div_ceil(size_t a, size_t b) {
    return (a + b - 1) / b;
}

/* Per-destination piece of a buffer shared by p destinations: cache-line multiples when they
 * fit, so destinations never share a line. */
static inline size_t coll_piece_per_member(size_t chunk, int p) {
    size_t piece = chunk / (size_t)p;
    return piece >= 64 ? piece & ~(size_t)63 : (piece ? piece : 1);
}

/* Copies piece `round` of every other member's block (bytes at `slot_offset` of its slot of
 * `step`) to recvbuf at the block's displacement, starting with the right-hand neighbour. */
shmcoll_status_t shmcoll_coll_collect_round(shmcoll_team_t *team, uint64_t step, int use_inline,
                                            size_t slot_offset, const coll_bytes_t *blocks,
                                            size_t round, size_t piece, char *recvbuf);

/* ---- Single-copy variants (coll/single_copy.c) ------------------------------------------ */

/* Whether blocks of up to `longest` bytes move single-copy. The team must be able to (every pair
 * passed the probe at setup) and the blocks long enough to pay for a system call each. Then
 * gather and scatter (`rooted`) always do: single copies spread the root's p-1 copies over the
 * others. Allgather and alltoall do with SHMCOLL_CMA=all, else up to SHMCOLL_CMA_MAX: for larger
 * blocks, whose buffers come from memory, the kernel's copy (which pins the other process's
 * pages one by one) was slower than the slot pipeline, whose copies hit cache on one side. Every
 * member passes the same values, so all choose alike. */
static inline int coll_single_copy(const shmcoll_team_t *team, int rooted, size_t longest) {
    if (team->cma == SHMCOLL_CMA_OFF || longest < team->cma_min) return 0;
    return rooted || team->cma == SHMCOLL_CMA_ALL || longest <= team->cma_max;
}

/* Whether gatherv and scatterv can skip agreeing on their longest block: when every block that
 * does not move single-copy fits the `slot_bytes` its one step passes it through, each block's
 * way follows from its own size, known to the root and to the block's other end. */
static inline int coll_one_step(const shmcoll_team_t *team, size_t slot_bytes) {
    return team->cma != SHMCOLL_CMA_OFF && team->cma_min <= slot_bytes;
}

shmcoll_status_t shmcoll_coll_allgather_single(shmcoll_team_t *team, const char *mine,
                                               char *recvbuf, const coll_bytes_t *blocks);
/* Not in place: the blocks to send must not be overwritten while the others read them. */
shmcoll_status_t shmcoll_coll_alltoall_single(shmcoll_team_t *team, const char *sendbuf,
                                              const coll_bytes_t *out, char *recvbuf,
                                              const coll_bytes_t *in);
/* One step. Blocks of SHMCOLL_CMA_MIN bytes and more are written into the root's buffer
 * single-copy, smaller ones (only gatherv mixes the two) pass through their sender's slot in the
 * same step, so each must fit a chunk (cma_min <= chunk). Each block's way follows from its own
 * size, which its sender and the root both know: gatherv needs no agreement first. */
shmcoll_status_t shmcoll_coll_gather_single(shmcoll_team_t *team, const char *mine, size_t my_count,
                                            char *recvbuf, const coll_bytes_t *blocks, int root);
/* One step, as gather's: blocks of SHMCOLL_CMA_MIN bytes and more are read from the root's
 * exposed buffer single-copy, smaller ones (only scatterv mixes the two) from their piece of the
 * root's slot, so each must fit a piece (cma_min <= chunk / p, coll_piece_per_member). The root
 * waits for acknowledgements only when it exposed a block. */
shmcoll_status_t shmcoll_coll_scatter_single(shmcoll_team_t *team, const char *sendbuf,
                                             const coll_bytes_t *blocks, char *recvbuf,
                                             size_t my_count, int root);
shmcoll_status_t shmcoll_coll_bcast_single(shmcoll_team_t *team, void *buf, size_t bytes, int root);

/* One step in which `root` (or, with COLL_ALL, every member) publishes a number in its inline
 * area; returns the root's number, or the maximum over all members. Used by the v-variants, where
 * only some members know how many rounds the collective takes. */
shmcoll_status_t shmcoll_coll_agree_max(shmcoll_team_t *team, uint64_t mine, int root,
                                        uint64_t *result);

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

shmcoll_status_t shmcoll_coll_reduce_ma(shmcoll_team_t *team, const void *input, void *recvbuf,
                                        const shmcoll_reduce_op_t *op, const coll_blocks_t *blocks,
                                        coll_result_t result, int root);

/* Stage k of a movement-avoiding chain (reduce_ma.c): claim this member's buffer of `step` (from
 * all members for k <= 1, else only from `downstream`, its one reader since), then copy the own
 * input slice `mine` of n elements (k = 0) or reduce it with `upstream`'s buffer of the previous
 * stage, into `out` (NULL: this member's buffer of `step`), and post. */
shmcoll_status_t shmcoll_coll_ma_stage(shmcoll_team_t *team, const shmcoll_reduce_op_t *op, int k,
                                       uint64_t step, const char *mine, size_t n, void *out,
                                       int upstream, int downstream);

/* Socket-aware two-level MA (reduce_ma2.c): NOT_SUPPORTED unless the team spans several sockets
 * with the same number of members on each (and the op commutes). */
shmcoll_status_t shmcoll_coll_reduce_ma2(shmcoll_team_t *team, const void *input, void *recvbuf,
                                         const shmcoll_reduce_op_t *op, const coll_blocks_t *blocks,
                                         coll_result_t result, int root);

/* The number of socket groups reduce_ma2 would use, 0 when it cannot run on this team. */
int shmcoll_coll_ma2_groups(shmcoll_team_t *team);

shmcoll_status_t shmcoll_coll_reduce_flat(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                          size_t count, const shmcoll_reduce_op_t *op, int root);
shmcoll_status_t shmcoll_coll_reduce_split(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                           size_t count, const shmcoll_reduce_op_t *op, int root);

/* The same, with the blocks and result kind of reduce (root) or allreduce (root COLL_ALL). */
shmcoll_status_t shmcoll_coll_reduce_ma_run(shmcoll_team_t *team, const void *sendbuf,
                                            void *recvbuf, size_t count,
                                            const shmcoll_reduce_op_t *op, int root);

shmcoll_status_t shmcoll_coll_reduce_ma2_run(shmcoll_team_t *team, const void *sendbuf,
                                             void *recvbuf, size_t count,
                                             const shmcoll_reduce_op_t *op, int root);

shmcoll_status_t shmcoll_coll_barrier_flat(shmcoll_team_t *team);
shmcoll_status_t shmcoll_coll_bcast_pipeline(shmcoll_team_t *team, void *buf, size_t bytes,
                                             int root);

#endif
