/* When to use non-temporal (streaming) stores: YHCCL's adaptive copy (section 4.2, Algorithm 1).
 *
 * A store should bypass the cache only when two things hold: the stored data is not used again
 * soon (the collective's copy-out into the receive buffer, not its copy-in into shared memory
 * that the next step reads), and the collective's working set W (send, receive and shared
 * buffers it touches) exceeds the cache C it could use, so temporal stores would only evict
 * lines and pay read-for-ownership. Everything else is a temporal store.
 *
 * A third condition is this project's, from measurement: streaming stores save memory traffic,
 * not core time, so they pay only when the team's cores together can use up the bandwidth of a
 * memory domain, as in YHCCL's runs on every core of a node. A few cores are each limited by the
 * misses they can keep in flight; there a streaming store is slower than a temporal one (on a
 * 2-core Cascade Lake guest, writing 16 MiB from cache to memory takes 3.5 ms streaming and
 * 2.1 ms temporal per core, and every large collective was 8-20% slower streaming).
 *
 * The decision is a pure function of its arguments and of SHMCOLL_NT; the caller must derive
 * the arguments from values every rank shares (message size, team size, the topology) so that
 * all ranks decide alike — and decides per call: nothing here is sticky. */
#ifndef SHMCOLL_KERNELS_NT_POLICY_H
#define SHMCOLL_KERNELS_NT_POLICY_H

#include <stddef.h>

typedef enum shmcoll_nt_mode {
    SHMCOLL_NT_AUTO,   /* by working set and reuse (the default) */
    SHMCOLL_NT_ALWAYS, /* every store that asks the policy streams */
    SHMCOLL_NT_NEVER   /* no store streams */
} shmcoll_nt_mode_t;

/* The mode SHMCOLL_NT selects ("auto", "always", "never", any case); anything else is warned
 * about and read as auto. */
shmcoll_nt_mode_t shmcoll_kernel_nt_mode(void);

/* The most last-level cache a core is taken to have: above every processor we know of (AMD's
 * stacked-cache parts hold 12 MiB a core, Intel's Xeons 2-5 MiB). A topology that shows more (a
 * 2-vCPU guest sees its host's 260 MiB L3 "shared by 2 cores") shows the cache of a host whose
 * other cores and guests fill it too: there 16 MiB blocks of alltoall at p = 2, 128 MiB of
 * buffers in all, copy at memory speed (a memcpy per byte 1.8 times slower at 32 MiB than at 16),
 * yet counted as cached they kept temporal stores, which read every line before overwriting it.
 * Capped (p = 2, the library before and after alternated twice, shmcoll-bench --min-size 1M):
 * alltoall of 16 MiB blocks 1.10-1.25x the MPI library's time, from 0.95-1.01x (MPICH), and
 * 1.08-1.35x, from 0.94-1.03x (Open MPI); allgather 64 MiB 1.22-1.38x from 0.90-1.16x (MPICH),
 * 16 MiB 1.41-1.58x from 0.95-1.11x (Open MPI). */
#define SHMCOLL_LLC_PER_CORE_MAX ((size_t)16 << 20)

/* The cache a working set can occupy before temporal stores start to evict it: the last-level
 * cache when it is inclusive (L2 lines are copies of LLC lines), the LLC plus the L2 of each of
 * the p = ncores_sharing_llc cores when it is not (Skylake-SP and later: L2 lines are not in
 * the L3, so both hold distinct data). The LLC counts at most SHMCOLL_LLC_PER_CORE_MAX per core
 * sharing it. Pass l2 = 0 when the LLC is itself the L2, or unknown. 0 when llc is 0 (the
 * topology does not say). */
size_t shmcoll_kernel_usable_cache(size_t llc, size_t l2, int ncores_sharing_llc,
                                   int llc_inclusive);

/* Whether streaming_cores cores copying at once out of one memory domain are enough to be
 * limited by its bandwidth: at least min_cores of them (SHMCOLL_NT_MIN_CORES). */
int shmcoll_kernel_nt_bandwidth_bound(int streaming_cores, int min_cores);

/* The mode's decision, without the environment (for tests and for callers that hold a mode):
 * auto streams iff bandwidth_bound, the destination is not reused soon and
 * working_set > usable_cache; a usable_cache of 0 (unknown) never streams in auto mode. */
int shmcoll_kernel_nt_decide(shmcoll_nt_mode_t mode, size_t working_set, int dest_reused_soon,
                             size_t usable_cache, int bandwidth_bound);

/* 1 when a store whose destination is (not) reused soon, in a collective with the given working
 * set, should be non-temporal under SHMCOLL_NT; see shmcoll_kernel_nt_decide. */
int shmcoll_kernel_nt_wanted(size_t working_set, int dest_reused_soon, size_t usable_cache,
                             int bandwidth_bound);

#endif
