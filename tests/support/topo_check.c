/* Checked hierarchy builds of the unit tests; see topo_check.h. */
#include "topo_check.h"

#include "check.h"

shmcoll_topo_hier_t *topo_check_hier_build(const shmcoll_topo_place_t *places, int size,
                                           const char *list, int root) {
    shmcoll_topo_kind_t kinds[SHMCOLL_TOPO_MAX_LEVELS];
    int nkinds;
    char error[512];
    shmcoll_topo_hier_t *hier = NULL;
    CHECK(shmcoll_topo_levels_parse(list, kinds, &nkinds, error, sizeof error) == SHMCOLL_OK, "%s",
          error);
    CHECK(shmcoll_topo_hier_build(places, size, kinds, nkinds, root, &hier) == SHMCOLL_OK,
          "build \"%s\" size %d root %d", list, size, root);
    return hier;
}
