#include "select/select.h"
#include "base/config.h"
#include "core/team_topo.h"

#include <stdlib.h>

/* The choices of one kind for (commutative, in place, size band). */
typedef const shmcoll_algo_t *select_table_t[2][2][SHMCOLL_SELECT_BANDS];

/* Per team: its description, the tuning rules in force when it was set up, and a table per kind
 * (made on the kind's first call). */
typedef struct select_state {
    shmcoll_select_args_t last_args; /* the previous call and its choice: applications repeat */
    const shmcoll_algo_t *last_algo;
    shmcoll_select_team_t team;
    shmcoll_tune_t tune;
    select_table_t *tables[SHMCOLL_KIND_COUNT];
    /* The choices of the same team without its wrapping rows (team.heap 0): what a wrapping
     * row runs when its call does not qualify (select.h). Made on first use. */
    struct select_state *inner;
} select_state_t;

/* The first row without a cost model that supports the call, in registry order, or NULL. Such
 * rows encode measured rules with thresholds of their own (not on size bands). */
static const shmcoll_algo_t *preferred(const shmcoll_select_args_t *args,
                                       const shmcoll_select_team_t *team) {
    for (int i = 0; shmcoll_algo_at(i); i++) {
        const shmcoll_algo_t *a = shmcoll_algo_at(i);
        if (!a->cost && a->ops && shmcoll_algo_serves(a, args->kind) && a->supports(args, team))
            return a;
    }
    return NULL;
}

/* A preferred row, else the supporting row of lowest modelled cost. */
static const shmcoll_algo_t *cheapest(const shmcoll_select_args_t *args,
                                      const shmcoll_select_team_t *team) {
    const shmcoll_algo_t *best = preferred(args, team);
    if (best) return best;
    double best_cost = 0;
    for (int i = 0; shmcoll_algo_at(i); i++) {
        const shmcoll_algo_t *a = shmcoll_algo_at(i);
        if (!a->cost || !shmcoll_algo_serves(a, args->kind) || !a->supports(args, team)) continue;
        double c = a->cost(args, team);
        if (!best || c < best_cost) best = a, best_cost = c;
    }
    return best;
}

/* The first algorithm of the rule's chain that supports the call, or NULL. */
static const shmcoll_algo_t *tuned(const shmcoll_tune_t *tune, const shmcoll_select_args_t *args,
                                   const shmcoll_select_team_t *team) {
    const shmcoll_tune_rule_t *rule =
        tune ? shmcoll_tune_lookup(tune, args->kind, args->bytes, team->size, 1) : NULL;
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
    if (shmcoll_team_hierarchy(&team->hiers, config->hier_bcast, -1, &bcast) != SHMCOLL_OK)
        bcast = NULL;
    if (shmcoll_team_hierarchy(&team->hiers, config->hier_reduce, -1, &reduce) != SHMCOLL_OK)
        reduce = NULL;
    shmcoll_select_describe_shape(team->size, team->chunk, team->oversubscribed, bcast, reduce,
                                  out);
    out->cma = team->cma;
    out->socket_groups = shmcoll_team_socket_groups(&team->hiers);
    out->cma_min = team->cma_min;
    out->cma_max = team->cma_max;
    out->heap = team->heap;
    out->heap_min = team->heap_min;
    out->heap_chunks = config->heap_chunks > 0 ? config->heap_chunks : 0;
}

static void state_free(void *state) {
    select_state_t *s = state;
    if (!s) return;
    for (int k = 0; k < SHMCOLL_KIND_COUNT; k++) free(s->tables[k]);
    state_free(s->inner);
    free(s);
}

/* The team's selection state, made on first use. Without memory for it the choice is made
 * from the same description each time, uncached: the same on every member either way. */
static select_state_t *state_of(shmcoll_team_t *team) {
    if (!team->select_state) {
        select_state_t *state = calloc(1, sizeof *state);
        if (!state) return NULL;
        shmcoll_select_describe(team, &state->team);
        state->tune = *shmcoll_tune_current();
        team->select_state = state;
        team->select_state_free = state_free;
    }
    return team->select_state;
}

static const shmcoll_algo_t *choose(select_state_t *state, const shmcoll_select_args_t *args);

static int same_call(const shmcoll_select_args_t *a, const shmcoll_select_args_t *b) {
    return a->kind == b->kind && a->bytes == b->bytes && a->extent == b->extent &&
           a->commutative == b->commutative && a->in_place == b->in_place;
}

const shmcoll_algo_t *shmcoll_select_for_team(shmcoll_team_t *team,
                                              const shmcoll_select_args_t *args) {
    select_state_t *state = state_of(team);
    if (!state) {
        shmcoll_select_team_t described;
        shmcoll_select_describe(team, &described);
        return shmcoll_select(args, &described, shmcoll_tune_current());
    }
    if (state->last_algo && same_call(args, &state->last_args)) return state->last_algo;
    const shmcoll_algo_t *algo = choose(state, args);
    state->last_args = *args;
    state->last_algo = algo;
    return algo;
}

const shmcoll_algo_t *shmcoll_select_inner_for_team(shmcoll_team_t *team,
                                                    const shmcoll_select_args_t *args) {
    select_state_t *state = state_of(team);
    if (state && !state->inner && (state->inner = calloc(1, sizeof *state->inner))) {
        state->inner->team = state->team;
        state->inner->team.heap = 0;
        state->inner->tune = state->tune;
    }
    if (!state || !state->inner) {
        shmcoll_select_team_t described;
        shmcoll_select_describe(team, &described);
        described.heap = 0;
        return shmcoll_select(args, &described, shmcoll_tune_current());
    }
    state = state->inner;
    if (state->last_algo && same_call(args, &state->last_args)) return state->last_algo;
    state->last_algo = choose(state, args);
    state->last_args = *args;
    return state->last_algo;
}

const shmcoll_algo_t *shmcoll_select_row_for_team(shmcoll_team_t *team,
                                                  const shmcoll_select_args_t *args,
                                                  const char *name) {
    const shmcoll_algo_t *row = shmcoll_algo_find(args->kind, name);
    if (!row || !row->ops || !row->supports) return NULL;
    select_state_t *state = state_of(team);
    shmcoll_select_team_t described;
    if (!state) shmcoll_select_describe(team, &described);
    return row->supports(args, state ? &state->team : &described) ? row : NULL;
}

/* The tuning rules' choice, else the table's. */
static const shmcoll_algo_t *choose(select_state_t *state, const shmcoll_select_args_t *args) {
    const shmcoll_algo_t *forced = tuned(&state->tune, args, &state->team);
    if (forced) return forced;
    const shmcoll_algo_t *rule = preferred(args, &state->team);
    if (rule) return rule;
    /* The table answers for typical elements (up to a cache line); it is keyed by the band's
     * lower bound, so every member fills an entry with the same value. */
    if (!state->tables[args->kind]) state->tables[args->kind] = calloc(1, sizeof(select_table_t));
    select_table_t *table = state->tables[args->kind];
    if (!table) return cheapest(args, &state->team);
    const int band = shmcoll_select_band(args->bytes);
    const shmcoll_algo_t **slot = &(*table)[args->commutative != 0][args->in_place != 0][band];
    if (!*slot) {
        shmcoll_select_args_t typical = *args;
        typical.bytes = band ? (size_t)1 << (band - 1) : 0;
        typical.extent = 8;
        *slot = cheapest(&typical, &state->team);
    }
    if (*slot && (*slot)->supports(args, &state->team)) return *slot;
    return cheapest(args, &state->team);
}
