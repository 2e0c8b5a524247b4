/* Dissemination barrier (Hensgen, Finkel and Manber; Hoefler et al.) over the step protocol.
 *
 * Round j is one step: every member posts it, then waits until member rank - 2^j (mod p) has
 * posted it. After round j a member has heard, transitively, from the 2^(j+1) - 1 members behind
 * it, so after ceil(log2 p) rounds it knows that everybody has arrived. The barrier is folded
 * into the step counters (Jocksch et al., section 3.1): the flags are the post flags every
 * collective uses, they only grow, and nothing is reset, so the next collective may start while
 * slower members still read. Steps and synchronisations: ceil(log2 p), one flag write and one
 * wait per member and round (the flat barrier's p-1 reads of one step become log2 p reads of
 * different steps, so no flag is read by more than one member per round); DAV 0. */
#include "coll/algos_tree.h"
#include "coll/coll_internal.h"
#include "patterns/dissem.h"

shmcoll_status_t shmcoll_coll_barrier_dissem(shmcoll_team_t *team) {
    shmcoll_channel_t *ch = &team->channel;
    const int p = ch->size, me = ch->rank, rounds = shmcoll_pattern_dissem_rounds(p);
    if (rounds == 0) return SHMCOLL_OK;
    uint64_t step = 0;
    for (int j = 0; j < rounds; j++) {
        step = shmcoll_channel_next_step(ch);
        shmcoll_channel_post(ch, step);
        SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, shmcoll_pattern_dissem_from(p, j, me), step));
    }
    shmcoll_channel_ack(ch, step);
    return SHMCOLL_OK;
}
