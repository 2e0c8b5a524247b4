/* Scratch memory of the compositions, kept between calls (one pool per process).
 *
 * A composition's scratch of a large call (the leader's copy of a node's reduced vector, packed
 * blocks) is as large as the message. A large malloc is a fresh mmap whose pages fault and are
 * zeroed on first touch, on every call (the MPI libraries' memory hooks keep glibc from learning
 * to reuse such chunks): a reduce_scatter_block of 16 MiB across 2 nodes of 2 ranks spent half
 * its time there (38 ms against 18 ms with the buffers kept). So buffers of at least
 * SHMCOLL_SCRATCH_MIN bytes that a composition frees are kept, at most SHMCOLL_SCRATCH_KEPT of
 * them and SHMCOLL_SCRATCH_KEEP bytes in all (64 MiB; the oldest freed first beyond that), and a
 * request takes the smallest kept buffer that fits. Smaller ones go to malloc and free, which serve
 * them from the heap anyway. Thread-safe. */
#ifndef SHMCOLL_GROUP_SCRATCH_H
#define SHMCOLL_GROUP_SCRATCH_H

#include <stddef.h>

#define SHMCOLL_SCRATCH_MIN  ((size_t)64 << 10)
#define SHMCOLL_SCRATCH_KEPT 4

/* At least `bytes` bytes (never NULL for 0 bytes; NULL: no memory), 64-byte aligned. */
void *shmcoll_scratch_get(size_t bytes);

/* Gives back a buffer of shmcoll_scratch_get (NULL: nothing). */
void shmcoll_scratch_put(void *buf);

/* SHMCOLL_SCRATCH_KEEP: the bytes the pool keeps at most; a buffer larger than that is never
 * kept. */
size_t shmcoll_scratch_keep(void);

/* Frees every kept buffer (at finalisation). */
void shmcoll_scratch_release(void);

#endif
