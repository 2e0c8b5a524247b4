#include "core/coll_args.h"

#include <string.h>

#define REDUCES  .reduces = 1
#define ROOTED   .rooted = 1
#define IN_PLACE .in_place = 1
#define VARYING  .varying = 1

const shmcoll_coll_kind_info_t shmcoll_coll_kinds[SHMCOLL_KIND_COUNT] = {
    [SHMCOLL_KIND_BARRIER] = {"barrier"},
    [SHMCOLL_KIND_BCAST] = {"bcast", ROOTED},
    [SHMCOLL_KIND_REDUCE] = {"reduce", REDUCES, ROOTED},
    [SHMCOLL_KIND_ALLREDUCE] = {"allreduce", REDUCES, IN_PLACE},
    [SHMCOLL_KIND_REDUCE_SCATTER] = {"reduce_scatter", REDUCES, IN_PLACE, VARYING},
    [SHMCOLL_KIND_REDUCE_SCATTER_BLOCK] = {"reduce_scatter_block", REDUCES, IN_PLACE},
    [SHMCOLL_KIND_SCAN] = {"scan", REDUCES, IN_PLACE},
    [SHMCOLL_KIND_EXSCAN] = {"exscan", REDUCES, IN_PLACE},
    [SHMCOLL_KIND_ALLGATHER] = {"allgather", IN_PLACE},
    [SHMCOLL_KIND_ALLGATHERV] = {"allgatherv", IN_PLACE, VARYING},
    [SHMCOLL_KIND_GATHER] = {"gather", ROOTED},
    [SHMCOLL_KIND_GATHERV] = {"gatherv", ROOTED, VARYING},
    [SHMCOLL_KIND_SCATTER] = {"scatter", ROOTED},
    [SHMCOLL_KIND_SCATTERV] = {"scatterv", ROOTED, VARYING},
    [SHMCOLL_KIND_ALLTOALL] = {"alltoall", IN_PLACE},
    [SHMCOLL_KIND_ALLTOALLV] = {"alltoallv", IN_PLACE, VARYING},
};

int shmcoll_coll_kind_parse(const char *name) {
    for (int k = 0; k < SHMCOLL_KIND_COUNT; k++)
        if (!strcmp(name, shmcoll_coll_kinds[k].name)) return k;
    return -1;
}
