/* Movement-avoiding (MA) reduction (YHCCL, Peng et al., sections 3.3-3.5), for commutative ops.
 *
 * The element range is cut into p blocks; a large message is processed in rounds of one slice
 * (at most a buffer) per block, so the shared working set stays in cache. In round t, stage k,
 * member r works on block j = (r + 1 + k) mod p:
 *   stage 0      r copies its slice of block j from its own input into its buffer;
 *   stage k > 0  r reads member r+1's buffer of the previous stage (the partial result of the
 *                same block) and reduces it with its own input slice straight into its buffer
 *                (C = A op B: the input is read where it lies, never copied in);
 *   stage p-1    r holds block r fully reduced; reduce_scatter writes it straight into r's
 *                receive buffer; allreduce and reduce publish it and the members that need the
 *                result copy the p reduced slices out.
 * Only one slice per block is ever copied in, so the copy volume is the proven minimum 2s, and the
 * data-access volume is s(3p-1) for reduce_scatter, s(5p-1) for allreduce and s(3p+1) for reduce.
 *
 * Our version keeps every buffer single-writer: the chain passes a block from buffer to buffer
 * (each member writes only its own) instead of updating one shared slice in place, at the same
 * DAV. Stages synchronise point to point (r waits for r+1 only). Stages 0 and 1 of each round claim
 * their buffer from every member (the previous round's final slices, or the previous collective,
 * were read by all); later stages only from r-1, the one member that read the buffer since.
 *
 * As a task: one ops for every reduction kind. Reduce and allreduce cut the vector into p equal
 * blocks; reduce_scatter takes the caller's blocks, whose offsets the chain keeps as a running
 * sum (stage k's block follows stage k-1's, wrapping to block 0), and, in place, reads a copy of
 * its input made at the start of the run (the result overwrites the receive buffer where later
 * rounds still read input), allocated by init and freed by fini. */
#include "coll/coll.h"
#include "coll/coll_internal.h"

typedef struct reduce_ma {
    coll_ma_t ma;
    size_t first0; /* first element of block (me + 1) mod p, stage 0's */
    size_t first;  /* first element of the stage's block */
    int j;         /* copy-out: the block */
} reduce_ma_t;

shmcoll_status_t shmcoll_coll_ma_plan(shmcoll_task_t *task, coll_ma_t *ma) {
    const shmcoll_reduce_op_t *op = task->args->op;
    const int me = task->ch->rank, p = task->ch->size;
    const int scattered = coll_scatters(task);
    /* Reduce and allreduce need a chain of two or more. */
    if (!scattered && (!op->commutative || p < 2)) return SHMCOLL_ERR_NOT_SUPPORTED;
    ma->slice = task->ch->chunk / op->extent;
    if (ma->slice == 0 || !op->commutative) return SHMCOLL_ERR_NOT_SUPPORTED;
    const int root = coll_reduction_root(task);
    ma->blocks = coll_task_blocks(task);
    ma->result = scattered          ? COLL_RESULT_SCATTERED
                 : root == COLL_ALL ? COLL_RESULT_ALL
                                    : COLL_RESULT_ROOT;
    ma->wants_all = ma->result == COLL_RESULT_ALL || (ma->result == COLL_RESULT_ROOT && me == root);
    ma->pc = 0;
    /* YHCCL Algorithm 2: send and receive buffers plus the shared slices in flight. */
    const size_t span = shmcoll_reduce_op_span(op, ma->blocks.n);
    coll_declare_working_set(task, 2 * span, span);
    return coll_aside_init(task, &ma->in, span);
}

shmcoll_status_t shmcoll_coll_ma_chain(shmcoll_task_t *task, coll_ma_t *ma, int stages,
                                       coll_ma_slice_fn slice) {
    shmcoll_channel_t *ch = task->ch;
    const shmcoll_reduce_op_t *op = task->args->op;
    SHMCOLL_RESUME_BEGIN(&ma->pc);
    for (ma->k = 0; ma->k < stages; ma->k++) {
        ma->step = shmcoll_channel_next_step(ch);
        SHMCOLL_AWAIT(
            task, &ma->pc,
            ma->k <= 1 ? shmcoll_channel_test_claim(ch, ma->step, &task->wait)
                       : shmcoll_channel_test_claim_one(ch, ma->step, ma->downstream, &task->wait));
        if (ma->k > 0)
            SHMCOLL_AWAIT(task, &ma->pc,
                          shmcoll_channel_test_post(ch, ma->upstream, ma->step - 1, &task->wait));
        const char *mine;
        size_t n;
        void *out;
        slice(task, &mine, &n, &out);
        if (!out) out = shmcoll_channel_buffer(ch, ch->rank, ma->step);
        if (ma->k == 0) {
            coll_copy(task, out, mine, shmcoll_reduce_op_span(op, n));
        } else {
            coll_reduce(task, op, mine, shmcoll_channel_buffer(ch, ma->upstream, ma->step - 1), out,
                        n);
            shmcoll_channel_ack(ch, ma->step - 1);
        }
        shmcoll_channel_post(ch, ma->step);
    }
    SHMCOLL_RESUME_END(&ma->pc);
}

