/* Flat barrier: every member posts the step, then waits until all others have posted it.
 * One flag write per member and one read of every other member's flag; at p = 2 it is a single
 * cache-line round trip. Flags only grow, so nothing is reset and the next collective can start
 * while slower members still read. */
#include "coll/coll_internal.h"

shmcoll_status_t shmcoll_coll_barrier_flat(shmcoll_team_t *team) {
    shmcoll_channel_t *ch = &team->channel;
    const uint64_t step = shmcoll_channel_next_step(ch);
    shmcoll_channel_post(ch, step);
    SHMCOLL_CHECK(shmcoll_channel_wait_all(ch, step));
    shmcoll_channel_ack(ch, step);
    return SHMCOLL_OK;
}
