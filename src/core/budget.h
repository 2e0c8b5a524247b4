/* The process's shared-memory budget (SHMCOLL_SHM_BUDGET): what all the teams of this process may
 * hold together, so that the memory a job pays stays bounded whatever the number of its
 * communicators.
 *
 * A team costs each member its share of the segment (segment bytes / members, the part of the
 * node's memory it stands for) plus a fixed charge for the team's private state. A member takes a
 * grant from its budget before team creation (at most what the team would cost at the configured
 * chunk), the members agree on the smallest grant (core/team.c), the team shrinks its chunk to fit
 * it, and each member gives back what the team does not use; the team gives the rest back when
 * destroyed. Counters say what the budget did, for SHMCOLL_STATS and shmcoll-info. */
#ifndef SHMCOLL_CORE_BUDGET_H
#define SHMCOLL_CORE_BUDGET_H

#include <stddef.h>
#include <stdint.h>

/* Charged per team besides its share of the segment: the team, its lanes' scratch, its places,
 * hierarchies and selection tables (measured: 9-12 KiB at p = 2 to 4). */
#define SHMCOLL_BUDGET_TEAM_CHARGE ((size_t)16 << 10)

/* What one member of a team of `size` members pays for a segment of `segment_bytes`. */
size_t shmcoll_budget_cost(size_t segment_bytes, int size);

/* Takes up to `want` bytes from the budget (atomically, so threads creating teams at once never
 * overdraw it): returns what was granted, which may be less, or 0. */
size_t shmcoll_budget_take(size_t want);

/* Returns `bytes` taken before. */
void shmcoll_budget_give(size_t bytes);

/* What happened to a team, for the counters. */
typedef enum shmcoll_budget_event {
    SHMCOLL_BUDGET_MADE,    /* a team was made (and holds what it kept of its grant) */
    SHMCOLL_BUDGET_SHRUNK,  /* ... with a smaller chunk than configured, to fit */
    SHMCOLL_BUDGET_REFUSED, /* no team: some member's budget was spent */
    SHMCOLL_BUDGET_ENDED,   /* a team was destroyed */
} shmcoll_budget_event_t;

void shmcoll_budget_note(shmcoll_budget_event_t event);

typedef struct shmcoll_budget_usage {
    uint64_t limit;   /* SHMCOLL_SHM_BUDGET */
    uint64_t held;    /* held now by live teams and kept segments (core/team_pool.h) */
    uint64_t peak;    /* the most ever held at once */
    uint64_t teams;   /* live teams */
    uint64_t shrunk;  /* teams made with a smaller chunk to fit */
    uint64_t refused; /* teams not made: the budget was spent */
} shmcoll_budget_usage_t;

shmcoll_budget_usage_t shmcoll_budget_usage(void);

#endif
