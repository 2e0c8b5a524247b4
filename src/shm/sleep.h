/* Sleeping on a shared flag (Linux futex), for members of oversubscribed teams.
 *
 * When a node runs more ranks than it has CPUs, a waiting rank that keeps polling, even with
 * sched_yield between polls, takes time slices from the ranks that have work: in a collective
 * across nodes the node's leaders run the network step (the MPI library's TCP progress) while the
 * other members wait for its result, and every yielding waiter halves a leader's share of a core.
 * So a waiter that has waited long enough sleeps in the kernel on the flag's word, and the writer
 * of the flag wakes it.
 *
 * Who wakes whom: the writer of a flag must know whether anybody sleeps on it without a system
 * call on every post. Each member has a counter of the members asleep on its flags (its `sleep`
 * block, written by the sleepers with atomic increments: rare, slow-path traffic). A sleeper
 * increments it, then checks the flag again (sequentially consistent), then sleeps while the
 * flag's low 32 bits still show the value it saw; a writer stores the flag, issues a
 * sequentially consistent fence, and reads its counter: at least one of them sees the other's
 * write (Dekker), so either the sleeper sees the new value and does not sleep, or the writer sees
 * the sleeper and wakes it; the kernel's compare of the word closes the window between the check
 * and the sleep. Sleeps are slices of at most a millisecond, so a waiter still runs its liveness
 * checks and progress hooks, and a missed wake could cost latency, never a hang. */
#ifndef SHMCOLL_SHM_SLEEP_H
#define SHMCOLL_SHM_SLEEP_H

#include "shm/flag.h"

#include <stdatomic.h>
#include <stdint.h>

/* The counter of members asleep on one member's flags, alone on its lines. */
typedef struct shmcoll_sleep_block {
    _Atomic uint32_t sleepers;
} __attribute__((aligned(SHMCOLL_FLAG_ALIGN))) shmcoll_sleep_block_t;

/* Sleeps at most `seconds` while `flag` still shows `seen` (as its low 32 bits), announced in
 * `sleepers` (the flag writer's counter). Returns at once when the flag has moved on. */
void shmcoll_shm_sleep_on(const shmcoll_flag_t *flag, uint64_t seen,
                          shmcoll_sleep_block_t *sleepers, double seconds);

/* Wakes every member asleep on `flag`. */
void shmcoll_shm_wake_all(const shmcoll_flag_t *flag);

/* After storing `flag`: wakes whoever sleeps on it, if `mine` (the writer's counter) shows any
 * sleeper. Costs a fence and a load when nobody sleeps. */
static inline void shmcoll_shm_wake(const shmcoll_flag_t *flag, shmcoll_sleep_block_t *mine) {
    /* seq_cst: the flag's store is visible before the counter is read (see above). */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&mine->sleepers, memory_order_relaxed)) shmcoll_shm_wake_all(flag);
}

#endif
