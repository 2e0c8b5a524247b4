/* Agreement on a number in one step, for collectives whose length only some members know
 * (gatherv, scatterv: the root; alltoallv: each member knows its own blocks). The number, and
 * flags ORed over the members, ride in the inline area of the post flag, so it costs one
 * cache-line transfer per reader. */
#include "coll/coll_internal.h"

#include <string.h>

shmcoll_status_t shmcoll_coll_agree_max(shmcoll_task_t *task, coll_agree_t *a, uint64_t mine,
                                        int root) {
    shmcoll_channel_t *ch = task->ch;
    SHMCOLL_RESUME_BEGIN(&a->pc);
    a->step = shmcoll_channel_next_step(ch);
    a->result = mine;
    if (root == COLL_ALL || root == ch->rank) {
        SHMCOLL_AWAIT(task, &a->pc, shmcoll_channel_test_claim(ch, a->step, &task->wait));
        const uint64_t both[2] = {mine, a->flags};
        memcpy(shmcoll_channel_inline(ch, ch->rank, a->step), both, sizeof both);
    }
    shmcoll_channel_post(ch, a->step);
    for (a->r = 0; a->r < ch->size; a->r++) {
        if (a->r == ch->rank || (root != COLL_ALL && a->r != root)) continue;
        SHMCOLL_AWAIT(task, &a->pc, shmcoll_channel_test_post(ch, a->r, a->step, &task->wait));
        uint64_t theirs[2];
        memcpy(theirs, shmcoll_channel_inline(ch, a->r, a->step), sizeof theirs);
        a->result = root == COLL_ALL && a->result > theirs[0] ? a->result : theirs[0];
        a->flags = root == COLL_ALL ? a->flags | theirs[1] : theirs[1];
    }
    shmcoll_channel_ack(ch, a->step);
    SHMCOLL_RESUME_END(&a->pc);
}
