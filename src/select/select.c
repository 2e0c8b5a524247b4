#include "select/select.h"
#include "coll/coll_internal.h"
#include "core/config.h"
#include "core/team_topo.h"

#include <stdlib.h>

#define BANDS 64

/* Per team: its description, the tuning rules in force when it was set up, and the table. */
typedef struct select_state {
    shmcoll_select_team_t team;
    shmcoll_tune_t tune;
    const shmcoll_algo_t *table[SHMCOLL_KIND_COUNT][2][BANDS];
} select_state_t;

static const shmcoll_algo_t *cheapest(const shmcoll_select_args_t *args,
                                      const shmcoll_select_team_t *team) {
    const shmcoll_algo_t *best = NULL;
    double best_cost = 0;
    for (int i = 0; shmcoll_algo_at(i); i++) {
        const shmcoll_algo_t *a = shmcoll_algo_at(i);
        if (a->kind != args->kind || !a->supports(args, team)) continue;
        double c = a->cost(args, team);
        if (!best || c < best_cost) best = a, best_cost = c;
    }
    return best;
}

/* The first algorithm of the rule's chain that supports the call, or NULL. */
static const shmcoll_algo_t *tuned(const shmcoll_tune_t *tune, const shmcoll_select_args_t *args,
                                   const shmcoll_select_team_t *team) {
    const shmcoll_tune_rule_t *rule =
        tune ? shmcoll_tune_lookup(tune, args->kind, args->bytes) : NULL;
    for (int i = 0; rule && i < rule->nalgos; i++)
        if (rule->algos[i]->supports(args, team)) return rule->algos[i];
    return NULL;
}

const shmcoll_algo_t *shmcoll_select(const shmcoll_select_args_t *args,
                                     const shmcoll_select_team_t *team,
                                     const shmcoll_tune_t *tune) {
    const shmcoll_algo_t *algo = tuned(tune, args, team);
    return algo ? algo : cheapest(args, team);
}

/* Levels, largest group and contiguity of a hierarchy (NULL: flat). */
static int shape_of(const shmcoll_topo_hier_t *hier, int size, int *max_group, int *contiguous) {
    *max_group = size;
    *contiguous = 1;
    if (!hier) return 1;
    *max_group = 1;
    for (int i = 0; i < hier->nlevels; i++) {
        *contiguous &= hier->levels[i].contiguous;
        for (int g = 0; g < hier->levels[i].ngroups; g++)
            if (hier->levels[i].groups[g].nmembers > *max_group)
                *max_group = hier->levels[i].groups[g].nmembers;
    }
    return hier->nlevels;
}

void shmcoll_select_describe_shape(int size, size_t chunk, int oversubscribed,
                                   const shmcoll_topo_hier_t *bcast,
                                   const shmcoll_topo_hier_t *reduce, shmcoll_select_team_t *out) {
    *out = (shmcoll_select_team_t){.size = size, .chunk = chunk, .oversubscribed = oversubscribed};
    int unused;
    out->bcast_levels = shape_of(bcast, size, &out->bcast_max_group, &unused);
    out->reduce_levels = shape_of(reduce, size, &out->reduce_max_group, &out->reduce_contiguous);
}

void shmcoll_select_describe(shmcoll_team_t *team, shmcoll_select_team_t *out) {
    const shmcoll_config_t *config = shmcoll_config();
    const shmcoll_topo_hier_t *bcast = NULL, *reduce = NULL;
    if (shmcoll_team_hierarchy(team, config->hier_bcast, -1, &bcast) != SHMCOLL_OK) bcast = NULL;
    if (shmcoll_team_hierarchy(team, config->hier_reduce, -1, &reduce) != SHMCOLL_OK) reduce = NULL;
    shmcoll_select_describe_shape(team->size, team->channel.chunk, team->oversubscribed, bcast,
                                  reduce, out);
    out->cma = team->cma;
    out->socket_groups = shmcoll_coll_ma2_groups(team);
    out->cma_min = team->cma_min;
}

static void state_free(void *state) {
    free(state);
}

static int band_of(size_t bytes) {
    int band = 0;
    while (bytes) band++, bytes >>= 1;
    return band; /* 0 for 0 bytes, else 1 + floor(log2(bytes)) */
}

const shmcoll_algo_t *shmcoll_select_for_team(shmcoll_team_t *team,
                                              const shmcoll_select_args_t *args) {
    select_state_t *state = team->select_state;
    if (!state) {
        state = calloc(1, sizeof *state);
        if (!state)
            return shmcoll_select(
                args, &(shmcoll_select_team_t){.size = team->size, .chunk = team->channel.chunk},
                NULL);
        shmcoll_select_describe(team, &state->team);
        state->tune = *shmcoll_tune_current();
        team->select_state = state;
        team->select_state_free = state_free;
    }
    const shmcoll_algo_t *forced = tuned(&state->tune, args, &state->team);
    if (forced) return forced;
    /* The table answers for typical elements (up to a cache line); it is keyed by the band's
     * lower bound, so every member fills an entry with the same value. */
    const int band = band_of(args->bytes);
    const shmcoll_algo_t **slot = &state->table[args->kind][args->commutative != 0][band];
    if (!*slot) {
        shmcoll_select_args_t typical = *args;
        typical.bytes = band ? (size_t)1 << (band - 1) : 0;
        typical.extent = 8;
        *slot = cheapest(&typical, &state->team);
    }
    if (*slot && (*slot)->supports(args, &state->team)) return *slot;
    return cheapest(args, &state->team);
}
