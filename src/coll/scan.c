/* Inclusive and exclusive scan, pipelined in chunks.
 *
 * Per chunk, one step: every member copies its chunk into its own slot (the inline area for
 * payloads of at most 64 bytes) and posts; member r then folds the slots of members 0..r (scan)
 * or 0..r-1 (exscan) in rank order straight into its receive buffer. One synchronisation per
 * chunk and the canonical order MPI requires for these order-dependent operations. */
#include "coll/coll.h"
#include "coll/coll_internal.h"

static shmcoll_status_t scan_chunks(shmcoll_team_t *team, const char *input, char *recvbuf,
                                    size_t count, const shmcoll_reduce_op_t *op, int inclusive) {
    shmcoll_channel_t *ch = &team->channel;
    const int me = ch->rank;
    const int members = inclusive ? me + 1 : me;
    const size_t total = shmcoll_reduce_op_span(op, count);
    const int use_inline = total <= SHMCOLL_INLINE_BYTES;
    const size_t per_chunk = use_inline ? count : ch->chunk / op->extent;
    if (per_chunk == 0) return SHMCOLL_ERR_NOT_SUPPORTED;
    for (size_t first = 0; first < count; first += per_chunk) {
        const size_t n = count - first < per_chunk ? count - first : per_chunk;
        const uint64_t step = shmcoll_channel_next_step(ch);
        SHMCOLL_CHECK(shmcoll_channel_claim(ch, step));
        coll_copy(team, (void *)coll_slot(ch, me, step, use_inline), input + first * op->extent,
                  shmcoll_reduce_op_span(op, n));
        shmcoll_channel_post(ch, step);
        for (int r = 0; r < members; r++)
            if (r != me) SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, r, step));
        if (members > 0)
            coll_fold_first(team, op, step, use_inline, 0, n, members,
                            recvbuf + first * op->extent);
        shmcoll_channel_ack(ch, step);
    }
    return SHMCOLL_OK;
}

static shmcoll_status_t scan_any(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                 size_t count, const shmcoll_reduce_op_t *op, int inclusive) {
    shmcoll_status_t status = coll_begin(team, inclusive ? "scan" : "exscan");
    if (status != SHMCOLL_OK) return status;
    if (count == 0) return coll_end(team, SHMCOLL_OK, "none");
    status = scan_chunks(team, sendbuf ? sendbuf : recvbuf, recvbuf, count, op, inclusive);
    return coll_end(team, status, "flat");
}

shmcoll_status_t shmcoll_scan(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                              size_t count, const shmcoll_reduce_op_t *op) {
    return scan_any(team, sendbuf, recvbuf, count, op, 1);
}

shmcoll_status_t shmcoll_exscan(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                size_t count, const shmcoll_reduce_op_t *op) {
    return scan_any(team, sendbuf, recvbuf, count, op, 0);
}
