/* Status codes returned by every internal function of shmcoll.
 *
 * SHMCOLL_ERR_NOT_SUPPORTED is not a failure: it tells the MPI layer to hand the call to the MPI
 * library underneath. SHMCOLL_IN_PROGRESS is not one either: a resumable task (core/task.h) or a
 * non-waiting test (shm/wait.h) found a flag not yet set and will be called again. Every other
 * error is a real failure that is reported to the user. */
#ifndef SHMCOLL_BASE_STATUS_H
#define SHMCOLL_BASE_STATUS_H

typedef enum shmcoll_status {
    SHMCOLL_OK = 0,
    SHMCOLL_IN_PROGRESS,       /* not a failure: a task (or a test) is waiting for a peer */
    SHMCOLL_ERR_NOT_SUPPORTED, /* input this code path cannot handle: fall back */
    SHMCOLL_ERR_NO_MEMORY,     /* malloc failed */
    SHMCOLL_ERR_NO_SPACE,      /* the segment directory has no room (ENOSPC at posix_fallocate) */
    SHMCOLL_ERR_SYSTEM,        /* a system call failed; errno-derived message in the log */
    SHMCOLL_ERR_TIMEOUT,       /* a wait exceeded SHMCOLL_TIMEOUT */
    SHMCOLL_ERR_PEER_DEAD,     /* a team member's process no longer exists */
    SHMCOLL_ERR_INVALID,       /* invalid argument or configuration */
    SHMCOLL_ERR_NO_BUDGET,     /* the process's shared-memory budget is spent (core/budget.h) */
} shmcoll_status_t;

const char *shmcoll_status_string(shmcoll_status_t status);

/* Propagate a failing status to the function's single cleanup label. */
#define SHMCOLL_CHECK_GOTO(expr, status_var, label)                                                \
    do {                                                                                           \
        (status_var) = (expr);                                                                     \
        if ((status_var) != SHMCOLL_OK) goto label;                                                \
    } while (0)

/* Returns OK, IN_PROGRESS and failures alike: anything but OK ends the calling function. */
#define SHMCOLL_CHECK(expr)                                                                        \
    do {                                                                                           \
        shmcoll_status_t check_status_ = (expr);                                                   \
        if (check_status_ != SHMCOLL_OK) return check_status_;                                     \
    } while (0)

#endif
