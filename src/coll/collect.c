/* The receiving half of a round of allgather, gather and alltoall: copy piece `round` of every
 * other member's block out of its slot, visiting members from the collector's right-hand
 * neighbour on, so that at any moment the readers of a round spread over different sources
 * (KNEM-coll's rotated schedule). */
#include "coll/coll_internal.h"

shmcoll_status_t shmcoll_coll_collect_round(shmcoll_team_t *team, uint64_t step, int use_inline,
                                            size_t slot_offset, const coll_bytes_t *blocks,
                                            size_t round, size_t piece, char *recvbuf) {
    shmcoll_channel_t *ch = &team->channel;
    for (int i = 1; i < ch->size; i++) {
        const int q = (ch->rank + i) % ch->size;
        const size_t n = coll_round_bytes(coll_bytes_count(blocks, q), round, piece);
        if (!n) continue;
        SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, q, step));
        coll_copy_out(team, recvbuf + coll_bytes_displ(blocks, q) + round * piece,
                      (const char *)coll_slot(ch, q, step, use_inline) + slot_offset, n);
    }
    return SHMCOLL_OK;
}
