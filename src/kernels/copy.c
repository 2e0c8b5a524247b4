/* Temporal copy: the destination is read again soon, so it should stay in cache. The C
 * library's memcpy already picks the best temporal loop for this CPU; non-temporal and adaptive
 * copies live in their own files. */
#include "kernels/kernels.h"

#include <string.h>

void shmcoll_kernel_copy(void *dst, const void *src, size_t bytes) {
    /* memcpy with a null pointer is undefined even for 0 bytes; empty buffers may be NULL. */
    if (bytes) memcpy(dst, src, bytes);
}
