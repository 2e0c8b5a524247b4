/* The registry: one row per algorithm. supports() says which calls it can serve (deciding only
 * from shared values, see registry.h); cost() models its time. The algorithms themselves live in
 * coll/; each row's comment gives its DAV (total over members, s = message bytes) and
 * synchronisations, which is what cost() is built from. */
#include "select/registry.h"
#include "coll/coll.h"
#include "coll/coll_internal.h"
#include "coll/heap.h"
#include "patterns/knomial.h"
#include "select/cost.h"

#include <math.h>
#include <string.h>

static int always(const shmcoll_select_args_t *args, const shmcoll_select_team_t *team) {
    return 1;
}

/* Forms across nodes: a node team never runs them. */
static int never(const shmcoll_select_args_t *args, const shmcoll_select_team_t *team) {
    return 0;
}

/* ---- barrier ---- */

/* Every member posts, then reads all p flags: one synchronisation, p lines read each. */
static double barrier_flat_cost(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    return shmcoll_cost_sync_all(t);
}

/* Root-first: the flat barrier and, for members that find rank 0 there before them, rank 0's
 * release. Modelled at its worst, so the model never takes it: calibration does, where it lets a
 * rooted call after the barrier find rank 0 out first (mpi/calibrate.c, choose). */
static double barrier_root_first_cost(const shmcoll_select_args_t *a,
                                      const shmcoll_select_team_t *t) {
    return shmcoll_cost_sync_all(t) + shmcoll_cost_sync(t);
}

/* Dissemination: ceil(log2 p) rounds, each waiting for one partner. */
static double barrier_dissem_cost(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    return ceil(log2(t->size > 1 ? t->size : 1)) * shmcoll_cost_sync(t);
}

/* k-nomial, k = 4: arrive up the tree, release down it: 2 x height hops. */
#define BARRIER_K 4
static double barrier_knomial_cost(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    return 2.0 * shmcoll_pattern_knomial_height(t->size, BARRIER_K) * shmcoll_cost_sync(t);
}

/* Hierarchical: up the reduction hierarchy, down the bcast hierarchy; each level's wait is for
 * its group only. */
static int barrier_hier_supports(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    return t->bcast_levels > 1 && t->reduce_levels > 1;
}

static double barrier_hier_cost(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    return (t->reduce_levels + t->bcast_levels + 2) * shmcoll_cost_sync(t);
}

/* Single copy where the team may use cross-memory attach and the blocks reach SHMCOLL_CMA_MIN:
 * bcast (below), gather and scatter always (the root's p-1 copies spread over the others: 1.5-2x
 * faster than the slot pipeline at p = 2), allgather and alltoall (not in place) up to
 * SHMCOLL_CMA_MAX (unbounded by default) unless SHMCOLL_CMA=all. Single copy moves each block once
 * (DAV 2 bytes per byte, as the MPI library's rendezvous), the pipelines twice (DAV 4) but with one
 * side in cache: which is faster for buffers in memory depends on the machine's state (the kernel's
 * page-by-page copy ran at 0.4-0.6 of a user-space copy on some days here and kept up on
 * others), so the MPI layer measures both where both serve (mpi/calibrate.h). */
static int rooted_single_supports(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    return t->cma != SHMCOLL_CMA_OFF && a->bytes >= t->cma_min;
}

/* ---- bcast ---- */

static double max2(double a, double b) {
    return a > b ? a : b;
}

/* Root copies s in, every other member copies s out: DAV 2s + 2s(p-1); one sync per chunk; all
 * p-1 readers read the root's buffer. */
static double bcast_pipeline_cost(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    double s = (double)a->bytes;
    return shmcoll_cost_chunks(a->bytes, t->chunk) * shmcoll_cost_sync(t) +
           max2(shmcoll_cost_bytes(4 * s), shmcoll_cost_source(s, t->size - 1)) *
               shmcoll_cost_spread(t->bcast_levels);
}

/* k-nomial tree, k = 4: DAV 2s(p + I) (I interior members); chunks + height syncs, each member
 * waits for its parent only; a member's buffer has at most (k-1) x height readers. */
