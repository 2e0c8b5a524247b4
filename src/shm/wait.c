#include "shm/wait.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double shmcoll_shm_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* kill(pid, 0) succeeds for a zombie, and a killed rank stays a zombie until its parent reaps it
 * (the launcher may be busy), so also read the state letter from /proc. */
int shmcoll_shm_process_alive(pid_t pid) {
    if (pid <= 0) return 1;
    if (kill(pid, 0) != 0 && errno == ESRCH) return 0;
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? 0 : 1;
    ssize_t len = read(fd, stat, sizeof stat - 1);
    close(fd);
    if (len <= 0) return 1;
    stat[len] = '\0';
    const char *paren = strrchr(stat, ')'); /* the command name may contain spaces */
    if (!paren || paren[1] != ' ') return 1;
    return paren[2] != 'Z' && paren[2] != 'X';
}

/* Without a check callback: the waited-for peer must be alive. */
static shmcoll_status_t check_peer(const shmcoll_waiter_t *waiter, int peer) {
    if (!waiter->pids || shmcoll_shm_process_alive(waiter->pids[peer])) return SHMCOLL_OK;
    snprintf(waiter->error, waiter->error_len, "rank %d (pid %d) died while %s was waiting for it",
             peer, (int)waiter->pids[peer], waiter->op);
    return SHMCOLL_ERR_PEER_DEAD;
}

static shmcoll_status_t timed_out(const shmcoll_waiter_t *waiter, int peer, double waited) {
    if (waiter->check) {
        shmcoll_status_t status = waiter->check(waiter->check_ctx, peer, 1);
        if (status != SHMCOLL_OK) return status;
    }
    snprintf(waiter->error, waiter->error_len,
             "timeout: %s waited %.0f s for rank %d (pid %d), which is stuck or stopped "
             "(SHMCOLL_TIMEOUT=%g)",
             waiter->op, waited, peer, waiter->pids ? (int)waiter->pids[peer] : -1,
             waiter->timeout);
    return SHMCOLL_ERR_TIMEOUT;
}

shmcoll_status_t shmcoll_shm_wait_check(const shmcoll_wait_t *w, const shmcoll_waiter_t *waiter,
                                        double waited) {
    if (shmcoll_flag_load(w->flag) >= w->value) return SHMCOLL_OK;
    if (waited > waiter->timeout) return timed_out(waiter, w->peer, waited);
    return waiter->check ? waiter->check(waiter->check_ctx, w->peer, 0)
                         : check_peer(waiter, w->peer);
}

/* Seconds of one sleep: short enough that progress hooks and liveness checks keep their pace. */
#define SLEEP_SLICE 1e-3

/* Polls between two readings of the clock while spinning: a reading costs some 20-30 ns, a poll
 * with pause 10-50. */
#define SPIN_CLOCK_POLLS 64

/* Threads of this process in a slow wait or a paced loop. Only a thread that waits alone spins for
 * the whole SHMCOLL_SPIN; where threads of a process wait at once (MPI_THREAD_MULTIPLE, collectives
 * on several communicators), they and their peers may outnumber the CPUs, and a spinner would hold
 * a core that the thread it waits for needs: they spin for SPIN_SHARED at most. p = 2 ranks of 8
 * threads each on 2 cores, a 64 KiB bcast and an 8-byte allreduce per step (MPICH): 0.22-0.39 s
 * with 52 us of polls, 0.41-0.99 s with a millisecond, 0.59-2.6 s yielding at once. */
static _Atomic int waiting_threads;
#define SPIN_SHARED 50e-6

/* This thread's waits under way: a paced loop's progress may wait on a flag inside it, and the
 * thread counts once. */
static _Thread_local int waits_here;

static void waiting_begin(void) {
    if (waits_here++ == 0) atomic_fetch_add_explicit(&waiting_threads, 1, memory_order_relaxed);
}

static void waiting_end(void) {
    if (--waits_here == 0) atomic_fetch_sub_explicit(&waiting_threads, 1, memory_order_relaxed);
}

/* Seconds a wait spins at most, whatever SHMCOLL_SPIN asks: the period of the liveness checks,
 * which only the yielding loop makes (a dead peer must fail the wait within moments). */
#define SPIN_MAX 0.05

/* Seconds a wait asked to spin `spin` seconds spins: SPIN_MAX at most, SPIN_SHARED at most while
 * another thread of this process waits too (the waiting threads counted, this one included). */
static double spin_limit(double spin) {
    if (spin > SPIN_MAX) spin = SPIN_MAX;
    const int alone = atomic_load_explicit(&waiting_threads, memory_order_relaxed) == 1;
    return alone || spin < SPIN_SHARED ? spin : SPIN_SHARED;
}

/* Polls `flag` with pause for up to `spin` seconds from now (see spin_limit): 1 once it holds
 * `value` or more, else 0. */
