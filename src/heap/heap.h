/* The shared heap: what SHMCOLL_HEAP asks for, and all its counters in one place.
 *
 * Memory from the heap (heap/alloc.h) lies in memory files that peers on the node can map
 * (heap/peer.h), so a collective whose buffers all lie in heaps moves each block once, at memory
 * speed, with no kernel module (docs/HEAP.md). Where buffers come from: MPI_Alloc_mem always
 * (unless SHMCOLL_HEAP=off), and with SHMCOLL_HEAP=malloc also the large allocations of malloc
 * and its relatives (src/mpi/heap_malloc.c). */
#ifndef SHMCOLL_HEAP_HEAP_H
#define SHMCOLL_HEAP_HEAP_H

#include "heap/alloc.h"
#include "heap/arena.h"
#include "heap/peer.h"

typedef enum shmcoll_heap_mode {
    SHMCOLL_HEAP_OFF,       /* no heap: MPI_Alloc_mem is the MPI library's, nothing is mapped */
    SHMCOLL_HEAP_ALLOC_MEM, /* MPI_Alloc_mem's memory comes from the heap (the default) */
    SHMCOLL_HEAP_MALLOC,    /* so do large allocations of malloc and its relatives */
} shmcoll_heap_mode_t;

/* The mode SHMCOLL_HEAP selects ("off", "alloc-mem", "malloc"); anything else is reported once
 * and read as alloc-mem. */
shmcoll_heap_mode_t shmcoll_heap_mode(void);

/* Every counter of the heap. */
typedef struct shmcoll_heap_stats {
    shmcoll_heap_alloc_stats_t alloc;
    shmcoll_heap_arena_stats_t arenas;
    shmcoll_heap_peer_stats_t peers;
} shmcoll_heap_stats_t;

void shmcoll_heap_stats(shmcoll_heap_stats_t *out);

#endif
