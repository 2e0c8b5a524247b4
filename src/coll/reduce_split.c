/* Split reduction for large messages, pipelined in chunks.
 *
 * Per chunk, two steps:
 *   step 1  every member copies its chunk of input into its own buffer and posts;
 *   step 2  the chunk is cut into p parts (cache-line aligned); member j folds part j of all p
 *           buffers, in rank order, into its other buffer and posts; then every member that needs
 *           the result (all for allreduce, the root for reduce) copies the p reduced parts out.
 * The reduction work is spread over all members instead of replicated, each element is reduced
 * exactly once (so allreduce results are identical everywhere), and the two buffer parities let
 * the copy-in of chunk k+1 overlap the copy-out of chunk k on other members. The shared working
 * set is 2 * p * chunk, independent of the message size. */
#include "coll/coll_internal.h"

shmcoll_status_t shmcoll_coll_reduce_split(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                           size_t count, const shmcoll_reduce_op_t *op, int root) {
    shmcoll_channel_t *ch = &team->channel;
    const int me = ch->rank, p = ch->size;
    const size_t per_chunk = ch->chunk / op->extent;
    if (per_chunk == 0) return SHMCOLL_ERR_NOT_SUPPORTED; /* an element larger than a buffer */
    const char *input = sendbuf ? sendbuf : recvbuf;
    const int wants_result = root == COLL_ALL || root == me;
    coll_declare_working_set(team, 2 * shmcoll_reduce_op_span(op, count),
                             shmcoll_reduce_op_span(op, count));

    for (size_t first = 0; first < count; first += per_chunk) {
        const size_t n = count - first < per_chunk ? count - first : per_chunk;
        const coll_blocks_t parts = coll_blocks_equal(op, n, p);

        const uint64_t in_step = shmcoll_channel_next_step(ch);
        SHMCOLL_CHECK(shmcoll_channel_claim(ch, in_step));
        coll_copy(team, shmcoll_channel_buffer(ch, me, in_step), input + first * op->extent,
                  shmcoll_reduce_op_span(op, n));
        shmcoll_channel_post(ch, in_step);

        const uint64_t out_step = shmcoll_channel_next_step(ch);
        SHMCOLL_CHECK(shmcoll_channel_claim(ch, out_step));
        size_t lo, len;
        coll_block(&parts, me, &lo, &len);
        if (len) {
            SHMCOLL_CHECK(shmcoll_channel_wait_all(ch, in_step));
            coll_fold_slots(team, op, in_step, 0, lo * op->extent, len,
                            shmcoll_channel_buffer(ch, me, out_step));
        }
        shmcoll_channel_ack(ch, in_step);
        shmcoll_channel_post(ch, out_step);

        if (wants_result) {
            char *out = (char *)recvbuf + first * op->extent;
            for (int r = 0; r < p; r++) {
                size_t rlo, rlen;
                coll_block(&parts, r, &rlo, &rlen);
                if (!rlen) continue;
                SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, r, out_step));
                coll_copy_out(team, out + rlo * op->extent, shmcoll_channel_buffer(ch, r, out_step),
                              shmcoll_reduce_op_span(op, rlen));
            }
        }
        shmcoll_channel_ack(ch, out_step);
    }
    return SHMCOLL_OK;
}
