/* The shared heap's allocator: malloc-like calls whose memory lies in arenas (heap/arena.h), so
 * that peers can map it and collectives move each block once (docs/HEAP.md).
 *
 * Blocks carry a 64-byte header before the memory they hand out (boundary tags: their size and
 * the size of the block before them), so every pointer returned is 64-byte aligned and a freed
 * block merges with free neighbours at once. Free blocks wait in bins by powers of two; an
 * allocation takes the first block that fits from the smallest bin that can hold it, else grows
 * the end of an arena (its file), else opens a new arena. Free memory goes back to the system:
 * the whole pages of a free block of 1 MiB or more, everything past the last block of an arena,
 * and an arena left empty (unless it is the only one, which keeps its address space and its
 * emptied file for the next allocation).
 *
 * Thread-safe (one lock: the calls that come here are the large ones), fork-safe (arena.h), and
 * never a cost for memory that is not the heap's: shmcoll_heap_owns is one comparison. */
#ifndef SHMCOLL_HEAP_ALLOC_H
#define SHMCOLL_HEAP_ALLOC_H

#include <stddef.h>
#include <stdint.h>

/* `bytes` (0 counts as 1) aligned to `align` (a power of two; at least 64 is given), or NULL when
 * the heap cannot serve it (no address space, a system call failed): the caller then asks the
 * system allocator. */
void *shmcoll_heap_alloc(size_t bytes, size_t align);

/* Zeroed `count` x `size` bytes; NULL also on overflow. */
void *shmcoll_heap_calloc(size_t count, size_t size);

/* Whether `p` lies in the heap's region: every pointer shmcoll_heap_alloc returned does, no other
 * pointer any allocator returned does. One comparison, no lock. */
int shmcoll_heap_owns(const void *p);

/* Frees a pointer that shmcoll_heap_owns. A pointer of the region that is not a live block (freed
 * twice, or never returned) ends the process with a message, as the C library does. */
void shmcoll_heap_free(void *p);

/* Bytes usable at a pointer that shmcoll_heap_owns (at least what was asked for). */
size_t shmcoll_heap_usable(const void *p);

/* realloc of a pointer that shmcoll_heap_owns: in place when the block or its free neighbour has
 * room, else a new block (of any arena) with the contents copied. NULL (the old block intact)
 * when no memory is left. */
void *shmcoll_heap_realloc(void *p, size_t bytes);

/* Where a buffer lies, as a peer needs it to map the same memory (heap/peer.h). */
typedef struct shmcoll_heap_ref {
    uint64_t nonce;  /* the owner's heap (shmcoll_heap_nonce); 0: not in a heap */
    uint32_t arena;  /* the arena's id */
    int32_t fd;      /* the arena's memory file in the owner */
    uint64_t offset; /* of the buffer's first byte in the arena */
    uint64_t limit;  /* bytes from there that lie in the arena's used part */
} shmcoll_heap_ref_t;

/* Fills *ref for the buffer at `p` (ref->nonce 0 when it is not in the heap). The used part of an
 * arena is backed by its file, so a peer that reads or writes within [offset, offset + limit)
 * never faults, whatever the owner's blocks look like. */
void shmcoll_heap_ref(const void *p, shmcoll_heap_ref_t *ref);

/* Counters for statistics and tests. */
typedef struct shmcoll_heap_alloc_stats {
    uint64_t allocs, frees; /* blocks handed out and given back */
    uint64_t live_blocks;
    uint64_t live_bytes; /* of the blocks in use, headers included */
    uint64_t peak_bytes;
} shmcoll_heap_alloc_stats_t;

void shmcoll_heap_alloc_stats(shmcoll_heap_alloc_stats_t *out);

#endif
