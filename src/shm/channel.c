#include "shm/channel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t ctrl_bytes(int size) {
    size_t bytes = (size_t)size * sizeof(shmcoll_member_ctrl_t);
    return (bytes + 4095) & ~(size_t)4095; /* data buffers start on a page */
}

size_t shmcoll_channel_segment_bytes(int size, size_t chunk) {
    return ctrl_bytes(size) +
           (size_t)size * (2 * chunk + SHMCOLL_EAGER_SLOTS * shmcoll_channel_eager_bytes(chunk));
}

static const char *failure_kind(shmcoll_status_t status) {
    return status == SHMCOLL_ERR_PEER_DEAD ? "died"
           : status == SHMCOLL_ERR_TIMEOUT ? "is stuck or stopped"
                                           : "failed";
}

static shmcoll_status_t publish_failure(shmcoll_channel_t *ch, shmcoll_status_t status,
                                        int culprit) {
    shmcoll_fail_block_t *mine = &ch->ctrl[ch->rank].fail;
    if (!shmcoll_flag_load(&mine->status)) {
        mine->culprit = culprit;
        shmcoll_flag_store(&mine->status, (uint64_t)status); /* release: culprit first */
    }
    return status;
}

shmcoll_status_t shmcoll_channel_fail(shmcoll_channel_t *ch, shmcoll_status_t status, int culprit) {
    return publish_failure(ch, status, culprit);
}

/* The least progressed member other than this one: its latest post or ack is the lowest. */
static int least_progressed(const shmcoll_channel_t *ch, int fallback) {
    int culprit = fallback;
    uint64_t lowest = UINT64_MAX;
    for (int r = 0; r < ch->size; r++) {
        if (r == ch->rank) continue;
        uint64_t seen = shmcoll_flag_load(&ch->ctrl[r].ack.step);
        for (int b = 0; b < SHMCOLL_POST_RING; b++) {
            uint64_t posted = shmcoll_flag_load(&ch->ctrl[r].post[b].step);
            seen = posted > seen ? posted : seen;
        }
        if (seen < lowest || (seen == lowest && r == fallback)) lowest = seen, culprit = r;
    }
    return culprit;
}

static shmcoll_status_t check_team(void *ctx, int peer, int timed_out) {
    shmcoll_channel_t *ch = ctx;
    shmcoll_waiter_t *w = &ch->waiter;
    for (int r = 0; r < ch->size; r++) {
        uint64_t status = r == ch->rank ? 0 : shmcoll_flag_load(&ch->ctrl[r].fail.status);
        if (!status) continue;
        int culprit = ch->ctrl[r].fail.culprit;
        snprintf(w->error, w->error_len, "%s stopped: rank %d (pid %d) %s (reported by rank %d)",
                 w->op, culprit, (int)w->pids[culprit], failure_kind((shmcoll_status_t)status), r);
        return publish_failure(ch, (shmcoll_status_t)status, culprit);
    }
    if (!shmcoll_shm_process_alive(w->pids[peer])) {
        snprintf(w->error, w->error_len, "%s stopped: rank %d (pid %d) died", w->op, peer,
                 (int)w->pids[peer]);
        return publish_failure(ch, SHMCOLL_ERR_PEER_DEAD, peer);
    }
    if (!timed_out) return SHMCOLL_OK;
    int culprit = least_progressed(ch, peer);
    snprintf(w->error, w->error_len,
             "timeout: %s waited %g s (SHMCOLL_TIMEOUT) and rank %d (pid %d) is stuck or "
             "stopped",
             w->op, w->timeout, culprit, (int)w->pids[culprit]);
    return publish_failure(ch, SHMCOLL_ERR_TIMEOUT, culprit);
}

shmcoll_status_t shmcoll_channel_init(shmcoll_channel_t *ch, void *base, int rank, int size,
                                      size_t chunk) {
    memset(ch, 0, sizeof *ch);
    ch->rank = rank;
    ch->size = size;
    ch->ctrl = base;
    ch->data = (uint8_t *)base + ctrl_bytes(size);
    ch->chunk = chunk;
    ch->eager_data = ch->data + (size_t)size * 2 * chunk;
    ch->eager = shmcoll_channel_eager_bytes(chunk);
    ch->peer_done = calloc((size_t)size, sizeof *ch->peer_done);
    ch->waiter.check = check_team;
    ch->waiter.check_ctx = ch;
    shmcoll_channel_set_sleep(ch, -1);
    return ch->peer_done ? SHMCOLL_OK : SHMCOLL_ERR_NO_MEMORY;
}

void shmcoll_channel_set_sleep(shmcoll_channel_t *ch, double seconds) {
    ch->wake = seconds >= 0;
    ch->waiter.sleep_after = seconds;
    ch->waiter.sleepers = &ch->ctrl[0].sleep;
    ch->waiter.sleepers_stride = sizeof(shmcoll_member_ctrl_t);
}

void shmcoll_channel_fini(shmcoll_channel_t *ch) {
    free(ch->peer_done);
    ch->peer_done = NULL;
}

