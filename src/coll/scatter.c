/* Scatter and scatterv through the root's slots.
 *
 * The root's buffer of each round is cut into one piece per member (cache-line multiples); in
 * round t the root copies piece t of every member's block into that member's piece and posts,
 * and each member copies its own piece out (receiver-side copy: the readers work in parallel,
 * KNEM-coll's direction for scatter). Blocks of SHMCOLL_CMA_MIN bytes and more move single-copy
 * instead (coll/single_copy.c, the registry's single-copy row).
 *
 * Scatterv: only the root knows the block sizes. When single-copy serves the long blocks and the
 * short ones fit a piece of the root's slot, every block's way follows from its own size and
 * the call is one step (the one-step row, coll/single_copy.c). Otherwise the root first publishes
 * the longest block in one agreement step: with two steps per call the root cannot fill a call's
 * slot before every member has finished the previous call, which made scattervs of 4-64 KiB
 * 1.3-1.8 times slower than scatters. */
#include "coll/coll.h"
#include "coll/coll_internal.h"

/* The rounds of blocks of up to `longest` bytes, and their working set. */
static void scatter_plan(shmcoll_task_t *task, coll_pipeline_t *s, size_t longest) {
    s->piece = coll_piece_per_member(task->ch->chunk, task->ch->size);
    s->rounds = coll_div_ceil(longest, s->piece);
    coll_declare_working_set(task, longest * (size_t)(task->ch->size + 1), longest);
}

/* Scatterv: only the root knows the blocks (sendcounts). */
static shmcoll_status_t scatter_pipeline_init(shmcoll_task_t *task) {
    const coll_bytes_t blocks = coll_send_blocks(task->args);
    shmcoll_coll_pipeline_init(task, SHMCOLL_TASK_STATE(task, coll_pipeline_t), &blocks,
                               task->args->root, scatter_plan);
    return SHMCOLL_OK;
}

static shmcoll_status_t scatter_progress(shmcoll_task_t *task) {
    coll_pipeline_t *s = SHMCOLL_TASK_STATE(task, coll_pipeline_t);
    shmcoll_channel_t *ch = task->ch;
    const shmcoll_coll_args_t *a = task->args;
    const int me = ch->rank, root = a->root;
    const coll_bytes_t blocks = coll_send_blocks(a);
    const char *sendbuf = a->sendbuf;
    const size_t my_count = coll_own_bytes(a);
    char *recvbuf = a->recvbuf;
    SHMCOLL_RESUME_BEGIN(&task->pc);
    if (s->agreeing)
        SHMCOLL_AWAIT_TEST(&task->pc, shmcoll_coll_pipeline_agree(task, s, root, 1, scatter_plan));
    if (s->single) {
        SHMCOLL_AWAIT_TEST(&task->pc,
                           shmcoll_coll_scatter_single(task, &s->single_copy, sendbuf, &blocks,
                                                       recvbuf, my_count, root));
    } else {
        if (me == root && recvbuf)
            coll_copy(task, recvbuf, sendbuf + coll_bytes_displ(&blocks, me), my_count);
        for (s->round = 0; s->round < s->rounds; s->round++) {
            s->step = shmcoll_channel_next_step(ch);
            if (me == root) {
                SHMCOLL_AWAIT(task, &task->pc,
                              shmcoll_channel_test_claim(ch, s->step, &task->wait));
                shmcoll_coll_fill_pieces(task, s, sendbuf, &blocks);
                shmcoll_channel_post(ch, s->step);
            } else if (coll_round_bytes(my_count, s->round, s->piece)) {
                SHMCOLL_AWAIT(task, &task->pc,
                              shmcoll_channel_test_post(ch, root, s->step, &task->wait));
                coll_copy_out(task, recvbuf + s->round * s->piece,
                              (const char *)shmcoll_channel_buffer(ch, root, s->step) +
                                  (size_t)me * s->piece,
                              coll_round_bytes(my_count, s->round, s->piece));
            }
            shmcoll_channel_ack(ch, s->step);
        }
    }
    SHMCOLL_RESUME_END(&task->pc);
}

const shmcoll_task_ops_t shmcoll_coll_scatter_pipeline_ops = {.init = scatter_pipeline_init,
                                                              .progress = scatter_progress};

/* The single-copy and one-step rows. */
const shmcoll_task_ops_t shmcoll_coll_scatter_single_ops = {.init = shmcoll_coll_single_init,
                                                            .progress = scatter_progress};
