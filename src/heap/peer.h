/* Peers' arenas mapped in this process: a bounded registration cache, as the attach caches of
 * XPMEM users (MPICH, XHC) keep peers' segments.
 *
 * A collective that reads or writes a peer's buffer in that peer's heap (heap/alloc.h: the
 * buffer's shmcoll_heap_ref_t, posted by the peer) maps the peer's arena here once: the
 * descriptor comes from the peer with pidfd_getfd (heap/pidfd.h) and is closed right after the
 * mmap, which alone keeps the file. Later calls find the mapping by (process, heap nonce, arena
 * id) — never by address, which a new arena may reuse — and pay nothing. A mapping covers the
 * arena's used part as posted, rounded up to a power of two, and grows (mremap) when a later
 * buffer lies beyond it.
 *
 * At most SHMCOLL_HEAP_CACHE mappings are kept: beyond that the least recently used one that no
 * collective is using (pinned) is unmapped. Mappings of a peer that died are dropped
 * (shmcoll_heap_peer_forget), so nothing of it stays in this process. With SHMCOLL_HEAP_CACHE=0
 * nothing is ever mapped and heap collectives copy with cross-memory attach instead.
 *
 * Thread-safe (one lock); a forked child starts with the parent's mappings and no pins. */
#ifndef SHMCOLL_HEAP_PEER_H
#define SHMCOLL_HEAP_PEER_H

#include "heap/alloc.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* This process's address of byte ref->offset of the arena of `ref` in process `pid`, mapped so
 * that bytes up to ref->offset + ref->limit are reachable, pinned until
 * shmcoll_heap_peer_unpin(*handle). NULL when it cannot be mapped (SHMCOLL_HEAP_CACHE=0, every
 * cached mapping pinned, or a system call failed: errno is set): the caller copies with
 * cross-memory attach instead. */
void *shmcoll_heap_peer_map(pid_t pid, const shmcoll_heap_ref_t *ref, int *handle);

void shmcoll_heap_peer_unpin(int handle);

/* Drops every mapping of `pid`'s arenas (at once, or when its last pin goes). */
void shmcoll_heap_peer_forget(pid_t pid);

/* Mappings of `pid`'s arenas held now. */
int shmcoll_heap_peer_held(pid_t pid);

/* Counters for statistics and tests. */
typedef struct shmcoll_heap_peer_stats {
    uint64_t maps;      /* arenas mapped (descriptor fetched, mmap) */
    uint64_t hits;      /* calls served by a cached mapping */
    uint64_t remaps;    /* mappings grown */
    uint64_t evictions; /* mappings dropped to stay within SHMCOLL_HEAP_CACHE */
    uint64_t forgotten; /* mappings dropped because their process died */
    uint64_t failures;  /* calls that could not map (the caller used cross-memory attach) */
    uint64_t live;      /* mappings held now */
    uint64_t live_bytes;
} shmcoll_heap_peer_stats_t;

void shmcoll_heap_peer_stats(shmcoll_heap_peer_stats_t *out);

#endif
