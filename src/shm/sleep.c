/* Futex sleeps on shared flags. See sleep.h. */
#include "shm/sleep.h"

#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The word of the flag the kernel compares: its low 32 bits, which change with every new value
 * (sequence numbers grow by small steps). Not FUTEX_PRIVATE: the flag is in a segment shared
 * between processes. */
static uint32_t *low_word(const shmcoll_flag_t *flag) {
    uint32_t *words = (uint32_t *)(uintptr_t)flag;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return words + 1;
#else
    return words;
#endif
}

void shmcoll_shm_sleep_on(const shmcoll_flag_t *flag, uint64_t seen,
                          shmcoll_sleep_block_t *sleepers, double seconds) {
    atomic_fetch_add_explicit(&sleepers->sleepers, 1, memory_order_seq_cst);
    /* seq_cst: read after the announcement is visible (sleep.h); a writer that stored before
     * this read is seen here, one that stores after it sees the announcement and wakes us. */
    if (atomic_load_explicit(flag, memory_order_seq_cst) == seen) {
        struct timespec ts = {.tv_sec = (time_t)seconds,
                              .tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9)};
        syscall(SYS_futex, low_word(flag), FUTEX_WAIT, (uint32_t)seen, &ts, NULL, 0);
    }
    atomic_fetch_sub_explicit(&sleepers->sleepers, 1, memory_order_relaxed);
}

void shmcoll_shm_wake_all(const shmcoll_flag_t *flag) {
    syscall(SYS_futex, low_word(flag), FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}
