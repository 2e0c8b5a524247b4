/* Kept segments: a freed team's segment, still mapped, for the next team of the same processes.
 *
 * A team's setup that creates its segment costs far more than the rest of it: the creator
 * reserves every page (posix_fallocate), every member faults its part in, and the last unmap
 * frees the pages again. With the default 256 KiB chunk that was 1.1-1.6 ms per communicator at
 * p = 2, against some 20 us for the MPI library's own MPI_Comm_dup and a few collectives: a
 * program that duplicates a communicator for each task (mpi4py's test suite ran 3.5x slower under
 * MPICH with shmcoll preloaded) lost time it never won back.
 *
 * So a member keeps the segment of a team it destroys (unless the team failed), mapped and
 * already unlinked (nothing is left behind if the process dies), up to SHMCOLL_KEEP_SEGMENTS of
 * them, each holding its share of the budget (core/budget.h) until it is used again or let go;
 * a setup that finds the budget short lets the oldest go first. A team's setup offers the kept
 * segments in its first exchange (core/team.c): each member lists what it keeps, with the rank
 * and team size it had there; member 0 takes a segment every member lists at its own rank in a
 * team of the same size and of the size the new team needs. Only the processes of the team that
 * made a segment keep it, each at its own rank, so a segment every member lists at its rank was
 * made by exactly these processes, and each let it go when it destroyed its own team, so no one
 * uses it any more. Each member then clears its own control blocks (shm/channel.h) before the
 * setup's last exchange, as on a new segment; the data buffers need no clearing. A listed
 * segment is reserved until the setup has chosen (another thread's setup neither lists it nor
 * lets it go meanwhile), and lends the setup its budget: the new team's grant pays for it when it
 * is taken, and one not taken takes its budget back, or is let go when the setup spent it. */
#ifndef SHMCOLL_CORE_TEAM_POOL_H
#define SHMCOLL_CORE_TEAM_POOL_H

#include "shm/segment.h"

#include <stddef.h>
#include <stdint.h>

#define SHMCOLL_POOL_OFFERS 4 /* kept segments a member lists in one setup */

/* A kept segment as listed in a setup's exchange; bytes 0: none. */
typedef struct shmcoll_pool_offer {
    uint64_t id[2]; /* the segment's name bits, which tell it from every other */
    uint64_t bytes;
    int32_t rank; /* the lister's rank in the team that made it ... */
    int32_t size; /* ... and that team's size */
} shmcoll_pool_offer_t;

/* Lists and reserves up to SHMCOLL_POOL_OFFERS kept segments, the most recently kept first,
 * giving their budget back for the setup to take. */
void shmcoll_team_pool_offer(shmcoll_pool_offer_t offers[SHMCOLL_POOL_OFFERS]);

/* The index in offers[] (of member 0) of a segment every one of `size` members listed at its own
 * rank in a team of `size` with `bytes` bytes (members' lists `stride` bytes apart from `lists`,
 * each SHMCOLL_POOL_OFFERS long); -1: none. */
int shmcoll_team_pool_match(const shmcoll_pool_offer_t *lists, size_t stride, int size,
                            size_t bytes);

/* Takes the segment of offer `id` (listed by this process) out of the keep: its mapping in *seg
 * (its budget was lent to the setup). 0 when it is not kept. */
int shmcoll_team_pool_take(const uint64_t id[2], shmcoll_segment_t *seg);

/* Ends the reservations of `offers`: those still kept take their budget back, or are let go. */
void shmcoll_team_pool_unreserve(const shmcoll_pool_offer_t offers[SHMCOLL_POOL_OFFERS]);

/* Keeps a destroyed team's segment (unlinked), made under `id`, where this member had `rank` in
 * a team of `size`, holding `budget` of the budget. 0 when it is not kept (SHMCOLL_KEEP_SEGMENTS
 * is 0, or every place is reserved): the caller unmaps it and gives the budget back. */
int shmcoll_team_pool_put(shmcoll_segment_t *seg, const uint64_t id[2], int rank, int size,
                          size_t budget);

/* Lets the oldest unreserved kept segment go (unmapped, its budget given back): 0 when none. */
int shmcoll_team_pool_let_go(void);

/* Lets every unreserved kept segment go (MPI_Finalize). */
void shmcoll_team_pool_drain(void);

#endif
