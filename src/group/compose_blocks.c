/* The building blocks shared by the compositions across nodes, and the rooted plan of gather and
 * scatter. See compose_blocks.h. */
#include "group/compose_blocks.h"

#include <stdlib.h>

void shmcoll_compose_heap_free(shmcoll_compose_heap_t *heap) {
    shmcoll_compose_free(heap->arena);
    for (int i = 0; i < 4; i++) shmcoll_compose_free(heap->scratch[i]);
}

shmcoll_status_t shmcoll_compose_heap_unwind(shmcoll_compose_heap_t *heap,
                                             shmcoll_status_t status) {
    shmcoll_compose_heap_free(heap);
    return status;
}

int shmcoll_compose_fits_all(const size_t *counts, int n) {
    for (int i = 0; i < n; i++)
        if (!shmcoll_net_fits(counts[i])) return 0;
    return 1;
}

/* A node gather(v) or scatter(v) in t->node_args with only what its kind reads
 * (core/coll_args.h): `bytes` is the uniform kinds' count, the v-kinds' own block, and counts and
 * displs the v-kinds' arrays at the root. Exactly the phase each composition used to set up for
 * itself. */
static void node_blocks(shmcoll_group_task_t *t, shmcoll_coll_kind_t kind, const void *send,
                        void *recv, size_t bytes, const size_t *counts, const size_t *displs,
                        int root) {
    shmcoll_coll_args_t *args = &t->node_args;
    *args = (shmcoll_coll_args_t){.kind = kind, .sendbuf = send, .recvbuf = recv, .root = root};
    if (kind == SHMCOLL_KIND_GATHERV) {
        args->sendbytes = bytes;
        args->recvcounts = counts;
        args->rdispls = displs;
    } else if (kind == SHMCOLL_KIND_SCATTERV) {
        args->recvbytes = bytes;
        args->sendcounts = counts;
        args->sdispls = displs;
    } else {
        args->count = bytes;
    }
}

void shmcoll_compose_gather_blocks(shmcoll_group_task_t *t, int uniform, const void *send,
                                   size_t bytes, void *recv, const size_t *counts,
                                   const size_t *displs, int root) {
    node_blocks(t, uniform ? SHMCOLL_KIND_GATHER : SHMCOLL_KIND_GATHERV, send, recv, bytes, counts,
                displs, root);
}

void shmcoll_compose_scatter_blocks(shmcoll_group_task_t *t, int uniform, const void *send,
                                    const size_t *counts, const size_t *displs, void *recv,
                                    size_t bytes, int root) {
    node_blocks(t, uniform ? SHMCOLL_KIND_SCATTER : SHMCOLL_KIND_SCATTERV, send, recv, bytes,
                counts, displs, root);
}

void shmcoll_compose_reduce_to_leader(shmcoll_group_task_t *t, void *result, size_t count) {
    const shmcoll_coll_args_t *a = t->args;
    /* In place, each member's input is in its recvbuf (as MPI says for every member that has
     * one; at a reduce's root only there). */
    t->node_args = (shmcoll_coll_args_t){.kind = SHMCOLL_KIND_REDUCE,
                                         .sendbuf = a->sendbuf ? a->sendbuf : a->recvbuf,
                                         .recvbuf = result,
                                         .count = count,
                                         .op = a->op,
                                         .root = 0};
}

shmcoll_status_t shmcoll_compose_leaders_start(shmcoll_group_task_t *t,
                                               const shmcoll_coll_args_t *args, size_t handed,
                                               int overlapped) {
    t->net = (shmcoll_net_coll_t){.channel = 0, .args = *args};
    t->group->net.bytes += handed;
    return shmcoll_compose_net_start(t, overlapped);
}

/* ---- The rooted plan ------------------------------------------------------------------------ */

/* R's leader: the network step's counts and displacements (into or from P', or straight in r's
 * buffer at the nodes' offsets `node_off` when `direct`). 0, or -1 if one does not fit the
 * network. */
static int plan_root_leader(const shmcoll_group_map_t *map, shmcoll_compose_rooted_t *r, int direct,
                            const size_t *node_off) {
    size_t at = 0;
    for (int n = 0; n < map->nnodes; n++) {
        r->net_counts[n] = n == r->root_node ? 0 : r->node_total[n];
        r->net_displs[n] = direct ? node_off[n] : at;
        if (n != r->root_node) at += r->node_total[n];
    }
    const int fits = shmcoll_compose_fits_all(r->net_counts, map->nnodes) &&
                     shmcoll_compose_fits_all(r->net_displs, map->nnodes);
    return fits ? 0 : -1;
}

