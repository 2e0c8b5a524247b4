/* A copy between buffers in memory, with whichever stores this process measured faster.
 *
 * Whether streaming stores pay from a single core depends on the machine: on a 2-core Cascade
 * Lake guest they were slower than temporal ones (nt_policy.h), on the 2-core AMD EPYC (Zen 3)
 * guest this project is measured on now they are nearly twice as fast — 16 MiB from memory to
 * memory in 1.09 ms against 1.84 (1.55 against 2.6 with both cores copying at once), 16 MiB from
 * cache to memory in 0.74 ms against 1.44. Where a copy goes from memory to memory and its
 * destination is not read again soon (a collective that moves each block once, straight between
 * the ranks' buffers: coll/heap_access.c), the process measures instead of guessing: its first
 * 15 copies of at least 256 KiB each copy one half with each kind of store, back to back (which
 * kind goes first alternates, so neither always meets the other's warm prefetchers), and record
 * the ratio of the two kinds' times per byte; every later copy takes the kind the median ratio
 * favours. Pairing the halves of one copy compares them under the same conditions (the peer
 * copying at once or not, page faults of fresh buffers, the other tenants of the machine), and
 * the median ignores the samples a preemption spoilt. The choice is a property of the machine,
 * made once per process like the choice of an ISA; it never changes what a copy produces, only
 * how fast. */
#include "kernels/kernels.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define SAMPLE_MIN ((size_t)256 << 10)
#define SAMPLES    15

enum { TEMPORAL, STREAMING, UNDECIDED };

static _Atomic int chosen = UNDECIDED;
static _Atomic int taken;              /* samples claimed */
static _Atomic int recorded;           /* samples whose ratio is in `ratios` */
static _Atomic double ratios[SAMPLES]; /* streaming's time per byte over temporal's */

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

/* Copies n bytes with `kind`; returns the time per byte. */
static double timed(int kind, void *dst, const void *src, size_t n) {
    const uint64_t start = now_ns();
    copy_kind(kind, dst, src, n);
    return (double)(now_ns() - start) / (double)n;
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Once every sample is in: the kind the median ratio favours. */
static void decide(void) {
    double sorted[SAMPLES];
    for (int i = 0; i < SAMPLES; i++) sorted[i] = atomic_load(&ratios[i]);
    qsort(sorted, SAMPLES, sizeof sorted[0], by_value);
    int undecided = UNDECIDED;
    atomic_compare_exchange_strong(&chosen, &undecided,
                                   sorted[SAMPLES / 2] < 1.0 ? STREAMING : TEMPORAL);
}

void shmcoll_kernel_copy_measured(void *dst, const void *src, size_t bytes) {
    const int kind = atomic_load_explicit(&chosen, memory_order_relaxed);
    const int sample = kind == UNDECIDED && bytes >= SAMPLE_MIN ? atomic_fetch_add(&taken, 1) : -1;
    if (sample < 0 || sample >= SAMPLES) { /* decided, small, or enough samples in flight */
        copy_kind(kind == STREAMING ? STREAMING : TEMPORAL, dst, src, bytes);
        return;
    }
    const int first = sample % 2 ? STREAMING : TEMPORAL;
    const size_t half = bytes / 2 / 64 * 64;
    unsigned char *d = dst;
    const unsigned char *s = src;
    const double a = timed(first, d, s, half), b = timed(!first, d + half, s + half, bytes - half);
    atomic_store(&ratios[sample], first == STREAMING ? a / b : b / a);
    if (atomic_fetch_add(&recorded, 1) + 1 == SAMPLES) decide();
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
