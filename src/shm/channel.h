/* The step protocol: how team members exchange data through the segment.
 *
 * Time is cut into numbered steps that every member walks through in the same order (each
 * collective consumes a number of steps derived from its arguments, so all agree). In step s a
 * member may write its own slot — the 64-byte inline area of its post block s mod
 * SHMCOLL_POST_RING, inside the post flag's line, for tiny payloads, or its chunk-sized buffer of
 * parity s&1 — and then publish post = s in that post block. Readers wait for the writer's post
 * >= s, read, and publish ack = s when done with everything of step s.
 *
 * Reuse: before writing a slot for step s a member "claims" the step: it waits until every other
 * member is done with the previous user of that slot — step s-2 for a buffer (two parities
 * double-buffer: a writer may run one step ahead of its slowest reader, which pipelines chunked
 * transfers), step s-SHMCOLL_POST_RING for an inline area. The ring of inline areas lets the
 * sender of a stream of tiny calls (a gather's non-root, a bcast's root) run up to 15 calls ahead:
 * with two it waited every other call for its reader's acknowledgement, one cache line's round
 * trip between the cores per two calls, which is what a tiny call cost when the two cores were far
 * apart (350-580 ns round trips), twice the MPI library's eager messages that stream ahead.
 *
 * Every member posts step s only after it has finished all steps before s, so seeing post >= s
 * of a peer also proves the peer is done with s-1; members remember that locally (peer_done) and
 * only read ack flags when that knowledge is not enough. In the steady state of small allreduces
 * no ack line crosses the interconnect at all.
 *
 * Eager slots: a stream of calls whose payload outgrows the post block but fits chunk/32 bytes
 * (a gather's or scatter's blocks of 121 B to 8 KiB at the default chunk) takes a ring of
 * SHMCOLL_EAGER_SLOTS slots of its own, the slot of step s being s mod SHMCOLL_EAGER_SLOTS, so its
 * sender claims step s-SHMCOLL_EAGER_SLOTS and runs that many calls ahead, as the MPI library's
 * eager messages do. Through the two buffers it waited every other call for its reader: two
 * processes passing 4 KiB messages on two cores took 0.71-0.74 us a message through two slots,
 * 0.52-0.58 through eight; 1 KiB 0.32 against 0.23-0.26.
 *
 * Memory: per member, SHMCOLL_POST_RING post blocks, one ack block, one failure block (128 B each),
 * two data buffers and the eager slots (a quarter of a buffer's size in all, touched only when
 * used). Each member writes only its own blocks and buffers (single writer).
 *
 * Failures: a wait that times out or finds its peer dead publishes the failure in the member's
 * failure block; every waiter looks at all failure blocks every 50 ms, so one failure ends the
 * collective on every member within moments, all naming the same culprit. A timeout blames the
 * member that has progressed least (the one actually stuck), not merely the one waited for. */
#ifndef SHMCOLL_SHM_CHANNEL_H
#define SHMCOLL_SHM_CHANNEL_H

#include "shm/flag.h"
#include "shm/wait.h"

#include <stddef.h>
#include <stdint.h>

#define SHMCOLL_INLINE_BYTES 64
#define SHMCOLL_POST_RING    16 /* post blocks (with their inline areas) per member; a power of 2 */
#define SHMCOLL_EAGER_SLOTS  8  /* eager slots per member; at most SHMCOLL_POST_RING */

/* Where a step's payload sits in its writer's part of the segment. */
typedef enum shmcoll_slot {
    SHMCOLL_SLOT_BUFFER, /* the data buffer of the step's parity (chunk bytes) */
    SHMCOLL_SLOT_INLINE, /* the post block's inline area (or its whole payload, see below) */
    SHMCOLL_SLOT_EAGER,  /* the eager slot of the step (ch->eager bytes) */
} shmcoll_slot_t;

/* The rest of a post block's two lines: room for what a step publishes beside its inline payload
 * (single-copy's exposed buffer, coll/single_copy.c), so that both fit one step. */
#define SHMCOLL_AUX_BYTES (SHMCOLL_FLAG_ALIGN - sizeof(shmcoll_flag_t) - SHMCOLL_INLINE_BYTES)

typedef struct shmcoll_post_block {
    shmcoll_flag_t step;
    uint8_t inline_data[SHMCOLL_INLINE_BYTES];
    uint8_t aux[SHMCOLL_AUX_BYTES];
} __attribute__((aligned(SHMCOLL_FLAG_ALIGN))) shmcoll_post_block_t;

