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

typedef struct part_plan {
    size_t per_part; /* elements per part, a multiple of the alignment */
} part_plan_t;

static size_t part_lo(const part_plan_t *plan, int r, size_t n) {
    size_t lo = (size_t)r * plan->per_part;
    return lo < n ? lo : n;
}

static size_t part_hi(const part_plan_t *plan, int r, size_t n) {
    size_t hi = part_lo(plan, r, n) + plan->per_part;
    return hi < n ? hi : n;
}

/* Parts start on cache-line boundaries where the element size allows it, so no two members write
 * the same line of their outputs' neighbours. */
static part_plan_t plan_parts(const shmcoll_reduce_op_t *op, size_t n, int p) {
    size_t align = (op->extent <= 64 && 64 % op->extent == 0) ? 64 / op->extent : 1;
    size_t per = (n + (size_t)p - 1) / (size_t)p;
    per = (per + align - 1) / align * align;
    return (part_plan_t){.per_part = per ? per : 1};
}

shmcoll_status_t shmcoll_coll_reduce_split(shmcoll_team_t *team, const void *sendbuf,
                                           void *recvbuf, size_t count,
                                           const shmcoll_reduce_op_t *op, int root) {
    shmcoll_channel_t *ch = &team->channel;
    const int me = ch->rank, p = ch->size;
    const size_t per_chunk = ch->chunk / op->extent;
    if (per_chunk == 0) return SHMCOLL_ERR_NOT_SUPPORTED; /* an element larger than a buffer */
    const char *input = sendbuf ? sendbuf : recvbuf;
    const int wants_result = root == COLL_ALL || root == me;

    for (size_t first = 0; first < count; first += per_chunk) {
        const size_t n = count - first < per_chunk ? count - first : per_chunk;
        const part_plan_t plan = plan_parts(op, n, p);

        const uint64_t in_step = shmcoll_channel_next_step(ch);
        SHMCOLL_CHECK(shmcoll_channel_claim(ch, in_step));
        coll_copy(team, shmcoll_channel_buffer(ch, me, in_step), input + first * op->extent,
                  shmcoll_reduce_op_span(op, n));
        shmcoll_channel_post(ch, in_step);

        const uint64_t out_step = shmcoll_channel_next_step(ch);
        SHMCOLL_CHECK(shmcoll_channel_claim(ch, out_step));
        const size_t lo = part_lo(&plan, me, n), hi = part_hi(&plan, me, n);
        if (hi > lo) {
            SHMCOLL_CHECK(shmcoll_channel_wait_all(ch, in_step));
            coll_fold_slots(team, op, in_step, 0, lo * op->extent, hi - lo,
                            shmcoll_channel_buffer(ch, me, out_step));
        }
        shmcoll_channel_ack(ch, in_step);
        shmcoll_channel_post(ch, out_step);

        if (wants_result) {
            char *out = (char *)recvbuf + first * op->extent;
            for (int r = 0; r < p; r++) {
                const size_t rlo = part_lo(&plan, r, n), rhi = part_hi(&plan, r, n);
                if (rhi == rlo) continue;
                SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, r, out_step));
                coll_copy(team, out + rlo * op->extent, shmcoll_channel_buffer(ch, r, out_step),
                          shmcoll_reduce_op_span(op, rhi - rlo));
            }
        }
        shmcoll_channel_ack(ch, out_step);
    }
    return SHMCOLL_OK;
}
