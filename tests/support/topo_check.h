/* Hierarchies for the unit tests of topo/ and of the hierarchical schedules: built from a level
 * list, with a failed CHECK (check.h) when the list or the build is refused. */
#ifndef SHMCOLL_TESTS_TOPO_CHECK_H
#define SHMCOLL_TESTS_TOPO_CHECK_H

#include "topo/hierarchy.h"
#include "topo/topo.h"

/* The hierarchy of `list` (levels such as "l3,numa,socket") over `size` placed members, rooted at
 * `root` (-1: none); NULL after a failed check. */
shmcoll_topo_hier_t *topo_check_hier_build(const shmcoll_topo_place_t *places, int size,
                                           const char *list, int root);

#endif
