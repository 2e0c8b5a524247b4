/* Non-temporal copy: the entry point and its run-time ISA choice.
 *
 * A copy whose destination will not be read again soon (the copy-out of a collective into the
 * user's receive buffer) gains from streaming stores once the working set exceeds the cache:
 * temporal stores first read every destination line (read-for-ownership) and later write the
 * dirty line back, evicting data the collective still needs; streaming stores write the line
 * to memory once (YHCCL section 4, Table 4). nt_policy.h decides when; this file only copies.
 *
 * The streaming loop is chosen once per process for the ISA the reduction kernels use
 * (shmcoll_kernel_isa(), so SHMCOLL_ISA caps it too); without AVX2 it is plain memcpy. */
#include "kernels/copy_isa.h"
#include "kernels/kernels.h"

#include <pthread.h>
#include <string.h>
#include <strings.h>
#include <xmmintrin.h>

static pthread_once_t stream_once = PTHREAD_ONCE_INIT;
static shmcoll_copy_fn chosen_stream;

static void stream_init(void) {
    const char *isa = shmcoll_kernel_isa();
    if (!strcmp(isa, "avx512"))
        chosen_stream = shmcoll_kernel_copy_stream_avx512;
    else if (!strcmp(isa, "avx2"))
        chosen_stream = shmcoll_kernel_copy_stream_avx2;
    else
        chosen_stream = NULL;
}

shmcoll_copy_fn shmcoll_kernel_copy_stream(void) {
    pthread_once(&stream_once, stream_init);
    return chosen_stream;
}

/* Streaming stores are weakly ordered: they may become visible after later ordinary stores,
 * among them the release store of a flag telling other ranks the data is there — on x86 a
 * release store is a plain store, ordered after earlier ordinary stores but not after earlier
 * streaming ones. The sfence makes every streaming store of the copy globally visible before
 * any later store, so a reader that sees the flag (acquire) sees the data. */
static void copy_fenced(shmcoll_copy_fn stream, void *dst, const void *src, size_t bytes) {
    if (!bytes) return; /* dst/src may be NULL for empty buffers */
    stream(dst, src, bytes);
    _mm_sfence();
}

static void copy_nt_scalar(void *dst, const void *src, size_t bytes) {
    if (bytes) memcpy(dst, src, bytes);
}
static void copy_nt_avx2(void *dst, const void *src, size_t bytes) {
    copy_fenced(shmcoll_kernel_copy_stream_avx2, dst, src, bytes);
}
static void copy_nt_avx512(void *dst, const void *src, size_t bytes) {
    copy_fenced(shmcoll_kernel_copy_stream_avx512, dst, src, bytes);
}

void shmcoll_kernel_copy_nt(void *dst, const void *src, size_t bytes) {
    shmcoll_copy_fn stream = shmcoll_kernel_copy_stream();
    if (stream)
        copy_fenced(stream, dst, src, bytes);
    else
        copy_nt_scalar(dst, src, bytes);
}

shmcoll_copy_fn shmcoll_kernel_copy_nt_isa(const char *isa) {
    __builtin_cpu_init();
    if (!isa) return NULL;
    if (!strcasecmp(isa, "scalar")) return copy_nt_scalar;
    if (!strcasecmp(isa, "avx2")) return __builtin_cpu_supports("avx2") ? copy_nt_avx2 : NULL;
    if (!strcasecmp(isa, "avx512"))
        return __builtin_cpu_supports("avx512f") ? copy_nt_avx512 : NULL;
    return NULL;
}
