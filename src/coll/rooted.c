/* Gather and scatter (and their v-variants) through slots: one the other's mirror, so one
 * pipeline serves both, and only what happens in a round depends on the direction.
 *
 * Gather: the root receives every member's block. Round t: every non-root member copies piece t
 * of its block into its buffer (the post block for blocks of at most 120 bytes, an eager slot for
 * blocks that fit one) and posts; the root copies the pieces out, visiting members from its
 * right-hand neighbour on. Senders run a round ahead thanks to the two parities, and up to
 * SHMCOLL_EAGER_SLOTS calls ahead in the post blocks and eager slots.
 *
 * Scatter: the root sends block r of its buffer to member r. The root's buffer of each round is
 * cut into one piece per member (cache-line multiples; the post block when every member's block
 * fits it, so a small scatter moves one post as a bcast does; its eager slot when they fit that);
 * in round t the root copies piece t of every member's block into that member's piece and posts,
 * and each member copies its own piece out (receiver-side copy: the readers work in parallel,
 * KNEM-coll's direction for scatter).
 *
 * Either way the root's own block moves locally, and blocks of SHMCOLL_CMA_MIN bytes and more move
 * single-copy instead (coll/single_copy.c, the registry's single-copy rows).
 *
 * The v-variants: only the root knows every block size. When single-copy serves the long blocks
 * and the short ones fit (a chunk for gatherv, a piece of the root's slot for scatterv), every
 * block's way follows from its own size and the whole call is one step in which nobody waits for
 * a size (the one-step rows, coll/single_copy.c). Otherwise (no cross-memory attach, or chunks
 * smaller than SHMCOLL_CMA_MIN) the root first publishes the longest block in one agreement step
 * and every member derives from it whether the call moves single-copy and how many rounds it
 * takes: a round trip more, which made small gathervs twice as slow as gathers, and with two steps
 * per call the root of a scatterv cannot fill a call's slot before every member has finished the
 * previous call, which made scattervs of 4-64 KiB 1.3-1.8 times slower than scatters. */
#include "coll/coll.h"
#include "coll/coll_internal.h"

static int gathers(const shmcoll_coll_args_t *a) {
    return a->kind == SHMCOLL_KIND_GATHER || a->kind == SHMCOLL_KIND_GATHERV;
}

/* The root's p blocks: gather(v)'s receive side, scatter(v)'s send side (only the root knows
 * those of the v-variants). */
static coll_bytes_t root_blocks(const shmcoll_coll_args_t *a) {
    return gathers(a) ? coll_recv_blocks(a) : coll_send_blocks(a);
}

/* The rounds of blocks of up to `longest` bytes, and their working set: pieces of each sender's
 * own buffer (gather; the post block for small blocks), or of the root's cut into one piece per
 * other member (scatter). */
static void rooted_plan(shmcoll_task_t *task, coll_pipeline_t *s, size_t longest) {
    /* Small blocks ride in the post block with the flag, its aux area included (no step of this
     * pipeline publishes anything there): MPICH, p = 2, a gatherv of 43- and 85-byte blocks took
     * 0.26-0.29 us a call through the data buffer, 0.18-0.19 in the post block. Blocks that fit
     * an eager slot go there, so the senders of a stream of calls run ahead (shm/channel.h). */
    const shmcoll_channel_t *ch = task->ch;
    const int others =
        ch->size > 1 ? ch->size - 1 : 1; /* scatter's root fills no piece of its own */
    if (gathers(task->args)) {
        s->slot = coll_sender_slot(ch, longest, SHMCOLL_POST_PAYLOAD_BYTES);
        s->piece = coll_slot_bytes(ch, s->slot, SHMCOLL_POST_PAYLOAD_BYTES);
    } else if (longest * (size_t)others <= SHMCOLL_POST_PAYLOAD_BYTES) {
        s->slot = SHMCOLL_SLOT_INLINE; /* one step's two lines */
        s->piece = SHMCOLL_POST_PAYLOAD_BYTES / (size_t)others;
    } else if (longest <= coll_piece_per_other(ch->eager, ch->size)) {
        s->slot = SHMCOLL_SLOT_EAGER;
        s->piece = coll_piece_per_other(ch->eager, ch->size);
    } else {
        s->slot = SHMCOLL_SLOT_BUFFER;
        s->piece = coll_piece_per_other(ch->chunk, ch->size);
    }
    s->rounds = coll_div_ceil(longest, s->piece);
    coll_declare_working_set(task, longest * (size_t)(task->ch->size + 1), longest);
}

