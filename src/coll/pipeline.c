/* What the slot pipelines of gather(v), scatter(v) and alltoall(v) share: their state and its
 * init, the v-variants' agreement on the longest block (after which the call moves single-copy or
 * in rounds), and the root's or every member's filling of one piece per destination. */
#include "coll/coll_internal.h"
#include "coll/heap.h"

/* A flag of what a member brings to the agreement: the buffer it would expose single-copy
 * (gatherv: the root's receive buffer; scatterv: the root's send buffer; alltoallv: every send
 * buffer) does not lie in a shared heap the team may map (coll/heap.h). The agreed flags then
 * tell whether any does not; where none, blocks of any length move single-copy, through the
 * owners' mapped arenas, at memory speed. */
#define OUTSIDE_HEAP 1

static int exposed_in_heap(const shmcoll_task_t *task) {
    const shmcoll_coll_args_t *a = task->args;
    shmcoll_heap_ref_t ref;
    shmcoll_coll_heap_locate(task, a->kind == SHMCOLL_KIND_GATHERV ? a->recvbuf : a->sendbuf, &ref);
    return ref.nonce != 0;
}

void shmcoll_coll_pipeline_init(shmcoll_task_t *task, coll_pipeline_t *s,
                                const coll_bytes_t *blocks, int root, coll_pipeline_plan_fn plan) {
    const int me = task->ch->rank;
    s->agreeing = shmcoll_coll_kinds[task->args->kind].varying;
    s->single = 0;
    s->mine_longest = 0;
    s->slot = SHMCOLL_SLOT_BUFFER;
    s->agree = (coll_agree_t){0};
    s->single_copy = (coll_single_t){0};
    s->collect = (coll_collect_t){0};
    if (!s->agreeing) {
        plan(task, s, task->args->count);
        return;
    }
    if (root == COLL_ALL || root == me) {
        for (int r = 0; r < task->ch->size; r++)
            if (r != me && coll_bytes_count(blocks, r) > s->mine_longest)
                s->mine_longest = coll_bytes_count(blocks, r);
        if (!exposed_in_heap(task)) s->agree.flags = OUTSIDE_HEAP;
    }
}

shmcoll_status_t shmcoll_coll_pipeline_agree(shmcoll_task_t *task, coll_pipeline_t *s, int root,
                                             int may_single, coll_pipeline_plan_fn plan) {
    SHMCOLL_CHECK(shmcoll_coll_agree_max(task, &s->agree, s->mine_longest, root));
    const shmcoll_team_t *team = task->team;
    const int in_heaps = !(s->agree.flags & OUTSIDE_HEAP);
    s->single = may_single && (coll_single_copy(team, root != COLL_ALL, s->agree.result) ||
                               (in_heaps && team->heap && team->cma != SHMCOLL_CMA_OFF &&
                                s->agree.result >= team->heap_min));
    if (s->single)
        task->algo = "single-copy";
    else
        plan(task, s, s->agree.result);
    return SHMCOLL_OK;
}

void shmcoll_coll_fill_pieces(shmcoll_task_t *task, const coll_pipeline_t *s, const char *sendbuf,
                              const coll_bytes_t *blocks) {
    shmcoll_channel_t *ch = task->ch;
    char *slots = (char *)coll_slot(ch, ch->rank, s->step, s->slot);
    for (int r = 0; r < ch->size; r++) {
        if (r == ch->rank) continue;
        coll_copy(task, slots + coll_other_index(r, ch->rank) * s->piece,
                  sendbuf + coll_bytes_displ(blocks, r) + s->round * s->piece,
                  coll_round_bytes(coll_bytes_count(blocks, r), s->round, s->piece));
    }
}
