/* A copy between buffers in memory, with whichever stores this process measured faster.
 *
 * Whether streaming stores pay from a single core depends on the machine: on a 2-core Cascade
 * Lake guest they were slower than temporal ones (nt_policy.h), on the 2-core AMD EPYC (Zen 3)
 * guest this project is measured on now they are nearly twice as fast — 16 MiB from memory to
 * memory in 1.09 ms against 1.84 (1.55 against 2.6 with both cores copying at once), 16 MiB from
 * cache to memory in 0.74 ms against 1.44. Where a copy goes from memory to memory and its
 * destination is not read again soon (a collective that moves each block once, straight between
 * the ranks' buffers: coll/heap_access.c), the process measures instead of guessing: its first
 * copies of at least 256 KiB each copy one half with each kind of store (the first half with the
 * kind that has fewer samples, so neither always meets the other's warm prefetchers) and, once
 * both kinds have 8 samples, every later copy takes the kind whose best sample had the lower time
 * per byte (the best, not the mean: first copies into fresh pages pay their page faults, and a
 * sample may be preempted on a loaded machine; neither says what the stores cost). The
 * choice is a property of the machine, made once per process like the choice of an ISA; it never
 * changes what a copy produces, only how fast. */
#include "kernels/kernels.h"

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#define SAMPLE_MIN ((size_t)256 << 10)
#define SAMPLES    8

enum { TEMPORAL, STREAMING, UNDECIDED };

static _Atomic int chosen = UNDECIDED;
static _Atomic double best_ns_per_byte[2] = {1e30, 1e30};
static _Atomic int samples[2];

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void copy_kind(int kind, void *dst, const void *src, size_t n) {
    if (kind == STREAMING)
        shmcoll_kernel_copy_nt(dst, src, n);
    else
        shmcoll_kernel_copy_memory(dst, src, n);
}

/* Copies n bytes with `kind` and keeps the best time per byte of its samples. */
static void timed(int kind, void *dst, const void *src, size_t n) {
    const uint64_t start = now_ns();
    copy_kind(kind, dst, src, n);
    const double rate = (double)(now_ns() - start) / (double)n;
    double best = atomic_load_explicit(&best_ns_per_byte[kind], memory_order_relaxed);
    while (rate < best && !atomic_compare_exchange_weak(&best_ns_per_byte[kind], &best, rate))
        ;
}

static void decide(void) {
    if (atomic_load(&samples[TEMPORAL]) < SAMPLES || atomic_load(&samples[STREAMING]) < SAMPLES)
        return;
    const int faster =
        atomic_load(&best_ns_per_byte[STREAMING]) < atomic_load(&best_ns_per_byte[TEMPORAL])
            ? STREAMING
            : TEMPORAL;
    int undecided = UNDECIDED;
    atomic_compare_exchange_strong(&chosen, &undecided, faster);
}

void shmcoll_kernel_copy_measured(void *dst, const void *src, size_t bytes) {
    const int kind = atomic_load_explicit(&chosen, memory_order_relaxed);
    if (kind != UNDECIDED || bytes < SAMPLE_MIN) {
        copy_kind(kind == STREAMING ? STREAMING : TEMPORAL, dst, src, bytes);
        return;
    }
    const int first =
        atomic_load(&samples[STREAMING]) < atomic_load(&samples[TEMPORAL]) ? STREAMING : TEMPORAL;
    const size_t half = bytes / 2 / 64 * 64;
    unsigned char *d = dst;
    const unsigned char *s = src;
    timed(first, d, s, half);
    timed(!first, d + half, s + half, bytes - half);
    atomic_fetch_add(&samples[TEMPORAL], 1);
    atomic_fetch_add(&samples[STREAMING], 1);
    decide();
}

const char *shmcoll_kernel_copy_measured_choice(void) {
    switch (atomic_load(&chosen)) {
    case STREAMING:
        return "streaming";
    case TEMPORAL:
        return "temporal";
    default:
        return "undecided";
    }
}
