/* The receiving half of a round of allgather, gather and alltoall: copy piece `round` of every
 * other member's block out of its slot, visiting members from the collector's right-hand
 * neighbour on, so that at any moment the readers of a round spread over different sources
 * (KNEM-coll's rotated schedule). */
#include "coll/coll_internal.h"

/* The i-th member to the right of this one, without a division per member. */
static inline int right(const shmcoll_channel_t *ch, int i) {
    return ch->rank + i < ch->size ? ch->rank + i : ch->rank + i - ch->size;
}

shmcoll_status_t shmcoll_coll_collect_round(shmcoll_task_t *task, coll_collect_t *c, uint64_t step,
                                            shmcoll_slot_t slot, size_t slot_offset,
                                            const coll_bytes_t *blocks, size_t round, size_t piece,
                                            char *recvbuf) {
    shmcoll_channel_t *ch = task->ch;
    SHMCOLL_RESUME_BEGIN(&c->pc);
    for (c->i = 1; c->i < ch->size; c->i++) {
        if (!coll_round_bytes(coll_bytes_count(blocks, right(ch, c->i)), round, piece)) continue;
        SHMCOLL_AWAIT(task, &c->pc,
                      shmcoll_channel_test_post(ch, right(ch, c->i), step, &task->wait));
        const int q = right(ch, c->i);
        const size_t at =
            slot_offset == COLL_READER_PIECE ? coll_other_index(ch->rank, q) * piece : slot_offset;
        coll_copy_out(task, recvbuf + coll_bytes_displ(blocks, q) + round * piece,
                      (const char *)coll_slot(ch, q, step, slot) + at,
                      coll_round_bytes(coll_bytes_count(blocks, q), round, piece));
    }
    SHMCOLL_RESUME_END(&c->pc);
}
