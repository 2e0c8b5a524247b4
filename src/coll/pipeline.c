/* What the slot pipelines of gather(v), scatter(v) and alltoall(v) share: their state and its
 * init, the v-variants' agreement on the longest block (after which the call moves single-copy or
 * in rounds), and the root's or every member's filling of one piece per destination. */
#include "coll/coll_internal.h"

void shmcoll_coll_pipeline_init(shmcoll_task_t *task, coll_pipeline_t *s,
                                const coll_bytes_t *blocks, int root, coll_pipeline_plan_fn plan) {
    const int me = task->ch->rank;
    s->agreeing = shmcoll_coll_kinds[task->args->kind].varying;
    s->single = 0;
    s->mine_longest = 0;
    s->use_inline = 0;
    s->agree = (coll_agree_t){0};
    s->single_copy = (coll_single_t){0};
    s->collect = (coll_collect_t){0};
    if (!s->agreeing) {
        plan(task, s, task->args->count);
        return;
    }
    if (root == COLL_ALL || root == me)
        for (int r = 0; r < task->ch->size; r++)
            if (r != me && coll_bytes_count(blocks, r) > s->mine_longest)
                s->mine_longest = coll_bytes_count(blocks, r);
}

shmcoll_status_t shmcoll_coll_pipeline_agree(shmcoll_task_t *task, coll_pipeline_t *s, int root,
                                             int may_single, coll_pipeline_plan_fn plan) {
    SHMCOLL_CHECK(shmcoll_coll_agree_max(task, &s->agree, s->mine_longest, root));
    s->single = may_single && coll_single_copy(task->team, root != COLL_ALL, s->agree.result);
    if (s->single)
        task->algo = "single-copy";
    else
        plan(task, s, s->agree.result);
    return SHMCOLL_OK;
}

void shmcoll_coll_fill_pieces(shmcoll_task_t *task, const coll_pipeline_t *s, const char *sendbuf,
                              const coll_bytes_t *blocks) {
    shmcoll_channel_t *ch = task->ch;
    char *slots = (char *)coll_slot(ch, ch->rank, s->step, s->use_inline);
    for (int r = 0; r < ch->size; r++) {
        if (r == ch->rank) continue;
        coll_copy(task, slots + (size_t)r * s->piece,
                  sendbuf + coll_bytes_displ(blocks, r) + s->round * s->piece,
                  coll_round_bytes(coll_bytes_count(blocks, r), s->round, s->piece));
    }
}
