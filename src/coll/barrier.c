/* Flat barrier: every member posts the step, then waits until all others have posted it.
 * One flag write per member and one read of every other member's flag; at p = 2 it is a single
 * cache-line round trip. Flags only grow, so nothing is reset and the next collective can start
 * while slower members still read. */
#include "coll/coll.h"
#include "coll/coll_internal.h"

shmcoll_status_t shmcoll_barrier(shmcoll_team_t *team) {
    shmcoll_status_t status = coll_begin(team, "barrier");
    if (status != SHMCOLL_OK) return status;
    shmcoll_channel_t *ch = &team->channel;
    const uint64_t step = shmcoll_channel_next_step(ch);
    shmcoll_channel_post(ch, step);
    status = shmcoll_channel_wait_all(ch, step);
    if (status == SHMCOLL_OK) shmcoll_channel_ack(ch, step);
    return coll_end(team, status, "flat");
}
