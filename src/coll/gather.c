/* Gather and gatherv through the senders' own slots.
 *
 * Round t: every non-root member copies piece t of its block into its buffer (inline area for
 * blocks of at most 64 bytes) and posts; the root copies the pieces out, visiting members from
 * its right-hand neighbour on. Senders run a round ahead thanks to the two parities. Blocks of
 * SHMCOLL_CMA_MIN bytes and more move single-copy instead (coll/single_copy.c, the registry's
 * single-copy row).
 *
 * Gatherv: only the root knows every block size. When single-copy serves the long blocks and the
 * short ones fit a chunk, every block's way follows from its own size and the whole call is one
 * step in which senders never wait for the root (the one-step row, coll/single_copy.c).
 * Otherwise (no cross-memory attach, or chunks smaller than SHMCOLL_CMA_MIN) the root first
 * publishes the longest block in one agreement step and every member derives from it whether
 * the call moves single-copy and how many rounds it takes: a round trip more, which made small
 * gathervs twice as slow as gathers. */
#include "coll/coll.h"
#include "coll/coll_internal.h"

/* The rounds of blocks of up to `longest` bytes, and their working set. */
static void gather_plan(shmcoll_task_t *task, coll_pipeline_t *s, size_t longest) {
    s->use_inline = longest <= SHMCOLL_INLINE_BYTES;
    s->piece = s->use_inline ? SHMCOLL_INLINE_BYTES : task->ch->chunk;
    s->rounds = coll_div_ceil(longest, s->piece);
    coll_declare_working_set(task, longest * (size_t)(task->ch->size + 1), longest);
}

/* Gatherv: only the root knows the blocks (recvcounts). */
static shmcoll_status_t gather_pipeline_init(shmcoll_task_t *task) {
    const coll_bytes_t blocks = coll_recv_blocks(task->args);
    shmcoll_coll_pipeline_init(task, SHMCOLL_TASK_STATE(task, coll_pipeline_t), &blocks,
                               task->args->root, gather_plan);
    return SHMCOLL_OK;
}

static shmcoll_status_t gather_progress(shmcoll_task_t *task) {
    coll_pipeline_t *s = SHMCOLL_TASK_STATE(task, coll_pipeline_t);
    shmcoll_channel_t *ch = task->ch;
    const shmcoll_coll_args_t *a = task->args;
    const int me = ch->rank, root = a->root;
    const coll_bytes_t blocks = coll_recv_blocks(a);
    const char *mine = a->sendbuf;
    const size_t my_count = coll_own_bytes(a);
    char *recvbuf = a->recvbuf;
    SHMCOLL_RESUME_BEGIN(&task->pc);
    if (s->agreeing)
        SHMCOLL_AWAIT_TEST(&task->pc, shmcoll_coll_pipeline_agree(task, s, root, 1, gather_plan));
    if (s->single) {
        SHMCOLL_AWAIT_TEST(&task->pc, shmcoll_coll_gather_single(task, &s->single_copy, mine,
                                                                 my_count, recvbuf, &blocks, root));
    } else {
        if (me == root && mine)
            coll_copy(task, recvbuf + coll_bytes_displ(&blocks, me), mine, my_count);
        for (s->round = 0; s->round < s->rounds; s->round++) {
            s->step = shmcoll_channel_next_step(ch);
            if (me != root && coll_round_bytes(my_count, s->round, s->piece)) {
                SHMCOLL_AWAIT(task, &task->pc,
                              shmcoll_channel_test_claim(ch, s->step, &task->wait));
                coll_copy(task, (void *)coll_slot(ch, me, s->step, s->use_inline),
                          mine + s->round * s->piece,
                          coll_round_bytes(my_count, s->round, s->piece));
            }
            shmcoll_channel_post(ch, s->step);
            if (me == root)
                SHMCOLL_AWAIT_TEST(
                    &task->pc, shmcoll_coll_collect_round(task, &s->collect, s->step, s->use_inline,
                                                          0, &blocks, s->round, s->piece, recvbuf));
            shmcoll_channel_ack(ch, s->step);
        }
    }
    SHMCOLL_RESUME_END(&task->pc);
}

const shmcoll_task_ops_t shmcoll_coll_gather_pipeline_ops = {.init = gather_pipeline_init,
                                                             .progress = gather_progress};

/* The single-copy and one-step rows. */
const shmcoll_task_ops_t shmcoll_coll_gather_single_ops = {.init = shmcoll_coll_single_init,
                                                           .progress = gather_progress};