static int spin_on(const shmcoll_flag_t *flag, uint64_t value, double spin) {
    if (spin <= 0) return 0;
    const double start = shmcoll_shm_now();
    for (unsigned long i = 1;; i++) {
        shmcoll_cpu_relax();
        if (shmcoll_flag_load(flag) >= value) return 1;
        if (i % SPIN_CLOCK_POLLS == 0 && shmcoll_shm_now() - start >= spin_limit(spin)) return 0;
    }
}

/* After the spin: yields (or sleeps) between polls, and checks on the peer and the deadline. */
static shmcoll_status_t yield_on(const shmcoll_flag_t *flag, uint64_t value, int peer,
                                 const shmcoll_waiter_t *waiter) {
    const double start = shmcoll_shm_now();
    double last_check = start, last_progress = start;
    /* Past sleep_after: sleep in slices instead of yielding (at once when it is 0). */
    int asleep = waiter->sleepers && waiter->sleep_after == 0;
    for (unsigned long polls = 1;; polls++) {
        if (asleep) {
            const uint64_t seen = shmcoll_flag_load(flag);
            if (seen >= value) return SHMCOLL_OK;
            shmcoll_sleep_block_t *sleepers =
                (shmcoll_sleep_block_t *)((char *)waiter->sleepers +
                                          (size_t)peer * waiter->sleepers_stride);
            shmcoll_shm_sleep_on(flag, seen, sleepers, SLEEP_SLICE);
        } else {
            sched_yield();
        }
        if (shmcoll_flag_load(flag) >= value) return SHMCOLL_OK;
        if (!asleep && polls % 16) continue;
        double t = shmcoll_shm_now();
        if (!asleep && waiter->sleepers && waiter->sleep_after >= 0 &&
            t - start >= waiter->sleep_after)
            asleep = 1;
        if (waiter->progress && t - last_progress > 1e-3) {
            waiter->progress(waiter->progress_ctx);
            last_progress = t;
            if (shmcoll_flag_load(flag) >= value) return SHMCOLL_OK;
        }
        if (t - last_check > 0.05) {
            last_check = t;
            shmcoll_status_t status = waiter->check ? waiter->check(waiter->check_ctx, peer, 0)
                                                    : check_peer(waiter, peer);
            if (status != SHMCOLL_OK) return status;
        }
        if (t - start > waiter->timeout) return timed_out(waiter, peer, t - start);
    }
}

shmcoll_status_t shmcoll_shm_wait_slow(const shmcoll_flag_t *flag, uint64_t value, int peer,
                                       const shmcoll_waiter_t *waiter) {
    /* A short wait (most of a small call's) ends here, without the clock or the counter: with the
     * counter's two atomic operations in every wait, Open MPI's allreduce of 256 B-2 KiB ran
     * 11-15% slower (p = 2, OSU-style, 4 rounds alternated). */
    for (int i = 0; i < SPIN_CLOCK_POLLS && waiter->spin > 0; i++) {
        shmcoll_cpu_relax();
        if (shmcoll_flag_load(flag) >= value) return SHMCOLL_OK;
    }
    waiting_begin();
    const shmcoll_status_t status =
        spin_on(flag, value, waiter->spin) ? SHMCOLL_OK : yield_on(flag, value, peer, waiter);
    waiting_end();
    return status;
}

/* ---- Paced loops --------------------------------------------------------------------------- */

/* The least spin of the process's teams (shmcoll_shm_pace_spin), in seconds; negative before the
 * first team. */
static _Atomic double pace_spin = -1;

/* Pauses between two polls while spinning: a poll of the MPI library's requests or a progress
 * pass costs some hundreds of nanoseconds, more than a flag's. */
#define PACE_RELAX 16

void shmcoll_shm_pace_spin(double spin) {
    double seen = atomic_load_explicit(&pace_spin, memory_order_relaxed);
    while ((seen < 0 || spin < seen) &&
           !atomic_compare_exchange_weak_explicit(&pace_spin, &seen, spin, memory_order_relaxed,
                                                  memory_order_relaxed)) {
    }
}

void shmcoll_shm_pace(shmcoll_shm_pace_t *pace) {
    const double spin = atomic_load_explicit(&pace_spin, memory_order_relaxed);
    if (spin > 0) {
        const double now = shmcoll_shm_now();
        if (!pace->counted) {
            pace->counted = 1;
            pace->start = now;
            waiting_begin();
        }
        if (now - pace->start < spin_limit(spin)) {
            for (int i = 0; i < PACE_RELAX; i++) shmcoll_cpu_relax();
            return;
        }
    }
    sched_yield();
}

void shmcoll_shm_pace_end(shmcoll_shm_pace_t *pace) {
    if (pace->counted) waiting_end();
    pace->counted = 0;
}
