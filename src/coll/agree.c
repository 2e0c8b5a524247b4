/* Agreement on a number in one step, for collectives whose length only some members know
 * (gatherv, scatterv: the root; alltoallv: each member knows its own blocks). The number rides in
 * the inline area of the post flag, so it costs one cache-line transfer per reader. */
#include "coll/coll_internal.h"

#include <string.h>

shmcoll_status_t shmcoll_coll_agree_max(shmcoll_team_t *team, uint64_t mine, int root,
                                        uint64_t *result) {
    shmcoll_channel_t *ch = &team->channel;
    const uint64_t step = shmcoll_channel_next_step(ch);
    const int publishes = root == COLL_ALL || root == ch->rank;
    if (publishes) {
        SHMCOLL_CHECK(shmcoll_channel_claim(ch, step));
        memcpy(shmcoll_channel_inline(ch, ch->rank, step), &mine, sizeof mine);
    }
    shmcoll_channel_post(ch, step);
    *result = mine;
    for (int r = 0; r < ch->size; r++) {
        if (r == ch->rank || (root != COLL_ALL && r != root)) continue;
        SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, r, step));
        uint64_t theirs;
        memcpy(&theirs, shmcoll_channel_inline(ch, r, step), sizeof theirs);
        *result = root == COLL_ALL && *result > theirs ? *result : theirs;
    }
    shmcoll_channel_ack(ch, step);
    return SHMCOLL_OK;
}