void shmcoll_channel_clear(shmcoll_channel_t *ch) {
    memset(&ch->ctrl[ch->rank], 0, sizeof ch->ctrl[ch->rank]);
}

void shmcoll_channel_writer_spans(int size, size_t chunk, int first, int count, size_t offset[2],
                                  size_t bytes[2]) {
    const size_t slots = SHMCOLL_EAGER_SLOTS * shmcoll_channel_eager_bytes(chunk);
    offset[0] = ctrl_bytes(size) + (size_t)first * 2 * chunk;
    bytes[0] = (size_t)count * 2 * chunk;
    offset[1] = ctrl_bytes(size) + (size_t)size * 2 * chunk + (size_t)first * slots;
    bytes[1] = (size_t)count * slots;
}

/* The eager slots are left to their writer's first use. */
void shmcoll_channel_first_touch(shmcoll_channel_t *ch) {
    shmcoll_channel_clear(ch);
    memset(shmcoll_channel_buffer(ch, ch->rank, 0), 0, 2 * ch->chunk);
}

shmcoll_status_t shmcoll_channel_test_done_by(shmcoll_channel_t *ch, int r, uint64_t need,
                                              shmcoll_wait_t *w) {
    if (r == ch->rank || ch->peer_done[r] >= need) return SHMCOLL_OK;
    SHMCOLL_CHECK(shmcoll_shm_test_geq(&ch->ctrl[r].ack.step, need, r, w));
    ch->peer_done[r] = shmcoll_flag_load(&ch->ctrl[r].ack.step);
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_channel_test_done_slow(shmcoll_channel_t *ch, uint64_t need,
                                                shmcoll_wait_t *w) {
    for (int r = 0; r < ch->size; r++) SHMCOLL_CHECK(shmcoll_channel_test_done_by(ch, r, need, w));
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_channel_test_claim_one(shmcoll_channel_t *ch, uint64_t step, int reader,
                                                shmcoll_wait_t *w) {
    return step <= 2 ? SHMCOLL_OK : shmcoll_channel_test_done_by(ch, reader, step - 2, w);
}

/* The waiting forms: test, wait for the flag the test names, test again. */
#define WAIT_UNTIL(ch, test)                                                                       \
    do {                                                                                           \
        shmcoll_wait_t w_;                                                                         \
        shmcoll_status_t s_;                                                                       \
        while ((s_ = (test)) == SHMCOLL_IN_PROGRESS)                                               \
            SHMCOLL_CHECK(shmcoll_shm_wait_geq(w_.flag, w_.value, w_.peer, &(ch)->waiter));        \
        return s_;                                                                                 \
    } while (0)

shmcoll_status_t shmcoll_channel_claim(shmcoll_channel_t *ch, uint64_t step) {
    return shmcoll_channel_claim_slot(ch, step, SHMCOLL_SLOT_BUFFER);
}

shmcoll_status_t shmcoll_channel_claim_slot(shmcoll_channel_t *ch, uint64_t step,
                                            shmcoll_slot_t slot) {
    WAIT_UNTIL(ch, shmcoll_channel_test_claim_slot(ch, step, slot, &w_));
}

shmcoll_status_t shmcoll_channel_claim_one(shmcoll_channel_t *ch, uint64_t step, int reader) {
    WAIT_UNTIL(ch, shmcoll_channel_test_claim_one(ch, step, reader, &w_));
}

shmcoll_status_t shmcoll_channel_wait_post(shmcoll_channel_t *ch, int rank, uint64_t step) {
    WAIT_UNTIL(ch, shmcoll_channel_test_post(ch, rank, step, &w_));
}

shmcoll_status_t shmcoll_channel_wait_all(shmcoll_channel_t *ch, uint64_t step) {
    WAIT_UNTIL(ch, shmcoll_channel_test_all(ch, step, &w_));
}

void shmcoll_channel_mail_post(shmcoll_channel_t *ch, int box, uint64_t seq,
                               const uint64_t values[SHMCOLL_MAIL_VALUES]) {
    shmcoll_mail_block_t *mine = &ch->ctrl[ch->rank].mail[box][seq & 1];
    memcpy(mine->values, values, sizeof mine->values);
    shmcoll_flag_store(&mine->seq, seq); /* release: the values first */
    if (ch->wake) shmcoll_shm_wake(&mine->seq, &ch->ctrl[ch->rank].sleep);
}

shmcoll_status_t shmcoll_channel_mail_sum(const shmcoll_channel_t *ch, int box, uint64_t seq,
                                          uint64_t sums[SHMCOLL_MAIL_VALUES],
                                          const shmcoll_waiter_t *waiter) {
    memset(sums, 0, SHMCOLL_MAIL_VALUES * sizeof *sums);
    for (int r = 0; r < ch->size; r++) {
        const shmcoll_mail_block_t *theirs = &ch->ctrl[r].mail[box][seq & 1];
        SHMCOLL_CHECK(shmcoll_shm_wait_geq(&theirs->seq, seq, r, waiter)); /* acquire */
        for (int i = 0; i < SHMCOLL_MAIL_VALUES; i++) sums[i] += theirs->values[i];
    }
    return SHMCOLL_OK;
}