_Static_assert(sizeof(shmcoll_post_block_t) == SHMCOLL_FLAG_ALIGN, "a post block is two lines");

/* A step that publishes nothing in aux may take the inline area and aux as one payload of the
 * post block's two lines, which its readers fetch with the flag (the inline area already spans
 * both): a block of 65-120 bytes then needs no line of the data buffer. */
#define SHMCOLL_POST_PAYLOAD_BYTES (SHMCOLL_INLINE_BYTES + SHMCOLL_AUX_BYTES)
_Static_assert(offsetof(shmcoll_post_block_t, aux) ==
                   offsetof(shmcoll_post_block_t, inline_data) + SHMCOLL_INLINE_BYTES,
               "the inline area and aux are one payload");

typedef struct shmcoll_ack_block {
    shmcoll_flag_t step;
} __attribute__((aligned(SHMCOLL_FLAG_ALIGN))) shmcoll_ack_block_t;

/* Written once, by a member that gives up (timeout, dead peer): what went wrong and with whom,
 * so members waiting on it stop too and name the same culprit instead of waiting their own full
 * timeout for a live member that has left. */
typedef struct shmcoll_fail_block {
    shmcoll_flag_t status; /* 0, or the shmcoll_status_t that ended this member's collective */
    int culprit;           /* the rank that died or got stuck */
} __attribute__((aligned(SHMCOLL_FLAG_ALIGN))) shmcoll_fail_block_t;

/* A mailbox (shmcoll_channel_mail_post): a few numbers a member posts under a sequence number, for
 * the others to sum when they need them, later. Two per box, by the sequence number's parity. */
#define SHMCOLL_MAIL_BOXES  4
#define SHMCOLL_MAIL_VALUES 3

typedef struct shmcoll_mail_block {
    shmcoll_flag_t seq;
    uint64_t values[SHMCOLL_MAIL_VALUES];
} __attribute__((aligned(SHMCOLL_FLAG_ALIGN))) shmcoll_mail_block_t;

typedef struct shmcoll_member_ctrl {
    shmcoll_post_block_t post[SHMCOLL_POST_RING];
    shmcoll_ack_block_t ack;
    shmcoll_fail_block_t fail;
    shmcoll_sleep_block_t sleep; /* members asleep on this member's flags (shm/sleep.h) */
    shmcoll_mail_block_t mail[SHMCOLL_MAIL_BOXES][2];
} shmcoll_member_ctrl_t;

typedef struct shmcoll_channel {
    int rank;
    int size;
    shmcoll_member_ctrl_t *ctrl; /* [size] */
    uint8_t *data;               /* [size][2][chunk] */
    uint8_t *eager_data;         /* [size][SHMCOLL_EAGER_SLOTS][eager] */
    size_t chunk;                /* bytes per data buffer */
    size_t eager;                /* bytes per eager slot: shmcoll_channel_eager_bytes(chunk) */
    uint64_t step;               /* the last step this member began */
    uint64_t *peer_done;         /* [size] local knowledge: peer r is done with steps <= value */
    shmcoll_waiter_t waiter;
    /* Members may sleep on flags (shm/sleep.h): every post and ack then wakes the sleepers.
     * Equal on all members (set with waiter.sleep_after, from the team's shape). */
    int wake;
} shmcoll_channel_t;

/* Bytes of an eager slot for `chunk`-byte buffers: chunk/32, 8 KiB at the default chunk, 128 B
 * at the smallest (4 KiB), a multiple of two lines. */
static inline size_t shmcoll_channel_eager_bytes(size_t chunk) {
    return chunk / 32 & ~(size_t)127;
}

/* Bytes of segment needed for `size` members with `chunk`-byte buffers. */
size_t shmcoll_channel_segment_bytes(int size, size_t chunk);

/* Lay the channel over a segment of shmcoll_channel_segment_bytes() bytes. Local. */
shmcoll_status_t shmcoll_channel_init(shmcoll_channel_t *ch, void *base, int rank, int size,
                                      size_t chunk);
void shmcoll_channel_fini(shmcoll_channel_t *ch);

/* Where members first .. first + count - 1 write in a lane of shmcoll_channel_segment_bytes(size,
 * chunk) bytes, as offsets from the lane's start: their data buffers (span 0) and their eager
 * slots (span 1), each contiguous. The segment's creator places these pages on the writers'
 * NUMA nodes (core/team.c). */
