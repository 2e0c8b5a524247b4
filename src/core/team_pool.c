/* Kept segments of destroyed teams (see team_pool.h): a small table under one lock. */
#include "core/team_pool.h"
#include "base/config.h"
#include "core/budget.h"

#include <pthread.h>
#include <string.h>

#define POOL_MAX 16 /* places; SHMCOLL_KEEP_SEGMENTS caps how many are used */

typedef struct kept {
    shmcoll_segment_t seg; /* seg.base NULL: a free place */
    uint64_t id[2];
    int rank, size;
    size_t budget;
    uint64_t age; /* when it was kept: the oldest goes first */
    int reserved; /* listed by a setup that has not chosen yet */
} kept_t;

static kept_t pool[POOL_MAX];
static uint64_t clock_ticks;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int places(void) {
    const long asked = shmcoll_config()->keep_segments;
    return asked <= 0 ? 0 : asked >= POOL_MAX ? POOL_MAX : (int)asked;
}

static kept_t *find(const uint64_t id[2]) {
    for (int i = 0; i < POOL_MAX; i++)
        if (pool[i].seg.base && pool[i].id[0] == id[0] && pool[i].id[1] == id[1]) return &pool[i];
    return NULL;
}

/* Unmaps a kept segment and gives its budget back; the place is free again. Under the lock. */
static void let_go(kept_t *k) {
    shmcoll_shm_segment_detach(&k->seg);
    shmcoll_budget_give(k->budget);
    memset(k, 0, sizeof *k);
}

/* The oldest (or the newest) unreserved kept segment, NULL when none. Under the lock. */
static kept_t *by_age(int newest) {
    kept_t *pick = NULL;
    for (int i = 0; i < POOL_MAX; i++)
        if (pool[i].seg.base && !pool[i].reserved &&
            (!pick || (newest ? pool[i].age > pick->age : pool[i].age < pick->age)))
            pick = &pool[i];
    return pick;
}

void shmcoll_team_pool_offer(shmcoll_pool_offer_t offers[SHMCOLL_POOL_OFFERS]) {
    memset(offers, 0, SHMCOLL_POOL_OFFERS * sizeof *offers);
    pthread_mutex_lock(&lock);
    for (int n = 0; n < SHMCOLL_POOL_OFFERS; n++) {
        kept_t *newest = by_age(1);
        if (!newest) break;
        newest->reserved = 1;
        shmcoll_budget_give(newest->budget); /* lent to the setup (see team_pool.h) */
        offers[n] = (shmcoll_pool_offer_t){.id = {newest->id[0], newest->id[1]},
                                           .bytes = newest->seg.size,
                                           .rank = newest->rank,
                                           .size = newest->size};
    }
    pthread_mutex_unlock(&lock);
}

/* Whether the list at `list` holds `id` at `rank` in a team of `size` of `bytes` bytes. */
static int lists(const shmcoll_pool_offer_t *list, const uint64_t id[2], int rank, int size,
                 size_t bytes) {
    for (int k = 0; k < SHMCOLL_POOL_OFFERS; k++)
        if (list[k].bytes == bytes && list[k].id[0] == id[0] && list[k].id[1] == id[1] &&
            list[k].rank == rank && list[k].size == size)
            return 1;
    return 0;
}

int shmcoll_team_pool_match(const shmcoll_pool_offer_t *lists_of, size_t stride, int size,
                            size_t bytes) {
    const shmcoll_pool_offer_t *mine = lists_of;
    for (int k = 0; k < SHMCOLL_POOL_OFFERS; k++) {
        if (!mine[k].bytes) continue;
        int everyone = 1;
        for (int r = 0; r < size && everyone; r++) {
            const void *list = (const char *)lists_of + (size_t)r * stride;
            everyone = lists(list, mine[k].id, r, size, bytes);
        }
        if (everyone) return k;
    }
    return -1;
}

int shmcoll_team_pool_take(const uint64_t id[2], shmcoll_segment_t *seg) {
    pthread_mutex_lock(&lock);
    kept_t *k = find(id);
    if (k) {
        *seg = k->seg; /* its budget was lent to the setup when it was offered */
        memset(k, 0, sizeof *k);
    }
    pthread_mutex_unlock(&lock);
    return k != NULL;
}

void shmcoll_team_pool_unreserve(const shmcoll_pool_offer_t offers[SHMCOLL_POOL_OFFERS]) {
    pthread_mutex_lock(&lock);
    for (int n = 0; n < SHMCOLL_POOL_OFFERS; n++) {
        kept_t *k = offers[n].bytes ? find(offers[n].id) : NULL;
        if (!k) continue;
        k->reserved = 0;
        /* Its budget back, or it goes: the setup may have spent it. */
        const size_t got = shmcoll_budget_take(k->budget);
        if (got < k->budget) {
            shmcoll_budget_give(got);
            k->budget = 0;
            let_go(k);
        }
    }
    pthread_mutex_unlock(&lock);
}

int shmcoll_team_pool_put(shmcoll_segment_t *seg, const uint64_t id[2], int rank, int size,
                          size_t budget) {
    const int used = places();
    pthread_mutex_lock(&lock);
    int count = 0;
    kept_t *free_place = NULL;
    for (int i = 0; i < POOL_MAX; i++) {
        if (pool[i].seg.base)
            count++;
        else if (!free_place)
            free_place = &pool[i];
    }
    if (used && count >= used) { /* full: the oldest makes room */
        kept_t *old = by_age(0);
        if (old) {
            let_go(old);
            free_place = old;
            count--;
        }
    }
    const int keep = used && count < used && free_place;
    if (keep) {
        free_place->seg = *seg;
        free_place->id[0] = id[0], free_place->id[1] = id[1];
        free_place->rank = rank;
        free_place->size = size;
        free_place->budget = budget;
        free_place->age = ++clock_ticks;
        memset(seg, 0, sizeof *seg);
    }
    pthread_mutex_unlock(&lock);
    return keep;
}

int shmcoll_team_pool_let_go(void) {
    pthread_mutex_lock(&lock);
    kept_t *k = by_age(0);
    if (k) let_go(k);
    pthread_mutex_unlock(&lock);
    return k != NULL;
}

void shmcoll_team_pool_drain(void) {
    while (shmcoll_team_pool_let_go()) {
    }
}
