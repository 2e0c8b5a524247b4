/* Allgather and allgatherv, pipelined through every member's own slots (YHCCL Algorithm 4).
 *
 * Round t: every member copies piece t of its block into its buffer of parity t (the inline
 * area when all blocks fit in 64 bytes) and posts; then it copies piece t of every other
 * member's block out, starting with its right-hand neighbour so that the p readers of a round
 * spread over p different sources instead of all hitting member 0 first. With two parities a
 * member fills round t+1 while slower members still read round t. Every member knows every block
 * size (MPI passes all recvcounts everywhere), so the number of rounds needs no agreement.
 * Blocks of SHMCOLL_CMA_MIN bytes and more move single-copy instead up to SHMCOLL_CMA_MAX, at any
 * size with SHMCOLL_CMA=all (coll/single_copy.c, the registry's single-copy row). */
#include "coll/coll.h"
#include "coll/coll_internal.h"

static shmcoll_status_t allgather_pipeline_init(shmcoll_task_t *task) {
    coll_pipeline_t *s = SHMCOLL_TASK_STATE(task, coll_pipeline_t);
    const coll_bytes_t blocks = coll_recv_blocks(task->args);
    const int p = task->ch->size;
    size_t longest = 0;
    for (int r = 0; r < p; r++)
        if (coll_bytes_count(&blocks, r) > longest) longest = coll_bytes_count(&blocks, r);
    s->slot = longest <= SHMCOLL_INLINE_BYTES ? SHMCOLL_SLOT_INLINE : SHMCOLL_SLOT_BUFFER;
    s->piece = s->slot == SHMCOLL_SLOT_INLINE ? SHMCOLL_INLINE_BYTES : task->ch->chunk;
    s->rounds = coll_div_ceil(longest, s->piece);
    s->single = 0;
    s->collect = (coll_collect_t){0};
    /* YHCCL Algorithm 4: the own block, the whole receive buffer and the shared pieces. */
    size_t own_bytes = coll_bytes_count(&blocks, task->ch->rank);
    for (int r = 0; r < p; r++) own_bytes += coll_bytes_count(&blocks, r);
    coll_declare_working_set(task, own_bytes, longest);
    return SHMCOLL_OK;
}

static shmcoll_status_t allgather_progress(shmcoll_task_t *task) {
    coll_pipeline_t *s = SHMCOLL_TASK_STATE(task, coll_pipeline_t);
    shmcoll_channel_t *ch = task->ch;
    const int me = ch->rank;
    const coll_bytes_t blocks = coll_recv_blocks(task->args);
    char *recvbuf = task->args->recvbuf;
    char *own = recvbuf + coll_bytes_displ(&blocks, me);
    const char *mine = task->args->sendbuf ? (const char *)task->args->sendbuf : own;
    const size_t my_count = coll_bytes_count(&blocks, me);
    SHMCOLL_RESUME_BEGIN(&task->pc);
    if (s->single) {
        /* Every member exposes its block and reads every other member's: alltoall's body with
         * one outgoing block for all (uniform blocks of no bytes: each reader's starts at the
         * exposed address). In place the own block is already where it belongs. */
        SHMCOLL_AWAIT_TEST(&task->pc,
                           shmcoll_coll_alltoall_single(task, &s->single_copy, mine,
                                                        &(coll_bytes_t){0}, recvbuf, &blocks, 0));
    } else {
        for (s->round = 0; s->round < s->rounds; s->round++) {
            s->step = shmcoll_channel_next_step(ch);
            if (coll_round_bytes(my_count, s->round, s->piece)) {
                SHMCOLL_AWAIT(task, &task->pc,
                              shmcoll_channel_test_claim_slot(ch, s->step, s->slot, &task->wait));
                const size_t offset = s->round * s->piece;
                const size_t n = coll_round_bytes(my_count, s->round, s->piece);
                coll_copy(task, (void *)coll_slot(ch, me, s->step, s->slot), mine + offset, n);
                /* The own block's piece too, while it is in this core's cache, into the
                 * receive buffer as the other blocks' pieces go (coll_copy_out). */
                coll_copy_out(task, own + offset, mine + offset, n);
            }
            shmcoll_channel_post(ch, s->step);
            SHMCOLL_AWAIT_TEST(&task->pc,
                               shmcoll_coll_collect_round(task, &s->collect, s->step, s->slot, 0,
                                                          &blocks, s->round, s->piece, recvbuf));
            shmcoll_channel_ack(ch, s->step);
        }
    }
    SHMCOLL_RESUME_END(&task->pc);
}

const shmcoll_task_ops_t shmcoll_coll_allgather_pipeline_ops = {.init = allgather_pipeline_init,
                                                                .progress = allgather_progress};

const shmcoll_task_ops_t shmcoll_coll_allgather_single_ops = {.init = shmcoll_coll_single_init,
                                                              .progress = allgather_progress};
