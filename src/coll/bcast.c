/* Pipelined broadcast through the root's single-writer slots.
 *
 * The root copies the message chunk by chunk into its two buffers (or the 64-byte inline area of
 * its post flag for tiny messages) and posts each chunk; every other member copies the chunk out
 * and acknowledges. With two buffer parities the root fills chunk k+1 while the others still read
 * chunk k, so root and readers copy concurrently and the segment never grows with the message. */
#include "coll/coll_internal.h"

shmcoll_status_t shmcoll_coll_bcast_pipeline(shmcoll_team_t *team, void *buffer, size_t bytes,
                                             int root) {
    char *buf = buffer;
    shmcoll_channel_t *ch = &team->channel;
    const int use_inline = bytes <= SHMCOLL_INLINE_BYTES;
    const size_t piece = use_inline ? SHMCOLL_INLINE_BYTES : ch->chunk;
    coll_declare_working_set(team, 2 * bytes, bytes); /* YHCCL Algorithm 3 */
    for (size_t offset = 0; offset < bytes; offset += piece) {
        const size_t n = bytes - offset < piece ? bytes - offset : piece;
        const uint64_t step = shmcoll_channel_next_step(ch);
        void *slot = (void *)coll_slot(ch, root, step, use_inline);
        if (ch->rank == root) {
            SHMCOLL_CHECK(shmcoll_channel_claim(ch, step));
            coll_copy(team, slot, buf + offset, n);
            shmcoll_channel_post(ch, step);
        } else {
            SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, root, step));
            coll_copy_out(team, buf + offset, slot, n);
        }
        shmcoll_channel_ack(ch, step);
    }
    return SHMCOLL_OK;
}