#define BCAST_K 4
static double bcast_knomial_cost(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    double s = (double)a->bytes;
    int h = shmcoll_pattern_knomial_height(t->size, BCAST_K);
    return (shmcoll_cost_chunks(a->bytes, t->chunk) + h) * shmcoll_cost_sync(t) +
           max2(shmcoll_cost_bytes(4 * s), shmcoll_cost_source(s, (BCAST_K - 1) * h)) *
               shmcoll_cost_spread(t->bcast_levels);
}

/* Single copy: the root exposes its buffer, every other member reads it with one system call:
 * DAV 2s(p-1), two synchronisations; all p-1 readers read the root's buffer. Where the team may
 * use cross-memory attach, from SHMCOLL_CMA_MIN. The model prefers the pipeline (the kernel's
 * copy is slower than ours per byte), but which is faster depends on the machine's state, so the
 * MPI layer measures both (mpi/calibrate.h) and, without a verdict, takes single copy
 * (calibrate.c, unmeasured_row). p = 2, MPICH 4.0.2, the pipeline against single copy
 * in one run: 256 KiB 29 against 20 us (the MPI library 21), 2 MiB 208 against 161 (169);
 * 32 KiB 3.7 against 3.9-4.2 (4.7). */
static double bcast_single_cost(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    double s = (double)a->bytes;
    return 2 * shmcoll_cost_sync(t) +
           max2(shmcoll_cost_cma(s), shmcoll_cost_source(s, t->size - 1)) *
               shmcoll_cost_spread(t->bcast_levels);
}

/* Hierarchical (XHC): data crosses each NUMA/socket boundary once; chunks + levels syncs; a
 * leader's buffer has its group as readers. Only where the hierarchy has several levels. */
static int bcast_hier_supports(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    return t->bcast_levels > 1;
}

static double bcast_hier_cost(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    double s = (double)a->bytes;
    return (shmcoll_cost_chunks(a->bytes, t->chunk) + t->bcast_levels) * shmcoll_cost_sync(t) +
           max2(shmcoll_cost_bytes(4 * s), shmcoll_cost_source(s, t->bcast_max_group - 1));
}

/* ---- reduce and allreduce ---- */

static int fits_chunk(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    return a->extent <= t->chunk;
}

/* One sync; each member that needs the result folds all p inputs: DAV per such member
 * 2s + 3s(p-1). Only when the message fits one buffer. */
static int flat_supports(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    return a->bytes <= t->chunk;
}

static double flat_cost(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    double s = (double)a->bytes;
    return shmcoll_cost_sync_all(t) + shmcoll_cost_bytes(2 * s + 3 * s * (t->size - 1)) *
                                          shmcoll_cost_spread(t->reduce_levels);
}

/* Two syncs per chunk. DAV s(7p-3) for allreduce, s(5p-1) for reduce; the busiest member (any
 * for allreduce, the root for reduce) moves s(7p-3)/p: copy in 2s, its part of the fold, copy
 * out 2s. */
static double split_cost(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    double s = (double)a->bytes, p = t->size;
    return 2 * shmcoll_cost_chunks(a->bytes, t->chunk) * shmcoll_cost_sync_all(t) +
           shmcoll_cost_bytes(s * (7 * p - 3) / p) * shmcoll_cost_spread(t->reduce_levels);
}

/* Movement-avoiding: p point-to-point stages + 1 wait for all per round of p slices. DAV s(5p-1)
 * for allreduce, s(3p+1) for reduce; the busiest member moves s(5p-1)/p: its share of the chain (2s
 * + 3s(p-1))/p plus copying out 2s. Commutative ops only. */
static int ma_supports(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    return a->commutative && t->size > 1 && fits_chunk(a, t);
}

static double ma_cost(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    double s = (double)a->bytes, p = t->size;
    double rounds = shmcoll_cost_chunks(a->bytes, t->chunk * (size_t)t->size);
    double per_member =
        a->kind == SHMCOLL_KIND_ALLREDUCE ? s * (5 * p - 1) / p : s * (3 * p - 1) / p + 2 * s;
    return rounds * (p + 1) * shmcoll_cost_sync(t) + shmcoll_cost_bytes(per_member);
}

/* Socket-aware two-level MA: a round takes one slice of each of the n = p/m positions through n
 * stages inside each socket, then step 2 and the copy-out across sockets; DAV s(5p+2m-3) for
 * allreduce, s(3p+2m-1) for reduce. Commutative ops, teams on m >= 2 sockets of equal size. With
 * one sync cost for all hops the model prefers one-level MA; SHMCOLL_TUNE picks this one where
 * measurements on a multi-socket machine say so. */
