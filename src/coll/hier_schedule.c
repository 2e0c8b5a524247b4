/* Schedules of the hierarchical collectives; what they mean is in hier_schedule.h. Everything
 * here is O(levels) per member or O(group size), computed from the hierarchy alone. */
#include "coll/hier_schedule.h"

static const shmcoll_topo_group_t *group_at(const shmcoll_topo_hier_t *hier, int level, int rank) {
    const shmcoll_topo_level_t *l = &hier->levels[level];
    return &l->groups[l->group_of[rank]];
}

int shmcoll_coll_hier_root(const shmcoll_topo_hier_t *hier) {
    return hier->levels[hier->nlevels - 1].groups[0].leader;
}

int shmcoll_coll_hier_parent(const shmcoll_topo_hier_t *hier, shmcoll_coll_hier_source_t source,
                             int rank, int *level) {
    /* At every level below its highest a member leads its group (that is how it got into the
     * level above); at its highest it is a plain member, unless it is the root. */
    const int top = shmcoll_topo_hier_depth_of(hier, rank) - 1;
    if (level) *level = top;
    if (source == SHMCOLL_COLL_HIER_FROM_TOP && top == hier->nlevels - 1) return -1;
    const int leader = group_at(hier, top, rank)->leader;
    return leader == rank ? -1 : leader;
}

int shmcoll_coll_hier_children(const shmcoll_topo_hier_t *hier, shmcoll_coll_hier_source_t source,
                               int rank, int *children) {
    int n = 0;
    int top = shmcoll_topo_hier_depth_of(hier, rank) - 1;
    if (source == SHMCOLL_COLL_HIER_FROM_TOP && top == hier->nlevels - 1) top--;
    for (int i = top; i >= 0; i--) {
        const shmcoll_topo_group_t *g = group_at(hier, i, rank);
        if (g->leader != rank) continue;
        for (int k = 0; k < g->nmembers; k++)
            if (g->members[k] != rank) children[n++] = g->members[k];
    }
    return n;
}

int shmcoll_coll_hier_depth(const shmcoll_topo_hier_t *hier, shmcoll_coll_hier_source_t source,
                            int rank) {
    int depth = 0;
    for (;;) {
        int level;
        const int parent = shmcoll_coll_hier_parent(hier, source, rank, &level);
        if (parent < 0) return depth + (source == SHMCOLL_COLL_HIER_FROM_TOP);
        depth++;
        rank = parent;
    }
}

int shmcoll_coll_hier_height(const shmcoll_topo_hier_t *hier, shmcoll_coll_hier_source_t source) {
    int height = 0;
    for (int r = 0; r < hier->size; r++) {
        const int d = shmcoll_coll_hier_depth(hier, source, r);
        height = d > height ? d : height;
    }
    return height;
}

size_t shmcoll_coll_hier_part_len(size_t n, int m, size_t align) {
    size_t len = (n + (size_t)m - 1) / (size_t)m;
    len = (len + align - 1) / align * align;
    return len ? len : 1;
}

void shmcoll_coll_hier_part(size_t n, int m, size_t align, int j, size_t *first, size_t *len) {
    const size_t per = shmcoll_coll_hier_part_len(n, m, align);
    size_t lo = (size_t)j * per, hi = lo + per;
    lo = lo < n ? lo : n;
    hi = hi < n ? hi : n;
    *first = lo;
    *len = hi - lo;
}

int shmcoll_coll_hier_holder(const shmcoll_topo_hier_t *hier, int level, int rank, size_t n,
                             size_t align, size_t e, size_t *first, size_t *end) {
    if (level == 0) {
        *first = 0;
        *end = n;
        return rank;
    }
    const shmcoll_topo_group_t *g = group_at(hier, level - 1, rank);
    const size_t per = shmcoll_coll_hier_part_len(n, g->nmembers, align);
    const size_t j = e / per;
    *first = j * per;
    *end = *first + per < n ? *first + per : n;
    return g->members[j];
}

int shmcoll_coll_hier_feeders(const shmcoll_topo_hier_t *hier, int level, int rank, size_t n,
                              size_t align, int *feeders) {
    const shmcoll_topo_level_t *l = &hier->levels[level];
    const shmcoll_topo_group_t *g = &l->groups[l->group_of[rank]];
    size_t lo, len;
    shmcoll_coll_hier_part(n, g->nmembers, align, l->slot[rank], &lo, &len);
    int count = 0;
    /* Pieces of different members live in different groups, hence at different holders. */
    for (int k = 0; k < g->nmembers; k++)
        for (size_t e = lo, first, end; e < lo + len; e = end)
            feeders[count++] =
                shmcoll_coll_hier_holder(hier, level, g->members[k], n, align, e, &first, &end);
    return count;
}

static int add_reader(int *readers, int n, int rank, int reader) {
    if (reader == rank) return n;
    for (int k = 0; k < n; k++)
        if (readers[k] == reader) return n;
    readers[n] = reader;
    return n + 1;
}

static int add_group(const shmcoll_topo_group_t *g, int *readers, int n, int rank) {
    for (int k = 0; k < g->nmembers; k++) n = add_reader(readers, n, rank, g->members[k]);
    return n;
}

int shmcoll_coll_hier_reduce_readers(const shmcoll_topo_hier_t *hier, int rank, int result_root,
                                     int *readers) {
    const int top = hier->nlevels - 1;
    /* Its input: read by the reducers of its level-0 group. */
    int n = add_group(group_at(hier, 0, rank), readers, 0, rank);
    const int depth = shmcoll_topo_hier_depth_of(hier, rank);
    for (int i = 0; i < depth; i++) {
        if (i < top) /* its level-i part: read by the reducers of the group above */
            n = add_group(group_at(hier, i + 1, rank), readers, n, rank);
        else if (result_root >= 0) /* its part of the result */
            n = add_reader(readers, n, rank, result_root);
        else
            n = add_group(group_at(hier, top, rank), readers, n, rank);
    }
    return n;
}
