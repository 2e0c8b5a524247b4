/* See allreduce_plan.h. */
#include "group/allreduce_plan.h"
#include "base/config.h"

#include <limits.h>

void shmcoll_allreduce_plan(size_t count, size_t extent, int leaders, int steps_block, int asked,
                            shmcoll_allreduce_plan_t *plan) {
    const shmcoll_config_t *cfg = shmcoll_config();
    *plan = (shmcoll_allreduce_plan_t){
        .form = SHMCOLL_ALLREDUCE_ONE_LEADER, .shares = 1, .segment = count, .segments = 1};
    if (leaders < 2 || asked == SHMCOLL_ALLREDUCE_ONE_LEADER + 1 ||
        (!asked && count * extent < cfg->net_split))
        return;
    plan->shares = leaders;
    /* Whole where a step blocks (and a share fits the MPI library's int count). */
    const int whole = asked ? asked == SHMCOLL_ALLREDUCE_SHARES + 1 : steps_block;
    if (whole && count / (size_t)leaders < (size_t)INT_MAX) {
        plan->form = SHMCOLL_ALLREDUCE_SHARES;
        return;
    }
    plan->form = SHMCOLL_ALLREDUCE_SEGMENTS;
    size_t segment = cfg->net_segment / extent;
    if (segment < (size_t)leaders) segment = (size_t)leaders;
    if (segment > (size_t)INT_MAX) segment = (size_t)INT_MAX; /* a share fits an int */
    plan->segment = segment;
    plan->segments = (count + segment - 1) / segment;
}

size_t shmcoll_allreduce_plan_channel(const shmcoll_allreduce_plan_t *plan, size_t count, int c) {
    if (c >= plan->shares) return 0;
    size_t total = 0;
    for (size_t first = 0; first < count; first += plan->segment) {
        const size_t n = count - first < plan->segment ? count - first : plan->segment;
        total += shmcoll_allreduce_share_at(n, c + 1, plan->shares) -
                 shmcoll_allreduce_share_at(n, c, plan->shares);
    }
    return total;
}

const char *shmcoll_allreduce_form_name(shmcoll_allreduce_form_t form) {
    static const char *const names[] = {"one leader", "shares", "segments"};
    return (unsigned)form < sizeof names / sizeof names[0] ? names[form] : "?";
}