void shmcoll_channel_writer_spans(int size, size_t chunk, int first, int count, size_t offset[2],
                                  size_t bytes[2]);

/* Faults this member's data buffers into its mapping (the segment's reservation placed their
 * pages) and clears its control block. */
void shmcoll_channel_first_touch(shmcoll_channel_t *ch);

/* Clears this member's control block only (a segment used before: its pages are in place). */
void shmcoll_channel_clear(shmcoll_channel_t *ch);

static inline uint64_t shmcoll_channel_next_step(shmcoll_channel_t *ch) {
    return ++ch->step;
}

static inline void *shmcoll_channel_buffer(const shmcoll_channel_t *ch, int rank, uint64_t step) {
    return ch->data + ((size_t)rank * 2 + (step & 1)) * ch->chunk;
}

static inline void *shmcoll_channel_eager(const shmcoll_channel_t *ch, int rank, uint64_t step) {
    return ch->eager_data +
           ((size_t)rank * SHMCOLL_EAGER_SLOTS + (step & (SHMCOLL_EAGER_SLOTS - 1))) * ch->eager;
}

static inline shmcoll_post_block_t *shmcoll_channel_post_block(const shmcoll_channel_t *ch,
                                                               int rank, uint64_t step) {
    return &ch->ctrl[rank].post[step & (SHMCOLL_POST_RING - 1)];
}

static inline void *shmcoll_channel_inline(const shmcoll_channel_t *ch, int rank, uint64_t step) {
    return shmcoll_channel_post_block(ch, rank, step)->inline_data;
}

static inline void *shmcoll_channel_aux(const shmcoll_channel_t *ch, int rank, uint64_t step) {
    return shmcoll_channel_post_block(ch, rank, step)->aux;
}

/* ---- Tests: never wait. OK when the condition holds, else IN_PROGRESS with the flag to wait
 * for in *w (shm/wait.h). Resumable tasks (core/task.h) are written with these only. ---- */

/* Member `rank` is done with step `need` (acknowledged it, or posted a later step). */
shmcoll_status_t shmcoll_channel_test_done_by(shmcoll_channel_t *ch, int rank, uint64_t need,
                                              shmcoll_wait_t *w);

/* Every other member is done with step `need` (acknowledged it, or posted a later step). What a
 * member is known to be done with is kept locally (peer_done), so in the steady state this reads
 * no flag. */
shmcoll_status_t shmcoll_channel_test_done_slow(shmcoll_channel_t *ch, uint64_t need,
                                                shmcoll_wait_t *w);

static inline shmcoll_status_t shmcoll_channel_test_done(shmcoll_channel_t *ch, uint64_t need,
                                                         shmcoll_wait_t *w) {
    for (int r = 0; r < ch->size; r++)
        if (ch->peer_done[r] < need && r != ch->rank)
            return shmcoll_channel_test_done_slow(ch, need, w);
    return SHMCOLL_OK;
}

/* This member may write its slot `slot` of step `step`: every other member is done with the
 * step that used that slot before (step-SHMCOLL_POST_RING for an inline area, step-
 * SHMCOLL_EAGER_SLOTS for an eager slot, step-2 for a buffer). A step claimed for one kind writes
 * no slot of a kind that needs a later step done (its inline area is free to it whatever it
 * claimed). */
static inline shmcoll_status_t shmcoll_channel_test_claim_slot(shmcoll_channel_t *ch, uint64_t step,
                                                               shmcoll_slot_t slot,
                                                               shmcoll_wait_t *w) {
    const uint64_t lag = slot == SHMCOLL_SLOT_INLINE  ? SHMCOLL_POST_RING
                         : slot == SHMCOLL_SLOT_EAGER ? SHMCOLL_EAGER_SLOTS
                                                      : 2;
    return step <= lag ? SHMCOLL_OK : shmcoll_channel_test_done(ch, step - lag, w);
}

/* This member may write its slots of step `step`: its buffer of parity step&1 and its inline area
 * (every other member is done with step-2). */
static inline shmcoll_status_t shmcoll_channel_test_claim(shmcoll_channel_t *ch, uint64_t step,
                                                          shmcoll_wait_t *w) {
    return shmcoll_channel_test_claim_slot(ch, step, SHMCOLL_SLOT_BUFFER, w);
}

