/* Waiting on a shared flag, never past a dead peer.
 *
 * Spin with pause for a while (the peer is usually running on another core and about to write):
 * SHMCOLL_SPIN, a time rather than a number of polls (a pause takes 10 to 140 cycles on the CPUs
 * of today), long enough to cover most waits inside a large call. A rank that yields while
 * another job's process is runnable on its core gives the core away for that process's time
 * slice, milliseconds, where the MPI library's rank polls on and keeps it (the MPI libraries poll
 * without yielding unless oversubscribed): beside one busy process, 52 us of polls made 1-4 MiB
 * calls lose up to 3x against the MPI library's (docs/ARCHITECTURE.md, "Waiting"). Then
 * sched_yield between polls — at once when the node has more ranks than CPUs, since then the
 * peer we wait for may need our CPU — and, in such a team, once the wait has lasted a while,
 * sleep on the flag until its writer wakes us (shm/sleep.h). Every wait checks that the peer it
 * waits for is alive, so a dead peer becomes an error naming it, never a hang. A live peer is
 * waited for as long as it takes unless SHMCOLL_TIMEOUT sets a deadline: a rank that computes or
 * writes a checkpoint for an hour before the collective the others wait in is a legal program,
 * and the MPI library waits for it too. */
#ifndef SHMCOLL_SHM_WAIT_H
#define SHMCOLL_SHM_WAIT_H

#include "base/status.h"
#include "shm/flag.h"
#include "shm/sleep.h"

#include <stddef.h>
#include <sys/types.h>

typedef struct shmcoll_waiter {
    double timeout;              /* seconds */
    double spin;                 /* seconds of polling before yielding */
    const pid_t *pids;           /* pid of every team member, for the liveness check */
    const char *op;              /* name of the running collective, for messages */
    void (*progress)(void *ctx); /* run every millisecond or so while yielding (may be NULL) */
    void *progress_ctx;
    /* Called every 50 ms while yielding (timed_out 0) and once at the deadline (timed_out 1):
     * a status other than OK ends the wait with it (the message written to `error`). It lets
     * the owner of the flags look at the whole team: whether another member already gave up,
     * and which member is the one that is stuck. NULL: only the waited-for peer's liveness and
     * the deadline are checked. */
    shmcoll_status_t (*check)(void *ctx, int peer, int timed_out);
    void *check_ctx;
    char *error; /* where a failure message goes */
    size_t error_len;
    /* Sleeping (shm/sleep.h): after yielding this many seconds a waiter sleeps on the flag
     * until its writer wakes it; negative: never (a team with a CPU per member). The counter of
     * sleepers on member r's flags is at (char *)sleepers + r * sleepers_stride. */
    double sleep_after;
    shmcoll_sleep_block_t *sleepers;
    size_t sleepers_stride;
} shmcoll_waiter_t;

/* What a non-waiting test leaves behind when its flag is not yet set: the flag, the value it
 * must reach and the peer that writes it. A blocking driver then waits on exactly this flag
 * (shmcoll_shm_wait_geq), a non-blocking one tests again later. */
typedef struct shmcoll_wait {
    const shmcoll_flag_t *flag;
    uint64_t value;
    int peer;
} shmcoll_wait_t;

/* OK when *flag >= value; else IN_PROGRESS with the flag recorded in *w. Never waits. */
static inline shmcoll_status_t shmcoll_shm_test_geq(const shmcoll_flag_t *flag, uint64_t value,
                                                    int peer, shmcoll_wait_t *w) {
    if (shmcoll_flag_load(flag) >= value) return SHMCOLL_OK;
    w->flag = flag;
    w->value = value;
    w->peer = peer;
    return SHMCOLL_IN_PROGRESS;
}

/* The checks a waiting member makes now and then, for callers that do not wait here but test
 * again later (non-blocking progress): whether the peer behind `w` is alive and whether another
 * member gave up (the waiter's check), and whether `waited` seconds exceed the timeout. OK, or
 * the failure with its message in waiter->error. */
shmcoll_status_t shmcoll_shm_wait_check(const shmcoll_wait_t *w, const shmcoll_waiter_t *waiter,
                                        double waited);

/* Seconds on a monotonic clock. */
double shmcoll_shm_now(void);

/* Slow path of shmcoll_wait_geq. */
shmcoll_status_t shmcoll_shm_wait_slow(const shmcoll_flag_t *flag, uint64_t value, int peer,
                                       const shmcoll_waiter_t *waiter);

/* Wait until *flag >= value; `peer` is the rank that writes the flag (named in errors). */
static inline shmcoll_status_t shmcoll_shm_wait_geq(const shmcoll_flag_t *flag, uint64_t value,
                                                    int peer, const shmcoll_waiter_t *waiter) {
    if (shmcoll_flag_load(flag) >= value) return SHMCOLL_OK;
    return shmcoll_shm_wait_slow(flag, value, peer, waiter);
}

/* Pacing of a loop that polls what it cannot wait for as one flag: shmcoll's operations of
 * several teams and the MPI library's requests (MPI_Waitall and its kin), a network step across
 * nodes. Between two polls it pauses, as shmcoll_shm_wait_geq spins, for the process's spin from
 * its first pause on (its teams' least, 0 once one has more members than CPUs; 50 us while another
 * thread of the process waits too), then yields. Yielding at once, such a loop gave its
 * core away to another job's runnable process for that process's time slice: beside one
 * CPU-bound process, an MPI_Waitall of an 8-byte MPI_Iallreduce and an MPI_Ibcast took 1.1-1.3 ms
 * a step against 0.9-2.9 us (Open MPI, p = 2; docs/ARCHITECTURE.md, "Waiting"). Zeroed before
 * the loop, ended after it (shmcoll_shm_pace_end) on every way out. */
typedef struct shmcoll_shm_pace {
    double start; /* the first pause's time */
    int counted;  /* counted among the process's waiting threads since then */
} shmcoll_shm_pace_t;

/* Between two polls of a paced loop. */
void shmcoll_shm_pace(shmcoll_shm_pace_t *pace);

/* After a paced loop. */
void shmcoll_shm_pace_end(shmcoll_shm_pace_t *pace);

/* A team's spin, in seconds: paced loops spin the least of those given (0: yield at once). */
void shmcoll_shm_pace_spin(double spin);

/* 1 if process `pid` exists and is not a zombie. */
int shmcoll_shm_process_alive(pid_t pid);

#endif