static int ma2_supports(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    return a->commutative && t->socket_groups >= 2 && fits_chunk(a, t);
}

static double ma2_cost(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    double s = (double)a->bytes, p = t->size, m = t->socket_groups, n = p / m;
    double rounds = shmcoll_cost_chunks(a->bytes, t->chunk * (size_t)n);
    double per_member = a->kind == SHMCOLL_KIND_ALLREDUCE ? s * (5 * p + 2 * m - 3) / p
                                                          : s * (3 * p + 2 * m - 3) / p + 2 * s;
    return rounds * (n + 2) * shmcoll_cost_sync(t) + shmcoll_cost_bytes(per_member);
}

/* Binomial tree (k = 2): DAV 3s(p-1) + 2sL (L leaves); chunks + height syncs, each waiting for
 * its children; the busiest member folds k-1 children. Rank order kept for non-commutative ops. */
#define REDUCE_K 2
static double reduce_knomial_cost(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    double s = (double)a->bytes;
    int h = shmcoll_pattern_knomial_height(t->size, REDUCE_K);
    return (shmcoll_cost_chunks(a->bytes, t->chunk) + h) * shmcoll_cost_sync(t) +
           shmcoll_cost_bytes((3.0 * (REDUCE_K - 1) * h + 4) * s) *
               shmcoll_cost_spread(t->reduce_levels);
}

/* Hierarchical (XHC): group members each fold a part, level by level; chunks + levels + 1 syncs
 * (+ height for allreduce); DAV s(5p-1) for reduce, s(7p-3+2g) for allreduce. Non-commutative
 * ops only where every level groups contiguous ranks. */
static int reduce_hier_supports(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    return t->reduce_levels > 1 && (a->commutative || t->reduce_contiguous) && fits_chunk(a, t);
}

static double reduce_hier_cost(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    double s = (double)a->bytes, p = t->size;
    double syncs = shmcoll_cost_chunks(a->bytes, t->chunk) + 2.0 * t->reduce_levels + 1;
    return syncs * shmcoll_cost_sync(t) + shmcoll_cost_bytes(s * (7 * p - 3) / p);
}

/* Multi-radix recursive exchange (Jocksch et al. 2.1): reduce-scatter then allgather over the
 * radices of p; about 2 log2(p) syncs per round; DAV about s(7p-5) at most. Any op. */
static int multiradix_supports(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    return t->size > 1 && fits_chunk(a, t);
}

static double multiradix_cost(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    double s = (double)a->bytes, p = t->size;
    double steps = 2 * ceil(log2(p));
    return steps * shmcoll_cost_chunks(a->bytes, t->chunk) * shmcoll_cost_sync(t) +
           shmcoll_cost_bytes(s * (7 * p - 5) / p) * shmcoll_cost_spread(t->reduce_levels);
}

/* Cyclic shift (Jocksch et al. 2.2): the same shape for any p, primes included; commutative. */
static int cyclic_supports(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    return a->commutative && multiradix_supports(a, t);
}

/* ---- reduce_scatter and reduce_scatter_block ---- */

/* One step for small messages: p x input bytes read by the members together stay this small. */
#define REDUCE_SCATTER_FLAT_MAX_TOTAL (32 * 1024)

static int reduce_scatter_flat_supports(const shmcoll_select_args_t *a,
                                        const shmcoll_select_team_t *t) {
    return a->bytes <= t->chunk && a->bytes * (size_t)t->size <= REDUCE_SCATTER_FLAT_MAX_TOTAL;
}

static int reduce_scatter_ma_supports(const shmcoll_select_args_t *a,
                                      const shmcoll_select_team_t *t) {
    return a->commutative && t->size > 1 && fits_chunk(a, t);
}

/* ---- data movement ---- */

static int all_single_supports(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    return rooted_single_supports(a, t) && (t->cma == SHMCOLL_CMA_ALL || a->bytes <= t->cma_max);
}

static int alltoall_single_supports(const shmcoll_select_args_t *a,
                                    const shmcoll_select_team_t *t) {
    return !a->in_place && all_single_supports(a, t);
}