/* Like shmcoll_channel_test_claim, when the caller knows that since every member was last known
 * done with step-2's parity only `reader` can have read its slots (e.g. a ring's downstream
 * neighbour). */
shmcoll_status_t shmcoll_channel_test_claim_one(shmcoll_channel_t *ch, uint64_t step, int reader,
                                                shmcoll_wait_t *w);

/* Member `rank` has posted `step`. */
static inline shmcoll_status_t shmcoll_channel_test_post(shmcoll_channel_t *ch, int rank,
                                                         uint64_t step, shmcoll_wait_t *w) {
    SHMCOLL_CHECK(
        shmcoll_shm_test_geq(&shmcoll_channel_post_block(ch, rank, step)->step, step, rank, w));
    if (ch->peer_done[rank] < step - 1) ch->peer_done[rank] = step - 1;
    return SHMCOLL_OK;
}

/* Every member has posted `step`. */
static inline shmcoll_status_t shmcoll_channel_test_all(shmcoll_channel_t *ch, uint64_t step,
                                                        shmcoll_wait_t *w) {
    for (int r = 0; r < ch->size; r++)
        if (r != ch->rank) SHMCOLL_CHECK(shmcoll_channel_test_post(ch, r, step, w));
    return SHMCOLL_OK;
}

/* Publish this member's slots of `step`. */
static inline void shmcoll_channel_post(shmcoll_channel_t *ch, uint64_t step) {
    shmcoll_flag_t *flag = &shmcoll_channel_post_block(ch, ch->rank, step)->step;
    shmcoll_flag_store(flag, step);
    if (ch->wake) shmcoll_shm_wake(flag, &ch->ctrl[ch->rank].sleep);
}

/* ---- Waiting forms of the tests (bounded: ch->waiter), for code that runs to completion ---- */

shmcoll_status_t shmcoll_channel_claim(shmcoll_channel_t *ch, uint64_t step);
shmcoll_status_t shmcoll_channel_claim_slot(shmcoll_channel_t *ch, uint64_t step,
                                            shmcoll_slot_t slot);
shmcoll_status_t shmcoll_channel_claim_one(shmcoll_channel_t *ch, uint64_t step, int reader);
shmcoll_status_t shmcoll_channel_wait_post(shmcoll_channel_t *ch, int rank, uint64_t step);
shmcoll_status_t shmcoll_channel_wait_all(shmcoll_channel_t *ch, uint64_t step);

/* Give up on the collective because of a failure this member found itself (not in a wait):
 * publishes it in the failure block so the others stop at once too, naming `culprit`. */
shmcoll_status_t shmcoll_channel_fail(shmcoll_channel_t *ch, shmcoll_status_t status, int culprit);

/* This member is done reading everything of `step`. */
static inline void shmcoll_channel_ack(shmcoll_channel_t *ch, uint64_t step) {
    shmcoll_member_ctrl_t *mine = &ch->ctrl[ch->rank];
    shmcoll_flag_store(&mine->ack.step, step);
    if (ch->wake) shmcoll_shm_wake(&mine->ack.step, &mine->sleep);
}

/* ---- Mailboxes: agreements nobody waits for when they are posted ----
 *
 * A member posts its numbers in box `box` under sequence number `seq` (1, 2, ... in each box, the
 * same on every member) and goes on; the sums come later, from shmcoll_channel_mail_sum, which
 * waits only for members that have not posted `seq` yet. A member posts seq+1 only after it has
 * taken the sums of seq, so a block is rewritten (seq+2) only after every member has read it. */
void shmcoll_channel_mail_post(shmcoll_channel_t *ch, int box, uint64_t seq,
                               const uint64_t values[SHMCOLL_MAIL_VALUES]);

/* sums[i] = the sum over the members of values[i] of `seq` in `box`; waits with `waiter` (bounded
 * as it says, calling its progress) for members that have not posted it yet. */
shmcoll_status_t shmcoll_channel_mail_sum(const shmcoll_channel_t *ch, int box, uint64_t seq,
                                          uint64_t sums[SHMCOLL_MAIL_VALUES],
                                          const shmcoll_waiter_t *waiter);

/* Lets waiting members of the channel sleep after `seconds` of waiting (negative: never), and
 * makes posts and acks wake them. Every member sets the same. */
void shmcoll_channel_set_sleep(shmcoll_channel_t *ch, double seconds);

#endif