static shmcoll_status_t reduce_ma_init(shmcoll_task_t *task) {
    reduce_ma_t *s = SHMCOLL_TASK_STATE(task, reduce_ma_t);
    const int me = task->ch->rank, p = task->ch->size;
    SHMCOLL_CHECK(shmcoll_coll_ma_plan(task, &s->ma));
    s->ma.upstream = (me + 1) % p;
    s->ma.downstream = (me + p - 1) % p;
    size_t longest = 0, before = 0;
    s->first0 = 0;
    for (int j = 0; j < p; j++) {
        const size_t len = coll_block_len(&s->ma.blocks, j);
        longest = len > longest ? len : longest;
        before += len;
        if (j == me && me + 1 < p) s->first0 = before;
    }
    s->ma.rounds = coll_div_ceil(longest, s->ma.slice);
    return SHMCOLL_OK;
}

/* Stage k of the round: block j = (me + 1 + k) mod p, whose first element is s->first, which
 * then moves on to block j + 1's. */
static void chain_slice(shmcoll_task_t *task, const char **mine, size_t *n, void **out) {
    reduce_ma_t *s = SHMCOLL_TASK_STATE(task, reduce_ma_t);
    const shmcoll_reduce_op_t *op = task->args->op;
    const int me = task->ch->rank, p = task->ch->size;
    const int j = (me + 1 + s->ma.k) % p;
    const size_t len = coll_block_len(&s->ma.blocks, j);
    const size_t lo = s->ma.round * s->ma.slice;
    *n = lo < len ? (len - lo < s->ma.slice ? len - lo : s->ma.slice) : 0;
    *mine = s->ma.in.input + (s->first + lo) * op->extent;
    *out = s->ma.k == p - 1 && s->ma.result == COLL_RESULT_SCATTERED
               ? (char *)task->args->recvbuf + lo * op->extent
               : NULL;
    s->first = j + 1 < p ? s->first + len : 0;
}

/* Copy block s->j's reduced slice of the round (posted at the final step) into recvbuf. */
static void copy_out_slice(shmcoll_task_t *task, const reduce_ma_t *s) {
    const shmcoll_reduce_op_t *op = task->args->op;
    size_t first, len;
    coll_block_at(&s->ma.blocks, s->j, &first, &len);
    const size_t lo = s->ma.round * s->ma.slice;
    const size_t n = len - lo < s->ma.slice ? len - lo : s->ma.slice;
    coll_copy_out(task, (char *)task->args->recvbuf + (first + lo) * op->extent,
                  shmcoll_channel_buffer(task->ch, s->j, s->ma.step),
                  shmcoll_reduce_op_span(op, n));
}

static shmcoll_status_t reduce_ma_progress(shmcoll_task_t *task) {
    reduce_ma_t *s = SHMCOLL_TASK_STATE(task, reduce_ma_t);
    coll_ma_t *ma = &s->ma;
    shmcoll_channel_t *ch = task->ch;
    const int p = ch->size;
    SHMCOLL_RESUME_BEGIN(&task->pc);
    coll_aside_copy(task, &ma->in);
    for (ma->round = 0; ma->round < ma->rounds; ma->round++) {
        s->first = s->first0;
        SHMCOLL_AWAIT_TEST(&task->pc, shmcoll_coll_ma_chain(task, ma, p, chain_slice));
        if (ma->wants_all && ma->result != COLL_RESULT_SCATTERED) {
            for (s->j = 0; s->j < p; s->j++) {
                if (ma->round * ma->slice >= coll_block_len(&ma->blocks, s->j)) continue;
                SHMCOLL_AWAIT(task, &task->pc,
                              shmcoll_channel_test_post(ch, s->j, ma->step, &task->wait));
                copy_out_slice(task, s);
            }
        }
        shmcoll_channel_ack(ch, ma->step);
    }
    SHMCOLL_RESUME_END(&task->pc);
}

void shmcoll_coll_ma_fini(shmcoll_task_t *task) {
    free(SHMCOLL_TASK_STATE(task, coll_ma_t)->in.copy);
}

const shmcoll_task_ops_t shmcoll_coll_reduce_ma_ops = {
    .init = reduce_ma_init, .progress = reduce_ma_progress, .fini = shmcoll_coll_ma_fini};
