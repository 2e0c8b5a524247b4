/* Arenas of the shared heap: memory that other processes of the node can map.
 *
 * An arena is an anonymous memory file (memfd_create: nothing in any file system, gone with the
 * last process that holds it) mapped MAP_SHARED over a range of address space it reserves up
 * front, and grown on demand by enlarging the file (ftruncate): the mapping never moves, pages
 * exist only once touched. A peer that obtains the file's descriptor (heap/pidfd.h) maps the same
 * pages, so it reads and writes the owner's buffers at memory speed (heap/peer.h).
 *
 * All arenas of a process lie in one region of address space reserved at first use, cut into
 * equal slots (SHMCOLL_HEAP_ARENA bytes each); an arena takes one slot or, for a larger
 * allocation, a run of them. So whether a pointer belongs to the heap is one comparison (free()
 * of every other pointer pays nothing more), and its arena is found from its slot.
 *
 * Identity: every arena has an id never reused in the process, and the process a random nonce,
 * drawn again in a forked child; (nonce, id) names one file for ever, so a peer's cache of mapped
 * arenas can never mistake a new arena at a reused address for an old one.
 *
 * fork(): a child must get a copy of its parent's memory, not a shared view of the same file. At
 * fork every arena's used part is copied into a fresh file (pthread_atfork prepare, under the
 * heap lock, while the parent waits), which the child maps over its arena in place of the
 * parent's. Cost: one copy of the live heap per fork.
 *
 * Locking: the functions below run with the heap lock held (shmcoll_heap_lock), except
 * shmcoll_heap_in_region and shmcoll_heap_nonce. */
#ifndef SHMCOLL_HEAP_ARENA_H
#define SHMCOLL_HEAP_ARENA_H

#include <stddef.h>
#include <stdint.h>

typedef struct shmcoll_heap_arena {
    uint32_t id;    /* never reused in this process (0: the slot is free) */
    int fd;         /* the memory file (close-on-exec) */
    char *base;     /* the arena's first byte in this process */
    size_t reserve; /* bytes of address space it owns (whole slots) */
    size_t size;    /* bytes of the file: [base, base + size) may be touched */
    size_t top;     /* the allocator's blocks lie in [0, top); [top, reserve) is all zero */
    size_t last;    /* bytes of the block that ends at top (0: none) */
    size_t blocks;  /* blocks in use (heap/alloc.c) */
} shmcoll_heap_arena_t;

void shmcoll_heap_lock(void);
void shmcoll_heap_unlock(void);

/* Whether `p` lies in the heap's region (any arena, live or not). No lock: one comparison. */
int shmcoll_heap_in_region(const void *p);

/* The arena whose reservation holds `p`, or NULL. */
shmcoll_heap_arena_t *shmcoll_heap_arena_at(const void *p);

/* A new arena of at least `bytes` of reservation (whole slots), with an empty file; NULL when the
 * region cannot be reserved, has no free run of slots, or a system call fails (logged once). */
shmcoll_heap_arena_t *shmcoll_heap_arena_create(size_t bytes);

/* Makes [0, end) of the arena touchable, growing its file (by doubling, from 2 MiB, up to the
 * reservation). 0, or -1 when end exceeds the reservation or the file cannot grow. */
int shmcoll_heap_arena_grow(shmcoll_heap_arena_t *arena, size_t end);

/* Gives the whole pages inside [from, to) back to the system (the file keeps its size; they read
 * as zero, in the owner and in every peer's mapping, until written again). */
void shmcoll_heap_arena_release(shmcoll_heap_arena_t *arena, size_t from, size_t to);

/* Returns the arena's pages and file, and its slots to the region (reserved again). */
void shmcoll_heap_arena_destroy(shmcoll_heap_arena_t *arena);

/* The live arenas, in slot order: first with NULL, then the next after `prev`; NULL at the end. */
shmcoll_heap_arena_t *shmcoll_heap_arena_next(const shmcoll_heap_arena_t *prev);

/* This process's heap nonce (random, drawn again in a forked child; never 0). */
uint64_t shmcoll_heap_nonce(void);

/* Counters for statistics and tests. */
typedef struct shmcoll_heap_arena_stats {
    uint64_t created, destroyed, live; /* arenas */
    uint64_t file_bytes;               /* bytes of the live arenas' files */
    uint64_t forks;                    /* fork snapshots taken */
} shmcoll_heap_arena_stats_t;

void shmcoll_heap_arena_stats(shmcoll_heap_arena_stats_t *out);

#endif