/* Gatherv and scatterv in one step, without agreeing on the longest block first: when single
 * copy serves the blocks from SHMCOLL_CMA_MIN up and the smaller ones fit the slot (gatherv: a
 * chunk; scatterv: the root's piece of a chunk per member), each block's way follows from its own
 * size, which both its ends know. Small gathervs were twice as slow with the agreement step. */
static int gatherv_one_step_supports(const shmcoll_select_args_t *a,
                                     const shmcoll_select_team_t *t) {
    return t->cma != SHMCOLL_CMA_OFF && t->cma_min <= t->chunk;
}

static int scatterv_one_step_supports(const shmcoll_select_args_t *a,
                                      const shmcoll_select_team_t *t) {
    return t->cma != SHMCOLL_CMA_OFF && t->cma_min <= coll_piece_per_member(t->chunk, t->size);
}

/* Alltoallv in one step on the same terms as scatterv's (the sender and the reader of each block
 * both know its size; the short ones fit a piece of their sender's slot), not in place, and
 * where SHMCOLL_CMA_MAX bounds no block (by default it does not): blocks longer than a piece
 * have no other way in one step. */
static int alltoallv_one_step_supports(const shmcoll_select_args_t *a,
                                       const shmcoll_select_team_t *t) {
    return !a->in_place && scatterv_one_step_supports(a, t) &&
           (t->cma == SHMCOLL_CMA_ALL || t->cma_max >= SHMCOLL_CMA_MAX_UNBOUNDED);
}

/* ---- shared heaps ---- */

/* The heap rows (coll/heap.h): where the members may map each other's heaps, from
 * SHMCOLL_HEAP_MIN bytes, every call first agrees in one step whether all its buffers lie in
 * heaps, then moves each block once (DAV 2 bytes per byte moved; reductions read their inputs in
 * place: 3s(p-1), allreduce s(5p-5)), else runs the row the selector picks without them, in the
 * same task. No cost model: preferred where they apply, after the single-copy rows (which map
 * heap buffers themselves, without an agreement step). */
static int heap_supports(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    return t->heap && a->bytes >= t->heap_min;
}

/* bcast, reduce and allreduce stream ordinary buffers through a pipeline whose root (or chain)
 * runs a chunk ahead into the next call; the agreement step in front of every call takes that
 * away: a bcast of 256 KiB took 16 us instead of 10, of 4 MiB 183 instead of 172, an allreduce of
 * 256 KiB 21.5 instead of 19.3. From SHMCOLL_HEAP_CHUNKS chunks (16: 4 MiB at the default chunk)
 * the cost is a few percent, against single copies 2-6 times faster on heap buffers. */
static int heap_pipelined_supports(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    return heap_supports(a, t) && a->bytes >= (size_t)t->heap_chunks * t->chunk;
}

static int heap_alltoall_supports(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    return !a->in_place && heap_supports(a, t);
}

/* Reductions fold through two halves of a slot; reduce_scatter's result would overwrite inputs
 * still being read when in place. */
static int heap_reduce_supports(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    const int scatters =
        a->kind == SHMCOLL_KIND_REDUCE_SCATTER || a->kind == SHMCOLL_KIND_REDUCE_SCATTER_BLOCK;
    return (scatters ? heap_supports(a, t) : heap_pipelined_supports(a, t)) &&
           a->extent <= t->chunk / 2 && !(scatters && a->in_place);
}

/* Single-copy reductions: the heap rows' fold (coll/heap_reduce.c) on ordinary buffers, each
 * peer's input read with cross-memory attach into the member's slot piece by piece, and the
 * result written into the root's buffer (reduce) or read from its owner's (allreduce) alike.
 * DAV 5s(p-1) + 2s(p-1)/p for reduce (each member copies p-1 pieces of s/p in and folds them;
 * the others write their block into the root), 7s(p-1) for allreduce (each then copies the p-1
 * other blocks from their owners): 6s and 7s at p = 2 against the movement-avoiding chain's
 * s(3p+1) and s(5p-1), 7s and 9s. And every input is read where the application left it, in
 * memory, where the chain reads every slice from a slot a peer has just written,
 * through the other core's cache: where a cache line takes 550-750 ns between the cores instead
 * of 140, a 2 MiB reduce by the chain took 1000 us against the MPI library's 270-400 (Open MPI,
 * p = 2). From the single-copy rows' size; reduce's measured against the others
 * (mpi/calibrate.c), allreduce's for tuning. */
