/* Hierarchical barrier: arrival flows up the topology hierarchy and the release flows down it, so
 * each NUMA/socket group synchronises locally and only its leader crosses the boundary (XHC's
 * hierarchy applied to synchronisation). Built from the hierarchical reduce (a one-byte BOR to
 * member 0: it completes only once every member has arrived) and the hierarchical bcast (a
 * one-byte release from member 0): 2 x levels dependent hops, no data to speak of. */
#include "coll/algos_hier.h"
#include "coll/coll_internal.h"

shmcoll_status_t shmcoll_coll_barrier_hier(shmcoll_team_t *team) {
    const shmcoll_reduce_op_t op = {.kernel =
                                        shmcoll_kernel_reduce(SHMCOLL_DT_UINT8, SHMCOLL_OP_BOR),
                                    .size = 1,
                                    .extent = 1,
                                    .commutative = 1,
                                    .name = "barrier-arrival"};
    uint8_t arrival = 0, release = 0;
    SHMCOLL_CHECK(shmcoll_coll_reduce_hier(team, &arrival, &release, 1, &op, 0));
    return shmcoll_coll_bcast_hier(team, &release, 1, 0);
}
