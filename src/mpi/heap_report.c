/* The shared heap's line of SHMCOLL_STATS, printed by rank 0 of MPI_COMM_WORLD after the
 * collectives' lines:
 *   shmcoll: heap: mode=malloc calls=1200 alloc_mem=4 alloc_mem_pmpi=0 blocks=12 peak=67108864
 *            arenas=2 mapped=3 hits=2397 remaps=0 evicted=0 forgotten=0 unmapped=0 live=3
 *            stores=streaming
 * (one line). calls: collective operations that took the heap path (each block moved once),
 * counted once per operation like the collectives' lines; the rest are sums over the ranks:
 * MPI_Alloc_mem calls served from the heap and passed to the MPI library, heap blocks handed out
 * (MPI_Alloc_mem and, with SHMCOLL_HEAP=malloc, large allocations), the largest heap of any rank
 * (bytes in use), arenas created, peers' arenas mapped, mappings found in the cache, grown,
 * evicted (beyond SHMCOLL_HEAP_CACHE), dropped for a dead peer, accesses that could not map
 * (copied with cross-memory attach instead), the mappings held at the end; and which stores rank
 * 0's copies between heap buffers in memory measured faster (kernels.h: streaming, temporal,
 * undecided). */
#include "mpi/heap_report.h"
#include "mpi/alloc_mem.h"
#include "mpi/stats.h"

#include "base/config.h"
#include "heap/heap.h"
#include "kernels/kernels.h"

#include <mpi.h>
#include <stdio.h>

void shmcoll_mpi_heap_report(void) {
    shmcoll_heap_stats_t h;
    shmcoll_heap_stats(&h);
    enum {
        CALLS,
        ALLOC_MEM,
        ALLOC_MEM_PMPI,
        BLOCKS,
        ARENAS,
        MAPS,
        HITS,
        REMAPS,
        EVICTED,
        FORGOTTEN,
        UNMAPPED,
        LIVE,
        NSUMS
    };
    uint64_t mine[NSUMS] = {[CALLS] = shmcoll_mpi_stats_heap_calls(),
                            [BLOCKS] = h.alloc.allocs,
                            [ARENAS] = h.arenas.created,
                            [MAPS] = h.peers.maps,
                            [HITS] = h.peers.hits,
                            [REMAPS] = h.peers.remaps,
                            [EVICTED] = h.peers.evictions,
                            [FORGOTTEN] = h.peers.forgotten,
                            [UNMAPPED] = h.peers.failures,
                            [LIVE] = h.peers.live};
    shmcoll_mpi_alloc_mem_counts(&mine[ALLOC_MEM], &mine[ALLOC_MEM_PMPI]);
    uint64_t sums[NSUMS], peak = 0, my_peak = h.alloc.peak_bytes;
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Reduce(mine, sums, NSUMS, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&my_peak, &peak, 1, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank != 0) return;
    /* Printed with fprintf, not the logger: the format is a stable interface for scripts. */
    fprintf(stderr,
            "shmcoll: heap: mode=%s calls=%llu alloc_mem=%llu alloc_mem_pmpi=%llu blocks=%llu "
            "peak=%llu arenas=%llu mapped=%llu hits=%llu remaps=%llu evicted=%llu forgotten=%llu "
            "unmapped=%llu live=%llu stores=%s\n",
            shmcoll_config()->heap, (unsigned long long)sums[CALLS],
            (unsigned long long)sums[ALLOC_MEM], (unsigned long long)sums[ALLOC_MEM_PMPI],
            (unsigned long long)sums[BLOCKS], (unsigned long long)peak,
            (unsigned long long)sums[ARENAS], (unsigned long long)sums[MAPS],
            (unsigned long long)sums[HITS], (unsigned long long)sums[REMAPS],
            (unsigned long long)sums[EVICTED], (unsigned long long)sums[FORGOTTEN],
            (unsigned long long)sums[UNMAPPED], (unsigned long long)sums[LIVE],
            shmcoll_kernel_copy_measured_choice());
}
