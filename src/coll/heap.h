/* Collectives over shared heaps: each block moves once, between buffers that peers map.
 *
 * A buffer from a member's shared heap (heap/heap.h: MPI_Alloc_mem, or large allocations with
 * SHMCOLL_HEAP=malloc) lies in a memory file the other members can map (heap/peer.h). When the
 * buffers a collective reads and writes all lie in heaps, a member copies straight from a
 * peer's send buffer into its own receive buffer (or from its own into a peer's), at memory
 * speed: one copy per block where copy-in/copy-out through the team's slots makes two, and
 * reductions read their inputs where they lie (docs/HEAP.md).
 *
 * Whether a buffer lies in a heap is known only to its owner, so the heap rows (wrapping rows of
 * the registry, select/registry.h) agree on it in the call's first step: every member posts where
 * its buffers lie (coll/heap_agree.c), all read all posts and take the same path — the heap
 * bodies (coll/heap_move.c, coll/heap_reduce.c), or the row the selector picks without the heap
 * rows, in the same task. The rows apply from SHMCOLL_HEAP_MIN bytes only, so a call pays for
 * the agreement step only where one copy less pays for it.
 *
 * The single-copy rows (coll/single_copy.c) need no agreement: each block's reader or writer
 * learns from the post it waits for anyway whether the other end's buffer lies in a heap, and
 * maps it instead of calling cross-memory attach (shmcoll_coll_heap_transfer). */
#ifndef SHMCOLL_COLL_HEAP_H
#define SHMCOLL_COLL_HEAP_H

#include "core/task.h"
#include "heap/alloc.h"

/* The wrapping row of every kind the heap serves: bcast, scatter, gather, allgather(v),
 * alltoall, reduce, allreduce, reduce_scatter(_block). */
extern const shmcoll_task_ops_t shmcoll_coll_heap_ops; /* heap_agree.c */

/* Where `base` lies, for a post of this member's: in a heap (ref->nonce set) only when the team
 * may map heaps. */
void shmcoll_coll_heap_locate(const shmcoll_task_t *task, const void *base,
                              shmcoll_heap_ref_t *ref);

/* Copies `n` bytes between this member's `local` and member q's buffer that q posted at address
 * `posted` with `ref`, at `remote` (an address of q's, inside that buffer), through a mapping of
 * q's arena: into local (write 0) or into q's buffer (write 1). OK when done; NOT_SUPPORTED when
 * the buffer is not in a heap or cannot be mapped here (the caller copies with cross-memory
 * attach). Not counted in the DAV (the caller counts the copy either way). */
shmcoll_status_t shmcoll_coll_heap_transfer(shmcoll_task_t *task, int q,
                                            const shmcoll_heap_ref_t *ref, uintptr_t posted,
                                            uintptr_t remote, void *local, size_t n, int write);

#endif
