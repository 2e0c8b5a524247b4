#include "coll/radix_run.h"
#include "patterns/cyclic.h"
#include "patterns/recexch.h"

shmcoll_status_t shmcoll_coll_radix_init(shmcoll_task_t *task, const coll_radix_steps_t *steps) {
    coll_radix_run_t *run = SHMCOLL_TASK_STATE(task, coll_radix_run_t);
    const shmcoll_reduce_op_t *op = task->args->op;
    const int p = task->ch->size;
    if (task->params.factors)
        run->f = *task->params.factors;
    else
        SHMCOLL_CHECK(shmcoll_coll_radix_default(steps->kind, p, &run->f));
    const shmcoll_status_t fits = steps->kind == SHMCOLL_COLL_RADIX_RECEXCH
                                      ? shmcoll_pattern_recexch_check(p, &run->f)
                                      : shmcoll_pattern_cyclic_check(p, &run->f);
    if (fits != SHMCOLL_OK) return SHMCOLL_ERR_INVALID;
    if (!coll_op_usable(op)) return SHMCOLL_ERR_NOT_SUPPORTED;
    const size_t span = shmcoll_reduce_op_span(op, task->args->count);
    run->steps = steps;
    run->use_inline = span <= SHMCOLL_INLINE_BYTES;
    run->per = run->use_inline ? task->args->count : task->ch->chunk / op->extent;
    if (run->per == 0) return SHMCOLL_ERR_NOT_SUPPORTED;
    /* A checked factorisation has no radix above p: 4p ints and 2p + 2 pointers suffice. */
    run->members = task->lane->ints;
    run->bases = task->lane->ptrs;
    run->x = task->lane->ptrs + p;
    if (p > 1) coll_declare_working_set(task, 2 * span, span);
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_coll_radix_progress(shmcoll_task_t *task) {
    coll_radix_run_t *run = SHMCOLL_TASK_STATE(task, coll_radix_run_t);
    const coll_radix_steps_t *a = run->steps;
    shmcoll_channel_t *ch = task->ch;
    const shmcoll_reduce_op_t *op = task->args->op;
    const size_t count = task->args->count;
    const int nsteps = run->f.nsteps;
    SHMCOLL_RESUME_BEGIN(&task->pc);
    /* Alone: the input is the result. */
    if (ch->size == 1)
        coll_copy(task, task->args->recvbuf, coll_input(task), shmcoll_reduce_op_span(op, count));
    for (run->first = 0; ch->size > 1 && run->first < count; run->first += run->per) {
        {
            const size_t n = count - run->first < run->per ? count - run->first : run->per;
            run->input = coll_input(task) + run->first * op->extent;
            run->recvbuf = (char *)task->args->recvbuf + run->first * op->extent;
            run->blocks = coll_blocks_equal(op, n, ch->size);
        }

        /* Step 0: the input into the slot. */
        run->step = shmcoll_channel_next_step(ch);
        if (a->publish_writes(task, run)) {
            SHMCOLL_AWAIT(task, &task->pc, shmcoll_channel_test_claim(ch, run->step, &task->wait));
            a->publish(task, run);
        }
        shmcoll_channel_post(ch, run->step);

        /* Reduce-scatter, each step reading the one before. */
        for (run->k = 0; run->k < nsteps; run->k++) {
            run->step = shmcoll_channel_next_step(ch);
            run->j = a->reduce_scatter_down ? nsteps - 1 - run->k : run->k;
            if (a->reduce_scatter_begin(task, run)) {
                for (run->i = 0; run->i < run->f.radix[run->j]; run->i++) {
                    run->peer = a->reduce_scatter_peer(task, run, run->i);
                    if (run->peer < 0) continue;
                    SHMCOLL_AWAIT(
                        task, &task->pc,
                        shmcoll_channel_test_post(ch, run->peer, run->step - 1, &task->wait));
                }
                SHMCOLL_AWAIT(task, &task->pc,
                              shmcoll_channel_test_claim(ch, run->step, &task->wait));
                a->reduce_scatter(task, run);
            }
            shmcoll_channel_post(ch, run->step);
            shmcoll_channel_ack(ch, run->step - 1);
        }

        /* Allgather, undoing the reduce-scatter steps in reverse; the last fills recvbuf. */
        for (run->k = 0; run->k < nsteps; run->k++) {
            run->step = shmcoll_channel_next_step(ch);
            run->j = a->reduce_scatter_down ? run->k : nsteps - 1 - run->k;
            run->last = run->k == nsteps - 1;
            if (a->allgather_begin(task, run)) {
                SHMCOLL_AWAIT(task, &task->pc,
                              shmcoll_channel_test_claim(ch, run->step, &task->wait));
            }
            for (run->i = 0; run->i < run->f.radix[run->j]; run->i++) {
                run->peer = a->allgather_peer(task, run, run->i);
                if (run->peer < 0) continue;
                if (run->peer != ch->rank) {
                    SHMCOLL_AWAIT(
                        task, &task->pc,
                        shmcoll_channel_test_post(ch, run->peer, run->step - 1, &task->wait));
                }
                a->allgather_copy(task, run, run->i);
            }
            if (!run->last) shmcoll_channel_post(ch, run->step);
            shmcoll_channel_ack(ch, run->step - 1);
        }
        shmcoll_channel_ack(ch, run->step);
    }
    SHMCOLL_RESUME_END(&task->pc);
}
