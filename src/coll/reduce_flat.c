/* Flat reduction for small messages: one step, one synchronisation.
 *
 * Every member copies its input into its own slot (the 64-byte inline area of its post flag when
 * it fits, so a reader fetches flag and payload in one cache-line transfer) and posts; then every
 * member that needs the result (all for allreduce, the root for reduce) folds all slots in rank
 * order straight into its receive buffer. The fold is replicated p times, but for small messages
 * a synchronisation costs far more than reading p small slots, and the identical fold order gives
 * bitwise identical allreduce results everywhere. */
#include "coll/coll_internal.h"

shmcoll_status_t shmcoll_coll_reduce_flat(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                          size_t count, const shmcoll_reduce_op_t *op, int root) {
    shmcoll_channel_t *ch = &team->channel;
    const size_t span = shmcoll_reduce_op_span(op, count);
    const int use_inline = span <= SHMCOLL_INLINE_BYTES;
    const void *input = sendbuf ? sendbuf : recvbuf;
    if (span > ch->chunk) return SHMCOLL_ERR_NOT_SUPPORTED;

    const uint64_t step = shmcoll_channel_next_step(ch);
    SHMCOLL_CHECK(shmcoll_channel_claim(ch, step));
    coll_copy(team, (void *)coll_slot(ch, ch->rank, step, use_inline), input, span);
    shmcoll_channel_post(ch, step);
    if (root == COLL_ALL || root == ch->rank) {
        SHMCOLL_CHECK(shmcoll_channel_wait_all(ch, step));
        coll_fold_slots(team, op, step, use_inline, 0, count, recvbuf);
    }
    shmcoll_channel_ack(ch, step);
    return SHMCOLL_OK;
}
