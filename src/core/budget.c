/* The process's shared-memory budget. See budget.h.
 *
 * The held bytes are one atomic counter: a grant is a compare-and-swap loop that takes what is
 * left up to the request, so concurrent team creations in several threads share the budget
 * without a lock and never hold more than it together. */
#include "core/budget.h"

#include "base/config.h"

#include <stdatomic.h>

static _Atomic uint64_t held, peak, teams, shrunk, refused;

size_t shmcoll_budget_cost(size_t segment_bytes, int size) {
    const size_t members = size > 0 ? (size_t)size : 1;
    return (segment_bytes + members - 1) / members + SHMCOLL_BUDGET_TEAM_CHARGE;
}

size_t shmcoll_budget_take(size_t want) {
    const uint64_t limit = shmcoll_config()->shm_budget;
    uint64_t now = atomic_load(&held), grant;
    do {
        grant = now >= limit ? 0 : limit - now < want ? limit - now : want;
    } while (grant && !atomic_compare_exchange_weak(&held, &now, now + grant));
    uint64_t top = atomic_load(&peak);
    while (grant && now + grant > top && !atomic_compare_exchange_weak(&peak, &top, now + grant)) {
    }
    return (size_t)grant;
}

void shmcoll_budget_give(size_t bytes) {
    if (bytes) atomic_fetch_sub(&held, bytes);
}

/* What each event does: one counter, one up or one down. */
static const struct {
    _Atomic uint64_t *counter;
    int down;
} notes[] = {
    [SHMCOLL_BUDGET_MADE] = {&teams, 0},
    [SHMCOLL_BUDGET_SHRUNK] = {&shrunk, 0},
    [SHMCOLL_BUDGET_REFUSED] = {&refused, 0},
    [SHMCOLL_BUDGET_ENDED] = {&teams, 1},
};

void shmcoll_budget_note(shmcoll_budget_event_t event) {
    if ((unsigned)event >= sizeof notes / sizeof notes[0]) return;
    if (notes[event].down)
        atomic_fetch_sub(notes[event].counter, 1);
    else
        atomic_fetch_add(notes[event].counter, 1);
}

shmcoll_budget_usage_t shmcoll_budget_usage(void) {
    return (shmcoll_budget_usage_t){.limit = shmcoll_config()->shm_budget,
                                    .held = atomic_load(&held),
                                    .peak = atomic_load(&peak),
                                    .teams = atomic_load(&teams),
                                    .shrunk = atomic_load(&shrunk),
                                    .refused = atomic_load(&refused)};
}
