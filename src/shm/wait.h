/* Bounded waiting on a shared flag.
 *
 * Spin with pause for a while (the peer is usually running on another core and about to write),
 * then sched_yield between polls — at once when the node has more ranks than CPUs, since then the
 * peer we wait for may need our CPU. Every wait has a deadline (SHMCOLL_TIMEOUT) and checks that
 * the peer it waits for is alive, so a dead or stopped peer becomes an error naming it, never a
 * hang. */
#ifndef SHMCOLL_SHM_WAIT_H
#define SHMCOLL_SHM_WAIT_H

#include "core/status.h"
#include "shm/flag.h"

#include <stddef.h>
#include <sys/types.h>

typedef struct shmcoll_waiter {
    double timeout;              /* seconds */
    long spin;                   /* polls before yielding */
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
} shmcoll_waiter_t;

/* Slow path of shmcoll_wait_geq. */
shmcoll_status_t shmcoll_shm_wait_slow(const shmcoll_flag_t *flag, uint64_t value, int peer,
                                       const shmcoll_waiter_t *waiter);

/* Wait until *flag >= value; `peer` is the rank that writes the flag (named in errors). */
static inline shmcoll_status_t shmcoll_shm_wait_geq(const shmcoll_flag_t *flag, uint64_t value,
                                                    int peer, const shmcoll_waiter_t *waiter) {
    if (shmcoll_flag_load(flag) >= value) return SHMCOLL_OK;
    return shmcoll_shm_wait_slow(flag, value, peer, waiter);
}

/* 1 if process `pid` exists and is not a zombie. */
int shmcoll_shm_process_alive(pid_t pid);

#endif
