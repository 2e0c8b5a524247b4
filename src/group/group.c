/* The group's map and its one entry for every collective. See group.h. */
#include "group/group.h"

#include <stdlib.h>
#include <string.h>

shmcoll_status_t shmcoll_group_map_init(shmcoll_group_map_t *map, const int *labels, int size) {
    memset(map, 0, sizeof *map);
    map->size = size;
    map->node_of = malloc((size_t)size * sizeof *map->node_of);
    map->node_rank = malloc((size_t)size * sizeof *map->node_rank);
    map->node_size = calloc((size_t)size, sizeof *map->node_size);
    map->node_first = calloc((size_t)size + 1, sizeof *map->node_first);
    map->members = malloc((size_t)size * sizeof *map->members);
    int *first = malloc((size_t)size * sizeof *first); /* each node's lowest member */
    if (!map->node_of || !map->node_rank || !map->node_size || !map->node_first || !map->members ||
        !first) {
        free(first);
        shmcoll_group_map_fini(map);
        return SHMCOLL_ERR_NO_MEMORY;
    }
    /* Nodes are numbered by their lowest member. */
    for (int r = 0; r < size; r++) {
        int n = 0;
        while (n < map->nnodes && labels[first[n]] != labels[r]) n++;
        if (n == map->nnodes) first[map->nnodes++] = r;
        map->node_of[r] = n;
        map->node_rank[r] = map->node_size[n]++;
    }
    for (int n = 0; n < map->nnodes; n++)
        map->node_first[n + 1] = map->node_first[n] + map->node_size[n];
    for (int r = 0; r < size; r++)
        map->members[map->node_first[map->node_of[r]] + map->node_rank[r]] = r;
    free(first);
    return SHMCOLL_OK;
}

void shmcoll_group_map_fini(shmcoll_group_map_t *map) {
    free(map->node_of);
    free(map->node_rank);
    free(map->node_size);
    free(map->node_first);
    free(map->members);
    memset(map, 0, sizeof *map);
}

int shmcoll_group_map_block(const shmcoll_group_map_t *map, int n) {
    const int *m = map->members + map->node_first[n];
    return m[map->node_size[n] - 1] - m[0] == map->node_size[n] - 1;
}
