#include "shm/channel.h"

#include <stdlib.h>
#include <string.h>

static size_t ctrl_bytes(int size) {
    size_t bytes = (size_t)size * sizeof(shmcoll_member_ctrl_t);
    return (bytes + 4095) & ~(size_t)4095; /* data buffers start on a page */
}

size_t shmcoll_channel_segment_bytes(int size, size_t chunk) {
    return ctrl_bytes(size) + (size_t)size * 2 * chunk;
}

shmcoll_status_t shmcoll_channel_init(shmcoll_channel_t *ch, void *base, int rank, int size,
                                      size_t chunk) {
    memset(ch, 0, sizeof *ch);
    ch->rank = rank;
    ch->size = size;
    ch->ctrl = base;
    ch->data = (uint8_t *)base + ctrl_bytes(size);
    ch->chunk = chunk;
    ch->peer_done = calloc((size_t)size, sizeof *ch->peer_done);
    return ch->peer_done ? SHMCOLL_OK : SHMCOLL_ERR_NO_MEMORY;
}

void shmcoll_channel_fini(shmcoll_channel_t *ch) {
    free(ch->peer_done);
    ch->peer_done = NULL;
}

void shmcoll_channel_first_touch(shmcoll_channel_t *ch) {
    memset(&ch->ctrl[ch->rank], 0, sizeof ch->ctrl[ch->rank]);
    memset(shmcoll_channel_buffer(ch, ch->rank, 0), 0, 2 * ch->chunk);
}

static shmcoll_status_t wait_done(shmcoll_channel_t *ch, int r, uint64_t need) {
    if (r == ch->rank || ch->peer_done[r] >= need) return SHMCOLL_OK;
    SHMCOLL_CHECK(shmcoll_shm_wait_geq(&ch->ctrl[r].ack.step, need, r, &ch->waiter));
    ch->peer_done[r] = shmcoll_flag_load(&ch->ctrl[r].ack.step);
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_channel_claim(shmcoll_channel_t *ch, uint64_t step) {
    if (step <= 2) return SHMCOLL_OK;
    for (int r = 0; r < ch->size; r++) SHMCOLL_CHECK(wait_done(ch, r, step - 2));
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_channel_claim_one(shmcoll_channel_t *ch, uint64_t step, int reader) {
    return step <= 2 ? SHMCOLL_OK : wait_done(ch, reader, step - 2);
}

shmcoll_status_t shmcoll_channel_wait_all(shmcoll_channel_t *ch, uint64_t step) {
    for (int r = 0; r < ch->size; r++)
        if (r != ch->rank) SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, r, step));
    return SHMCOLL_OK;
}
