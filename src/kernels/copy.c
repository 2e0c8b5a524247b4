/* Temporal copies: the destination goes through the cache.
 *
 * Copies of at least LOOP_MIN bytes take an AVX2 loop of copy_avx2.c when the CPU has AVX2 and
 * SHMCOLL_ISA does not cap the kernels at scalar: the plain loop is faster than memcpy for
 * buffers in memory and as fast for buffers in cache; the memory loop is faster again for
 * buffers in memory and slower for buffers in the core's own caches. Smaller copies go to
 * memcpy, whose entry code is the best there is for them. Non-temporal copies live in their own
 * file. */
#include "kernels/copy_isa.h"
#include "kernels/kernels.h"

#include <stdatomic.h>
#include <string.h>

#define LOOP_MIN 4096

static void memcpy_loop(void *dst, const void *src, size_t bytes) {
    if (bytes) memcpy(dst, src, bytes); /* empty buffers may be NULL */
}

static void resolve_loop(void *dst, const void *src, size_t bytes);

static void resolve_memory_loop(void *dst, const void *src, size_t bytes);

/* Each starts as a resolver, which replaces both on the first copy: the copy path then pays one
 * relaxed load, no once-guard. Racing first copies store the same values. */
static _Atomic(shmcoll_copy_fn) chosen_loop = resolve_loop;
static _Atomic(shmcoll_copy_fn) chosen_memory_loop = resolve_memory_loop;

static void choose_loops(void) {
    __builtin_cpu_init();
    const int avx2 = strcmp(shmcoll_kernel_isa(), "scalar") && __builtin_cpu_supports("avx2");
    atomic_store_explicit(&chosen_memory_loop, avx2 ? shmcoll_kernel_copy_memory_avx2 : memcpy_loop,
                          memory_order_relaxed);
    atomic_store_explicit(&chosen_loop, avx2 ? shmcoll_kernel_copy_temporal_avx2 : memcpy_loop,
                          memory_order_relaxed);
}

static shmcoll_copy_fn choose_loop(void) {
    choose_loops();
    return atomic_load_explicit(&chosen_loop, memory_order_relaxed);
}

static void resolve_loop(void *dst, const void *src, size_t bytes) {
    choose_loop()(dst, src, bytes);
}

static void resolve_memory_loop(void *dst, const void *src, size_t bytes) {
    choose_loops();
    atomic_load_explicit(&chosen_memory_loop, memory_order_relaxed)(dst, src, bytes);
}

shmcoll_copy_fn shmcoll_kernel_copy_loop(void) {
    shmcoll_copy_fn loop = atomic_load_explicit(&chosen_loop, memory_order_relaxed);
    return loop == resolve_loop ? choose_loop() : loop;
}

const char *shmcoll_kernel_copy_loop_name(void) {
    return shmcoll_kernel_copy_loop() == memcpy_loop ? "memcpy" : "avx2";
}

void shmcoll_kernel_copy(void *dst, const void *src, size_t bytes) {
    /* memcpy with a null pointer is undefined even for 0 bytes; empty buffers may be NULL. */
    if (bytes >= LOOP_MIN)
        atomic_load_explicit(&chosen_loop, memory_order_relaxed)(dst, src, bytes);
    else if (bytes)
        memcpy(dst, src, bytes);
}

void shmcoll_kernel_copy_memory(void *dst, const void *src, size_t bytes) {
    if (bytes >= LOOP_MIN)
        atomic_load_explicit(&chosen_memory_loop, memory_order_relaxed)(dst, src, bytes);
    else if (bytes)
        memcpy(dst, src, bytes);
}
