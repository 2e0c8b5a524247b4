/* Alltoall and alltoallv through every member's own slots, with a rotated schedule.
 *
 * Each member's buffer of a round is cut into one piece per other member (coll_piece_per_other: the
 * own block never travels). In round t every member copies piece t of each outgoing block into the
 * destination's piece of its own buffer and posts; then it collects its pieces, reading at position
 * i from member me+i (KNEM-coll Figure 3's rotation), so at any moment the p readers spread over p
 * different sources. The own block is copied locally. Alltoallv: each member knows only its own
 * blocks, so the members first agree on the longest block in one step. In place, the outgoing
 * blocks are read from the receive buffer before the round overwrites them: round t only writes the
 * pieces it has already read. Not in place, blocks of SHMCOLL_CMA_MIN bytes and more move
 * single-copy instead up to SHMCOLL_CMA_MAX, at any size with SHMCOLL_CMA=all (coll/single_copy.c:
 * the registry's single-copy row for alltoall, the choice after agreeing for alltoallv). Alltoallv
 * needs no agreement where the short blocks fit a piece of their sender's slot and the long ones
 * move single-copy: its one-step row (below) decides each block's way by its size in one step. */
#include "coll/coll.h"
#include "coll/coll_internal.h"

/* The outgoing blocks: in place (sendbuf NULL, on every member as MPI requires) they are the
 * incoming ones, in the receive buffer. */
static coll_bytes_t alltoall_out(const shmcoll_coll_args_t *a) {
    return a->sendbuf ? coll_send_blocks(a) : coll_recv_blocks(a);
}

/* The rounds of blocks of up to `longest` bytes, and their working set. */
static void alltoall_plan(shmcoll_task_t *task, coll_pipeline_t *s, size_t longest) {
    const int p = task->ch->size;
    const coll_bytes_t out = alltoall_out(task->args), in = coll_recv_blocks(task->args);
    s->piece = coll_piece_per_other(task->ch->chunk, p);
    s->rounds = coll_div_ceil(longest, s->piece);
    size_t own_bytes = 0;
    for (int r = 0; r < p; r++) own_bytes += coll_bytes_count(&out, r) + coll_bytes_count(&in, r);
    coll_declare_working_set(task, own_bytes, longest * (size_t)(p - 1));
}

/* Alltoallv: each member knows only its own outgoing blocks. */
static shmcoll_status_t alltoall_rotated_init(shmcoll_task_t *task) {
    const coll_bytes_t out = alltoall_out(task->args);
    shmcoll_coll_pipeline_init(task, SHMCOLL_TASK_STATE(task, coll_pipeline_t), &out, COLL_ALL,
                               alltoall_plan);
    return SHMCOLL_OK;
}

static shmcoll_status_t alltoall_progress(shmcoll_task_t *task) {
    coll_pipeline_t *s = SHMCOLL_TASK_STATE(task, coll_pipeline_t);
    shmcoll_channel_t *ch = task->ch;
    const shmcoll_coll_args_t *a = task->args;
    const int me = ch->rank;
    const coll_bytes_t out = alltoall_out(a), in = coll_recv_blocks(a);
    char *recvbuf = a->recvbuf;
    const char *sendbuf = a->sendbuf ? (const char *)a->sendbuf : recvbuf;
    SHMCOLL_RESUME_BEGIN(&task->pc);
    /* Not in place: the blocks to send would be overwritten while the others read them. */
    if (s->agreeing)
        SHMCOLL_AWAIT_TEST(&task->pc, shmcoll_coll_pipeline_agree(
                                          task, s, COLL_ALL, a->sendbuf != NULL, alltoall_plan));
    if (s->single) {
        SHMCOLL_AWAIT_TEST(&task->pc, shmcoll_coll_alltoall_single(task, &s->single_copy, sendbuf,
                                                                   &out, recvbuf, &in, 0));
    } else {
        if (sendbuf != recvbuf)
            coll_copy_out(task, recvbuf + coll_bytes_displ(&in, me),
                          sendbuf + coll_bytes_displ(&out, me), coll_bytes_count(&in, me));
        for (s->round = 0; s->round < s->rounds; s->round++) {
            s->step = shmcoll_channel_next_step(ch);
            SHMCOLL_AWAIT(task, &task->pc, shmcoll_channel_test_claim(ch, s->step, &task->wait));
            shmcoll_coll_fill_pieces(task, s, sendbuf, &out);
            shmcoll_channel_post(ch, s->step);
            SHMCOLL_AWAIT_TEST(&task->pc, shmcoll_coll_collect_round(task, &s->collect, s->step, 0,
                                                                     COLL_READER_PIECE, &in,
                                                                     s->round, s->piece, recvbuf));
            shmcoll_channel_ack(ch, s->step);
        }
    }
    SHMCOLL_RESUME_END(&task->pc);
}

const shmcoll_task_ops_t shmcoll_coll_alltoall_rotated_ops = {.init = alltoall_rotated_init,
                                                              .progress = alltoall_progress};

/* The single-copy row. In place (sendbuf NULL, on every member as MPI requires) the blocks to send
 * would be overwritten while the others read them: the rotated pipeline serves it. */
static shmcoll_status_t alltoall_single_init(shmcoll_task_t *task) {
    return task->args->sendbuf ? shmcoll_coll_single_init(task) : SHMCOLL_ERR_NOT_SUPPORTED;
}

const shmcoll_task_ops_t shmcoll_coll_alltoall_single_ops = {.init = alltoall_single_init,
                                                             .progress = alltoall_progress};

/* Alltoallv's one-step row: no agreement on the longest block first, every block through its
 * sender's slot or single-copy by its own size (shmcoll_coll_alltoall_single with a piece per
 * member of a chunk). The agreement was a step more in every call: an 8-byte alltoallv took
 * 0.26 us where an alltoall took 0.15 (Open MPI 4.1, p = 2). Not in place, as the single-copy
 * row. */
static shmcoll_status_t alltoallv_one_step_progress(shmcoll_task_t *task) {
    coll_pipeline_t *s = SHMCOLL_TASK_STATE(task, coll_pipeline_t);
    const shmcoll_coll_args_t *a = task->args;
    const coll_bytes_t out = coll_send_blocks(a), in = coll_recv_blocks(a);
    return shmcoll_coll_alltoall_single(task, &s->single_copy, a->sendbuf, &out, a->recvbuf, &in,
                                        coll_piece_per_member(task->ch->chunk, task->ch->size));
}

const shmcoll_task_ops_t shmcoll_coll_alltoallv_one_step_ops = {
    .init = alltoall_single_init, .progress = alltoallv_one_step_progress};