shmcoll_status_t shmcoll_compose_rooted_init(shmcoll_group_task_t *t, shmcoll_compose_rooted_t *r) {
    const shmcoll_group_t *g = t->group;
    const shmcoll_group_map_t *map = &g->map;
    const shmcoll_coll_args_t *a = t->args;
    const int root = a->root;
    const int p = g->size, nnodes = map->nnodes, ns = map->node_size[g->node];
    const int uniform = a->kind == SHMCOLL_KIND_GATHER || a->kind == SHMCOLL_KIND_SCATTER;
    const int gathers = a->kind == SHMCOLL_KIND_GATHER || a->kind == SHMCOLL_KIND_GATHERV;
    /* The blocks at the root: gather(v)'s receive side, scatter(v)'s send side. */
    const size_t *counts = gathers ? a->recvcounts : a->sendcounts;
    const size_t *displs = gathers ? a->rdispls : a->sdispls;
    *r = (shmcoll_compose_rooted_t){.at_root = {.uniform = uniform,
                                                .block = a->count,
                                                .counts = uniform ? NULL : counts,
                                                .displs = uniform ? NULL : displs},
                                    .root_node = map->node_of[root],
                                    .root_rank = map->node_rank[root],
                                    .my_size = uniform   ? a->count
                                               : gathers ? a->sendbytes
                                                         : a->recvbytes,
                                    .user = gathers ? a->recvbuf : (void *)a->sendbuf};
    const shmcoll_compose_layout_t *at_root = &r->at_root;
    r->heap.arena = shmcoll_compose_malloc((4 * (size_t)nnodes + 4 * (size_t)ns) * sizeof(size_t));
    if (!r->heap.arena) return SHMCOLL_ERR_NO_MEMORY;
    r->node_total = r->heap.arena;
    r->net_counts = r->node_total + nnodes;
    r->net_displs = r->net_counts + nnodes;
    size_t *node_off = r->net_displs + nnodes;
    r->ncounts = node_off + nnodes;
    r->ndispls = r->ncounts + ns;
    r->tcounts = r->ndispls + ns;
    r->tdispls = r->tcounts + ns;
    const int leader = shmcoll_compose_leads(t, 0), is_root = g->rank == root;
    /* Every node's total: everyone's for the uniform kinds, the root's alone for the v-ones. */
    if (uniform || is_root) {
        const size_t total = shmcoll_compose_node_packed(map, at_root->counts, at_root->block,
                                                         r->node_total, node_off, NULL);
        r->other_bytes = total - r->node_total[r->root_node];
    }
    /* Shared: decline alike where the network cannot take a count. */
    if (uniform && (!shmcoll_compose_fits_all(r->node_total, nnodes) ||
                    !shmcoll_compose_fits_all(node_off, nnodes)))
        return shmcoll_compose_heap_unwind(&r->heap, SHMCOLL_ERR_NOT_SUPPORTED);
    if (g->node != r->root_node) {
        if (leader && uniform) {
            for (int i = 0; i < ns; i++)
                r->ncounts[i] = at_root->block, r->ndispls[i] = i * at_root->block;
            r->packed = r->heap.scratch[0] = shmcoll_compose_malloc(r->node_total[g->node]);
            if (!r->packed) return shmcoll_compose_heap_unwind(&r->heap, SHMCOLL_ERR_NO_MEMORY);
        }
        return SHMCOLL_OK;
    }
    if (is_root) {
        for (int i = 0; i < ns; i++) {
            const int q = map->members[map->node_first[g->node] + i];
            r->ncounts[i] = shmcoll_compose_layout_count(at_root, q);
            r->ndispls[i] = shmcoll_compose_layout_displ(at_root, q);
        }
        size_t base;
        const int direct =
            shmcoll_compose_all_blocks(map) &&
            shmcoll_compose_contiguous(p, at_root->counts, at_root->displs, at_root->block, &base);
        if (leader) {
            if (plan_root_leader(map, r, direct, node_off)) /* v: uniform declined above */
                return shmcoll_compose_heap_unwind(
                    &r->heap, shmcoll_compose_fail(t, SHMCOLL_ERR_INVALID,
                                                   "a node's blocks exceed an int of bytes"));
            r->other_blocks = direct ? r->user + base : NULL;
        } else if (direct && (r->root_node == 0 || r->root_node == nnodes - 1)) {
            r->other_blocks = r->user + base + (r->root_node == 0 ? r->node_total[0] : 0);
        }
        if (!r->other_blocks) {
            r->other_blocks_in_scratch = 1;
            r->other_blocks = r->heap.scratch[0] = shmcoll_compose_malloc(r->other_bytes);
            if (!r->other_blocks)
                return shmcoll_compose_heap_unwind(&r->heap, SHMCOLL_ERR_NO_MEMORY);
        }
        if (leader) r->packed = r->other_blocks;
    } else if (leader && uniform) {
        plan_root_leader(map, r, 0, node_off);
        r->packed = r->heap.scratch[1] = shmcoll_compose_malloc(r->other_bytes);
        if (!r->packed) return shmcoll_compose_heap_unwind(&r->heap, SHMCOLL_ERR_NO_MEMORY);
    }
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_compose_rooted_learn_node_sizes(shmcoll_group_task_t *t,
                                                         shmcoll_compose_rooted_t *r) {
    const shmcoll_group_t *g = t->group;
    const int ns = g->map.node_size[g->node];
    SHMCOLL_RESUME_BEGIN(&r->pc);
    shmcoll_compose_gather_blocks(t, 1, &r->my_size, sizeof r->my_size, r->ncounts, NULL, NULL, 0);
    SHMCOLL_CHECK(shmcoll_compose_node_start(t));
    SHMCOLL_AWAIT_TEST(&r->pc, shmcoll_compose_node_test(t));
    if (shmcoll_compose_leads(t, 0)) {
        size_t total = 0;
        for (int i = 0; i < ns; i++) r->ndispls[i] = total, total += r->ncounts[i];
        r->node_total[g->node] = total;
        if (!shmcoll_net_fits(total))
            return shmcoll_compose_fail(t, SHMCOLL_ERR_INVALID,
                                        "its node's blocks exceed an int of bytes");
        SHMCOLL_CHECK(shmcoll_compose_alloc(t, &r->heap.scratch[0], total));
        r->packed = r->heap.scratch[0];
    }
    SHMCOLL_RESUME_END(&r->pc);
}

shmcoll_status_t shmcoll_compose_rooted_learn_totals(shmcoll_group_task_t *t,
                                                     shmcoll_compose_rooted_t *r) {
    const shmcoll_group_map_t *map = &t->group->map;
    SHMCOLL_RESUME_BEGIN(&r->pc);
    shmcoll_compose_transfer(t, r->root_rank, 0, r->node_total, r->node_total,
                             map->nnodes * sizeof *r->node_total, r->tcounts, r->tdispls);
    SHMCOLL_CHECK(shmcoll_compose_node_start(t));
    SHMCOLL_AWAIT_TEST(&r->pc, shmcoll_compose_node_test(t));
    if (shmcoll_compose_leads(t, 0)) {
        r->other_bytes = 0;
        for (int n = 0; n < map->nnodes; n++)
            if (n != r->root_node) r->other_bytes += r->node_total[n];
        if (plan_root_leader(map, r, 0, NULL))
            return shmcoll_compose_fail(t, SHMCOLL_ERR_INVALID,
                                        "a node's blocks exceed an int of bytes");
        SHMCOLL_CHECK(shmcoll_compose_alloc(t, &r->heap.scratch[1], r->other_bytes));
        r->packed = r->heap.scratch[1];
    }
    SHMCOLL_RESUME_END(&r->pc);
}

void shmcoll_compose_rooted_restage(shmcoll_group_task_t *t, shmcoll_compose_rooted_t *r,
                                    int to_displacements) {
    const shmcoll_group_t *g = t->group;
    const shmcoll_group_map_t *map = &g->map;
    if (g->rank != t->args->root || !r->other_blocks_in_scratch) return;
    size_t at = 0;
    for (int n = 0; n < map->nnodes; n++) {
        if (n == r->root_node) continue;
        for (int i = map->node_first[n]; i < map->node_first[n + 1]; i++) {
            const int q = map->members[i];
            const size_t bytes = shmcoll_compose_layout_count(&r->at_root, q);
            char *placed = r->user + shmcoll_compose_layout_displ(&r->at_root, q);
            if (to_displacements)
                shmcoll_compose_copy(t, placed, r->other_blocks + at, bytes);
            else
                shmcoll_compose_copy(t, r->other_blocks + at, placed, bytes);
            at += bytes;
        }
    }
}