static int reduce_single_supports(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    return rooted_single_supports(a, t) && a->extent <= t->chunk / 2;
}

/* Never the model's choice: against the chain its speed follows the machine's state, which only a
 * measurement sees (with 4 KiB chunks a model of its bytes and system calls beat the chain's
 * rounds and took every reduction on ordinary buffers). */
static double reduce_single_cost(const shmcoll_select_args_t *a, const shmcoll_select_team_t *t) {
    (void)a;
    (void)t;
    return 1e30;
}

#define HEAP_ROW(kinds, supports, description)                                                     \
    { kinds, "heap", description, supports, NULL, &shmcoll_coll_heap_ops, {.wraps = 1}, 0 }

#define KINDS2(a, b) (SHMCOLL_KIND_BIT(SHMCOLL_KIND_##a) | SHMCOLL_KIND_BIT(SHMCOLL_KIND_##b))
#define KIND(a)      SHMCOLL_KIND_BIT(SHMCOLL_KIND_##a)

static const shmcoll_algo_t registry[] = {
    {KIND(BARRIER),
     "flat",
     "every member posts a flag and reads all others'",
     always,
     barrier_flat_cost,
     &shmcoll_coll_barrier_flat_ops,
     {0},
     0},
    {KIND(BARRIER),
     "root-first",
     "every member posts a flag; rank 0 leaves once all have, the others after it if it came first",
     always,
     barrier_root_first_cost,
     &shmcoll_coll_barrier_root_first_ops,
     {0},
     0},
    {KIND(BARRIER),
     "dissem",
     "dissemination: ceil(log2 p) rounds of partner flags",
     always,
     barrier_dissem_cost,
     &shmcoll_coll_barrier_dissem_ops,
     {0},
     0},
    {KIND(BARRIER),
     "knomial",
     "4-nomial tree: arrive up, release down",
     always,
     barrier_knomial_cost,
     &shmcoll_coll_barrier_knomial_ops,
     {.radix = BARRIER_K},
     0},
    {KIND(BARRIER),
     "hier",
     "topology hierarchy: arrive up, release down",
     barrier_hier_supports,
     barrier_hier_cost,
     &shmcoll_coll_barrier_hier_ops,
     {0},
     0},
    HEAP_ROW(KIND(BCAST), heap_pipelined_supports,
             "buffers in shared heaps: members read the root's buffer, the root writes a share"),
    {KIND(BCAST),
     "pipeline",
     "root streams chunks through its double-buffered slots, members copy out (inline <= 64 B, "
     "an eager slot <= chunk/32)",
     always,
     bcast_pipeline_cost,
     &shmcoll_coll_bcast_pipeline_ops,
     {0},
     0},
    {KIND(BCAST),
     "knomial",
     "4-nomial tree, pipelined in chunks",
     always,
     bcast_knomial_cost,
     &shmcoll_coll_bcast_knomial_ops,
     {.radix = BCAST_K},
     0},
    {KIND(BCAST),
     "hier",
     "topology hierarchy (XHC): one crossing per NUMA/socket group",
     bcast_hier_supports,
     bcast_hier_cost,
     &shmcoll_coll_bcast_hier_ops,
     {0},
     0},
    {KIND(BCAST),
     "single-copy",
     "members read the root's buffer directly (cross-memory attach), one system call each",
     rooted_single_supports,
     bcast_single_cost,
     &shmcoll_coll_bcast_single_ops,
     {0},
     0},
    HEAP_ROW(KINDS2(REDUCE, ALLREDUCE) | KINDS2(REDUCE_SCATTER, REDUCE_SCATTER_BLOCK),
             heap_reduce_supports,
             "buffers in shared heaps: member j folds block j straight from all inputs"),
    {KINDS2(REDUCE, ALLREDUCE),
     "single-copy",
     "member j folds block j from the others' inputs read by cross-memory attach",
     reduce_single_supports,
     reduce_single_cost,
     &shmcoll_coll_heap_ops,
     {.attach = 1},
     0},
    {KINDS2(REDUCE, ALLREDUCE),
     "flat",
     "one sync: all copy in, who needs the result folds all",
     flat_supports,
     flat_cost,
     &shmcoll_coll_reduce_flat_ops,
     {0},
     0},
    {KINDS2(REDUCE, ALLREDUCE),
     "ma",
     "movement-avoiding chain reduce-scatter (YHCCL) + copy-out, commutative ops",
     ma_supports,
     ma_cost,
     &shmcoll_coll_reduce_ma_ops,
     {0},
     0},
    {KINDS2(REDUCE, ALLREDUCE),
     "ma2",
     "socket-aware two-level movement-avoiding reduction (YHCCL)",
     ma2_supports,
     ma2_cost,
     &shmcoll_coll_reduce_ma2_ops,
     {0},
     0},
    {KINDS2(REDUCE, ALLREDUCE),
     "split",
     "copy in, member j folds part j in rank order, who needs the result copies out",
     fits_chunk,
     split_cost,
     &shmcoll_coll_reduce_split_ops,
     {0},
     0},
    {KIND(REDUCE),
     "knomial",
     "binomial tree in rank order, pipelined in chunks",
     fits_chunk,
     reduce_knomial_cost,
     &shmcoll_coll_reduce_knomial_ops,
     {.radix = REDUCE_K},
     0},
    {KINDS2(REDUCE, ALLREDUCE),
     "hier",
     "topology hierarchy (XHC): groups fold parts level by level (allreduce: bcast down)",
     reduce_hier_supports,
     reduce_hier_cost,
     &shmcoll_coll_reduce_hier_ops,
     {0},
     0},
    {KIND(ALLREDUCE),
     "recexch",
     "multi-radix recursive exchange (Jocksch et al.), any op",
     multiradix_supports,
     multiradix_cost,
     &shmcoll_coll_allreduce_recexch_ops,
     {0},
     0},
    {KIND(ALLREDUCE),
     "cyclic",
     "multi-radix cyclic shift (Jocksch et al.), commutative",
     cyclic_supports,
     multiradix_cost,
     &shmcoll_coll_allreduce_cyclic_ops,
     {0},
     0},
    {KINDS2(REDUCE_SCATTER, REDUCE_SCATTER_BLOCK),
     "flat",
     "one step: all copy in, member j folds block j of all slots",
     reduce_scatter_flat_supports,
     NULL,
     &shmcoll_coll_reduce_flat_ops,
     {0},
     0},
    {KINDS2(REDUCE_SCATTER, REDUCE_SCATTER_BLOCK),
     "ma",
     "movement-avoiding chain (YHCCL), each block finished in its owner's receive buffer",
     reduce_scatter_ma_supports,
     NULL,
     &shmcoll_coll_reduce_ma_ops,
     {0},
     0},
    {KINDS2(REDUCE_SCATTER, REDUCE_SCATTER_BLOCK),
     "canonical",
     "per round: all copy one piece of every block in, member j folds block j in rank order",
     always,
     NULL,
     &shmcoll_coll_reduce_scatter_canonical_ops,
     {0},
     0},
    {KINDS2(SCAN, EXSCAN),
     "flat",
     "per chunk: all copy in, member r folds members 0..r (0..r-1) in rank order",
     always,
     NULL,
     &shmcoll_coll_scan_flat_ops,
     {0},
     0},
    {KINDS2(ALLGATHER, ALLGATHERV),
     "single-copy",
     "every member reads every other's block from its buffer (cross-memory attach)",
     all_single_supports,
     NULL,
     &shmcoll_coll_allgather_single_ops,
     {0},
     0},
    HEAP_ROW(KINDS2(ALLGATHER, ALLGATHERV), heap_supports,
             "buffers in shared heaps: each block read once, written into every buffer"),
    {KINDS2(ALLGATHER, ALLGATHERV),
     "pipeline",
     "per round: copy own piece in, copy the others' out from the right-hand neighbour on",
     always,
     NULL,
     &shmcoll_coll_allgather_pipeline_ops,
     {0},
     0},
    {KIND(GATHER),
     "single-copy",
     "senders write their blocks into the root's buffer",
     rooted_single_supports,
     NULL,
     &shmcoll_coll_rooted_single_ops,
     {0},
     0},
    {KIND(GATHERV),
     "one-step",
     "long blocks written into the root's buffer, short ones through slots, in one step",
     gatherv_one_step_supports,
     NULL,
     &shmcoll_coll_rooted_single_ops,
     {0},
     0},
    HEAP_ROW(KIND(GATHER), heap_supports,
             "buffers in shared heaps: members write their blocks into the root's buffer"),
    {KIND(GATHER),
     "pipeline",
     "senders copy pieces in, the root copies them out",
     always,
     NULL,
     &shmcoll_coll_rooted_pipeline_ops,
     {0},
     0},
    {KIND(SCATTER),
     "single-copy",
     "members read their blocks from the root's buffer",
     rooted_single_supports,
     NULL,
     &shmcoll_coll_rooted_single_ops,
     {0},
     0},
    {KIND(SCATTERV),
     "one-step",
     "long blocks read from the root's buffer, short ones from its slot, in one step",
     scatterv_one_step_supports,
     NULL,
     &shmcoll_coll_rooted_single_ops,
     {0},
     0},
    HEAP_ROW(KIND(SCATTER), heap_supports,
             "buffers in shared heaps: members read their blocks from the root's buffer"),
    {KIND(SCATTER),
     "pipeline",
     "the root fills one piece per member, members copy theirs out",
     always,
     NULL,
     &shmcoll_coll_rooted_pipeline_ops,
     {0},
     0},
    /* One row for both v-variants, after the one-step row of each (rows without a cost are
     * preferred in this order). */
    {KINDS2(GATHERV, SCATTERV),
     "pipeline",
     "agree on the longest block, then single-copy or the slot pipeline",
     always,
     NULL,
     &shmcoll_coll_rooted_pipeline_ops,
     {0},
     0},
    {KIND(ALLTOALL),
     "single-copy",
     "every member reads its blocks from the others' buffers",
     alltoall_single_supports,
     NULL,
     &shmcoll_coll_alltoall_single_ops,
     {0},
     0},
    HEAP_ROW(KIND(ALLTOALL), heap_alltoall_supports,
             "buffers in shared heaps: each block read from its sender's buffer once"),
    {KIND(ALLTOALL),
     "rotated",
     "per round: fill one piece per destination, collect from r+1, r+2, ... (KNEM-coll)",
     always,
     NULL,
     &shmcoll_coll_alltoall_rotated_ops,
     {0},
     0},
    {KIND(ALLTOALLV),
     "one-step",
     "long blocks read from their senders' buffers, short ones from their slots, in one step",
     alltoallv_one_step_supports,
     NULL,
     &shmcoll_coll_alltoallv_one_step_ops,
     {0},
     0},
    {KIND(ALLTOALLV),
     "rotated",
     "agree on the longest block, then single-copy or the rotated slot pipeline",
     always,
     NULL,
     &shmcoll_coll_alltoall_rotated_ops,
     {0},
     0},
    /* Forms of allreduce across nodes (group/allreduce_plan.h, numbered from 1 in its order):
     * not a node team's, so never the selector's choice there; a tuning rule for communicators
     * across nodes may choose one, else the plan's own rule decides. */
    {KIND(ALLREDUCE),
     "one-leader",
     "across nodes: node reduce, the nodes' first ranks allreduce the whole vector, node bcast",
     never,
     NULL,
     NULL,
     {0},
     1},
    {KIND(ALLREDUCE),
     "shares",
     "across nodes: node reduce-scatter, each of L leaders allreduces its 1/L, node allgather",
     never,
     NULL,
     NULL,
     {0},
     2},
    {KIND(ALLREDUCE),
     "segments",
     "across nodes: the same in segments, node phases pipelined with the network steps",
     never,
     NULL,
     NULL,
     {0},
     3},
    /* The MPI library's own algorithm, for every kind: no task of ours (ops NULL), never the
     * model's choice; a tuning rule chooses it where the library was measured faster, and the
     * call then goes to PMPI_* on every member alike. */
    {(1u << SHMCOLL_KIND_COUNT) - 1,
     "mpi",
     "the MPI library's own algorithm (PMPI_*)",
     always,
     NULL,
     NULL,
     {0},
     0},
};

const shmcoll_algo_t *shmcoll_algo_at(int index) {
    return index >= 0 && index < (int)(sizeof registry / sizeof registry[0]) ? &registry[index]
                                                                             : NULL;
}

const shmcoll_algo_t *shmcoll_algo_find(shmcoll_coll_kind_t kind, const char *name) {
    for (const shmcoll_algo_t *a = registry; a < registry + sizeof registry / sizeof registry[0];
         a++)
        if (shmcoll_algo_serves(a, kind) && !strcmp(a->name, name)) return a;
    return NULL;
}