static shmcoll_status_t rooted_pipeline_init(shmcoll_task_t *task) {
    const coll_bytes_t blocks = root_blocks(task->args);
    shmcoll_coll_pipeline_init(task, SHMCOLL_TASK_STATE(task, coll_pipeline_t), &blocks,
                               task->args->root, rooted_plan);
    return SHMCOLL_OK;
}

static shmcoll_status_t rooted_progress(shmcoll_task_t *task) {
    coll_pipeline_t *s = SHMCOLL_TASK_STATE(task, coll_pipeline_t);
    shmcoll_channel_t *ch = task->ch;
    const shmcoll_coll_args_t *a = task->args;
    const int me = ch->rank, root = a->root, gather = gathers(a);
    const coll_bytes_t blocks = root_blocks(a);
    const char *sendbuf = a->sendbuf;
    const size_t my_count = coll_own_bytes(a);
    char *recvbuf = a->recvbuf;
    SHMCOLL_RESUME_BEGIN(&task->pc);
    if (s->agreeing)
        SHMCOLL_AWAIT_TEST(&task->pc, shmcoll_coll_pipeline_agree(task, s, root, 1, rooted_plan));
    if (s->single) {
        SHMCOLL_AWAIT_TEST(&task->pc,
                           gather ? shmcoll_coll_gather_single(task, &s->single_copy, sendbuf,
                                                               my_count, recvbuf, &blocks, root)
                                  : shmcoll_coll_scatter_single(task, &s->single_copy, sendbuf,
                                                                &blocks, recvbuf, my_count, root));
    } else {
        /* The root's own block, unless it is in place (no send buffer of gather's, no receive
         * buffer of scatter's). */
        if (me == root && gather && sendbuf)
            coll_copy_out(task, recvbuf + coll_bytes_displ(&blocks, me), sendbuf, my_count);
        if (me == root && !gather && recvbuf)
            coll_copy_out(task, recvbuf, sendbuf + coll_bytes_displ(&blocks, me), my_count);
        for (s->round = 0; s->round < s->rounds; s->round++) {
            s->step = shmcoll_channel_next_step(ch);
            if (gather) { /* senders copy in, everyone posts, the root collects */
                if (me != root && coll_round_bytes(my_count, s->round, s->piece)) {
                    SHMCOLL_AWAIT(
                        task, &task->pc,
                        shmcoll_channel_test_claim_slot(ch, s->step, s->slot, &task->wait));
                    coll_copy(task, (void *)coll_slot(ch, me, s->step, s->slot),
                              sendbuf + s->round * s->piece,
                              coll_round_bytes(my_count, s->round, s->piece));
                }
                shmcoll_channel_post(ch, s->step);
                if (me == root)
                    SHMCOLL_AWAIT_TEST(&task->pc, shmcoll_coll_collect_round(
                                                      task, &s->collect, s->step, s->slot, 0,
                                                      &blocks, s->round, s->piece, recvbuf));
            } else if (me == root) { /* the root fills the pieces ... */
                SHMCOLL_AWAIT(task, &task->pc,
                              shmcoll_channel_test_claim_slot(ch, s->step, s->slot, &task->wait));
                shmcoll_coll_fill_pieces(task, s, sendbuf, &blocks);
                shmcoll_channel_post(ch, s->step);
            } else if (coll_round_bytes(my_count, s->round, s->piece)) { /* ... members copy out */
                SHMCOLL_AWAIT(task, &task->pc,
                              shmcoll_channel_test_post(ch, root, s->step, &task->wait));
                coll_copy_out(task, recvbuf + s->round * s->piece,
                              (const char *)coll_slot(ch, root, s->step, s->slot) +
                                  coll_other_index(me, root) * s->piece,
                              coll_round_bytes(my_count, s->round, s->piece));
            }
            shmcoll_channel_ack(ch, s->step);
        }
    }
    SHMCOLL_RESUME_END(&task->pc);
}

const shmcoll_task_ops_t shmcoll_coll_rooted_pipeline_ops = {.init = rooted_pipeline_init,
                                                             .progress = rooted_progress};

/* The single-copy and one-step rows. */
const shmcoll_task_ops_t shmcoll_coll_rooted_single_ops = {.init = shmcoll_coll_single_init,
                                                           .progress = rooted_progress};
