/* A copy between buffers in memory, with whichever stores this process measured faster.
 *
 * Whether streaming stores pay from a single core depends on the machine: on a 2-core Cascade
 * Lake guest they were slower than temporal ones (nt_policy.h), on the 2-core AMD EPYC (Zen 3)
 * guest this project is measured on now they are nearly twice as fast — 16 MiB from memory to
 * memory in 1.09 ms against 1.84 (1.55 against 2.6 with both cores copying at once), 16 MiB from
 * cache to memory in 0.74 ms against 1.44. Where a copy goes from memory to memory and its
 * destination is not read again soon (a collective that moves each block once, straight between
 * the ranks' buffers: coll/heap_access.c), the process measures instead of guessing: its first
 * copies of at least 1 MiB each copy one half with each kind of store (the first half with the
 * kind that has fewer samples, so neither always meets the other's warm prefetchers) and, once
 * both kinds have 8 samples, every later copy takes the kind with the lower time per byte. The
 * choice is a property of the machine, made once per process like the choice of an ISA; it never
 * changes what a copy produces, only how fast. */
#include "kernels/kernels.h"

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#define SAMPLE_MIN ((size_t)1 << 20)
#define SAMPLES    8

enum { TEMPORAL, STREAMING, UNDECIDED };

static _Atomic int chosen = UNDECIDED;
static _Atomic uint64_t spent_ns[2], copied[2];
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

/* Copies n bytes with `kind` and adds the time to its sample. */
static void timed(int kind, void *dst, const void *src, size_t n) {
    const uint64_t start = now_ns();
    copy_kind(kind, dst, src, n);
    atomic_fetch_add_explicit(&spent_ns[kind], now_ns() - start, memory_order_relaxed);
    atomic_fetch_add_explicit(&copied[kind], n, memory_order_relaxed);
}

static void decide(void) {
    if (atomic_load(&samples[TEMPORAL]) < SAMPLES || atomic_load(&samples[STREAMING]) < SAMPLES)
        return;
    /* ns per byte, compared without division: a/b < c/d  <=>  a*d < c*b (bytes < 2^40 each) */
    const double t =
        (double)atomic_load(&spent_ns[TEMPORAL]) * (double)atomic_load(&copied[STREAMING]);
    const double s =
        (double)atomic_load(&spent_ns[STREAMING]) * (double)atomic_load(&copied[TEMPORAL]);
    int undecided = UNDECIDED;
    atomic_compare_exchange_strong(&chosen, &undecided, s < t ? STREAMING : TEMPORAL);
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
