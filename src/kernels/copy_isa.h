/* The per-ISA streaming copy loops, private to kernels/.
 *
 * Each copies `bytes` (any size > 0) from src to dst: ordinary stores up to the first cache-line
 * boundary of dst, streaming (non-temporal) stores for every whole line after it, ordinary
 * stores for the partial last line. None of them fences: the public entry points (copy_nt.c,
 * reduce_nt.c) issue one sfence after the last streaming store of a call, not one per block.
 * Only the dispatcher calls them, and only after CPUID said the CPU has the ISA. */
#ifndef SHMCOLL_KERNELS_COPY_ISA_H
#define SHMCOLL_KERNELS_COPY_ISA_H

#include "kernels/kernels.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The head of a streaming copy: ordinary stores up to the first `line`-byte boundary of *dst (all
 * of it when shorter), then *dst, *src and *bytes advanced past it. */
static inline void shmcoll_kernel_copy_head(unsigned char **dst, const unsigned char **src,
                                            size_t *bytes, size_t line) {
    size_t head = (size_t)(-(uintptr_t)*dst & (line - 1));
    if (head > *bytes) head = *bytes;
    memcpy(*dst, *src, head);
    *dst += head, *src += head, *bytes -= head;
}

/* A temporal copy loop: ordinary stores, any alignment, any size. */
void shmcoll_kernel_copy_temporal_avx2(void *dst, const void *src, size_t bytes);

/* A temporal copy loop for buffers in memory (several streams, destination prefetched for
 * writing); slower than the plain loop when both buffers are in cache. */
void shmcoll_kernel_copy_memory_avx2(void *dst, const void *src, size_t bytes);

void shmcoll_kernel_copy_stream_avx2(void *dst, const void *src, size_t bytes);
void shmcoll_kernel_copy_stream_avx512(void *dst, const void *src, size_t bytes);

/* The streaming loop chosen for this process (the ISA of shmcoll_kernel_isa(), so SHMCOLL_ISA
 * caps it too), or NULL when there is none: then non-temporal copies are plain memcpy and there
 * are no non-temporal reductions. */
shmcoll_copy_fn shmcoll_kernel_copy_stream(void);

#endif
