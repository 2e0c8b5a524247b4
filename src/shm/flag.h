/* Shared flags: the only place shmcoll touches atomics on shared memory.
 *
 * Every flag has exactly one writer and lives alone in its own 128-byte block (two cache lines, so
 * the adjacent-line prefetcher of x86 does not make neighbours share traffic). Values are 64-bit
 * sequence numbers that only grow, so a flag never needs a reset and cannot suffer ABA. The writer
 * publishes with a release store after writing the data the flag guards; readers load with acquire
 * before reading that data. No read-modify-write atomics: under contention they serialize on the
 * line (XHC measured 23x slower at 160 ranks). */
#ifndef SHMCOLL_SHM_FLAG_H
#define SHMCOLL_SHM_FLAG_H

#include <stdatomic.h>
#include <stdint.h>

#define SHMCOLL_FLAG_ALIGN 128

typedef _Atomic uint64_t shmcoll_flag_t;

/* Acquire: everything the writer stored before publishing `value` is visible after this load. */
static inline uint64_t shmcoll_flag_load(const shmcoll_flag_t *flag) {
    return atomic_load_explicit(flag, memory_order_acquire);
}

/* Release: the data written (and read) before this store is complete before the flag shows it. */
static inline void shmcoll_flag_store(shmcoll_flag_t *flag, uint64_t value) {
    atomic_store_explicit(flag, value, memory_order_release);
}

static inline void shmcoll_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

#endif
