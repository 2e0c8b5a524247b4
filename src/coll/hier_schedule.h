/* Who reads from whom in the hierarchical collectives (hier_bcast.c, hier_reduce.c): pure
 * functions of a hierarchy (topo/hierarchy.h), a member and the message shape. They write only
 * their outputs, so the algorithms and the tests use the very same schedule, and the tests can
 * check it on machines we do not have.
 *
 * Broadcast tree. Every group of every level is a star: its leader sends to its other members.
 * A member therefore receives exactly once, from the leader of the highest-level group it is a
 * member of without leading it; the root (the top group's leader) receives nothing. Data crosses
 * a NUMA node or socket boundary only between group leaders, once per group, so one broadcast
 * crosses (NUMA nodes occupied - 1) NUMA boundaries and (sockets occupied - 1) socket
 * boundaries. The same tree also spreads a reduction's result (allreduce), with one difference:
 * the result lies spread over the top group (each top member holds a part), so every top member
 * reads it from there instead of from the top leader (SHMCOLL_COLL_HIER_FROM_TOP).
 *
 * Reduction. At level i, every group of m members cuts the chunk's element range into m parts
 * (parts of equal length, rounded up to a cache line of elements); member j reduces part j of
 * the members' inputs, in member order, into its own buffer. A member's input at level 0 is its
 * own data; at level i > 0 it is the result of the level-(i-1) group it leads, which lies spread
 * over that group's members (part j at member j). "Holder" names where a piece lies. */
#ifndef SHMCOLL_COLL_HIER_SCHEDULE_H
#define SHMCOLL_COLL_HIER_SCHEDULE_H

#include "topo/hierarchy.h"

#include <stddef.h>

/* Where the data of the broadcast tree starts. */
typedef enum shmcoll_coll_hier_source {
    SHMCOLL_COLL_HIER_FROM_ROOT, /* at the top group's leader (bcast) */
    SHMCOLL_COLL_HIER_FROM_TOP,  /* spread over the top group, which every top member reads */
} shmcoll_coll_hier_source_t;

/* The root of the broadcast tree: the top group's leader (the given root when the hierarchy was
 * built with one). */
int shmcoll_coll_hier_root(const shmcoll_topo_hier_t *hier);

/* The member `rank` copies the data from, and the level of the group in which it does (out,
 * may be NULL). -1 when it has no parent: the root, or with FROM_TOP a top-group member. */
int shmcoll_coll_hier_parent(const shmcoll_topo_hier_t *hier, shmcoll_coll_hier_source_t source,
                             int rank, int *level);

/* The members that copy from `rank`, highest level first (children: room for hier->size - 1).
 * Returns how many. */
int shmcoll_coll_hier_children(const shmcoll_topo_hier_t *hier, shmcoll_coll_hier_source_t source,
                               int rank, int *children);

/* Tree depth of `rank`: the number of copies between the source and it (FROM_ROOT: the root 0;
 * FROM_TOP: top-group members 1). A member at depth d handles chunk c in step c + d. */
int shmcoll_coll_hier_depth(const shmcoll_topo_hier_t *hier, shmcoll_coll_hier_source_t source,
                            int rank);

/* The largest depth over the team. */
int shmcoll_coll_hier_height(const shmcoll_topo_hier_t *hier, shmcoll_coll_hier_source_t source);

/* Elements per part when n elements are cut into m parts: ceil(n/m) rounded up to `align`
 * elements (a cache line, so parts never share one), at least 1. */
size_t shmcoll_coll_hier_part_len(size_t n, int m, size_t align);

/* Part j of n elements cut into m parts: [*first, *first + *len), possibly empty. */
void shmcoll_coll_hier_part(size_t n, int m, size_t align, int j, size_t *first, size_t *len);

/* Who holds element e (< n) of the reduction over the ranks covered by `rank`'s group at level
 * `level` - 1 (level 0: `rank`'s own input, whole; level hier->nlevels: the final result). The
 * holder keeps it in its level-(level-1) part, which spans elements [*first, *end). */
int shmcoll_coll_hier_holder(const shmcoll_topo_hier_t *hier, int level, int rank, size_t n,
                             size_t align, size_t e, size_t *first, size_t *end);

/* The members whose buffers `rank` reads to reduce its part at `level` (it takes part in that
 * level), n elements per chunk, no repeats. Returns how many (room for hier->size); 0 when its
 * part is empty. */
int shmcoll_coll_hier_feeders(const shmcoll_topo_hier_t *hier, int level, int rank, size_t n,
                              size_t align, int *feeders);

/* Every member that may read `rank`'s buffers during a hierarchical reduction (its level-0
 * group, the group above each level it reduces at) and, at the top, the result's readers: the
 * member `result_root`, or with -1 every top-group member. No repeats, `rank` excluded; room for
 * hier->size. Returns how many. */
int shmcoll_coll_hier_reduce_readers(const shmcoll_topo_hier_t *hier, int rank, int result_root,
                                     int *readers);

#endif
