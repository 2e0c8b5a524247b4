/* Collectives over shared heaps (coll/heap.h) on teams of forked processes: every kind the heap
 * rows serve, with the members' buffers in their heaps on all members, on none, or on all but one
 * (every member in turn), every root (p <= 5), in place and not, zero blocks, uneven blocks.
 *
 * Each call is checked for its values (against references every member computes) and for its
 * path: the heap path exactly where the kind's buffers all lie in heaps (bcast, scatter and gather
 * need only the root's; the others every member's), the inner row otherwise, whatever buffers
 * the member itself has, so no member ever decided alone. On the heap path the data-access
 * volume summed over the members must match the path's formula exactly: one copy per block
 * (bcast 2s(p-1), scatter and gather 2pb, allgather and alltoall 2p^2 b), reductions straight
 * from the inputs (reduce and reduce_scatter 3s(p-1), allreduce s(5p-5) — below the
 * movement-avoiding chain's s(5p-1)). Reductions run the canonical order of a non-commutative
 * user op (2x2 matrix products) too.
 *
 * Alltoallv, gatherv and scatterv, which have no heap rows, must move single-copy through mapped
 * arenas wherever their exposed buffers lie in heaps (their pipelines agree on that with the
 * longest block).
 *
 * Runs: the default chunk; 4 KiB chunks (the reductions fold in many pieces); and
 * SHMCOLL_HEAP_CACHE=0 (no peer arena is mapped: the same path through cross-memory attach).
 * Last, 10,000 allgathers with fresh buffers each in an arena of their own (SHMCOLL_HEAP_ARENA=2M,
 * 3 MiB buffers): descriptors and mappings stay bounded by the cache. SHMCOLL_HEAP_MIN=1, so that
 * small cases take the heap rows too (SHMCOLL_HEAP_CHUNKS=0: bcast and the reductions as well). */
#include "blocks.h"
#include "coll_check.h"
#include "heap/heap.h"
#include "heap/pidfd.h"
#include "proc_counts.h"
#include "select/team_coll.h"
#include "team_cases.h"
#include "team_harness.h"
#include "test_data.h"
#include "user_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Which members allocate from their heaps: all, none, or all but `missing`. */
enum { ALL = -1, NONE = -2 };

static int member_in_heap(int config, int rank) {
    return config == ALL || (config != NONE && rank != config);
}

static void *buffer(int config, int rank, size_t bytes) {
    if (!bytes) bytes = 1;
    return member_in_heap(config, rank) ? shmcoll_heap_alloc(bytes, 64) : malloc(bytes);
}

static void release(void *p) {
    if (p && shmcoll_heap_owns(p))
        shmcoll_heap_free(p);
    else
        free(p);
}

static const char *config_name(int config, char *text, size_t len) {
    if (config == ALL) return "all in heaps";
    if (config == NONE) return "none in heaps";
    snprintf(text, len, "all in heaps but rank %d's", config);
    return text;
}

static shmcoll_heap_peer_stats_t peer_stats(void) {
    shmcoll_heap_peer_stats_t stats;
    shmcoll_heap_peer_stats(&stats);
    return stats;
}

/* The run's mode: whether peers' arenas are mapped (the DAV formulas hold only then). */
static int mapped_run(void) {
    const char *cache = getenv("SHMCOLL_HEAP_CACHE");
    return !cache || strcmp(cache, "0");
}

/* The DAV of the call summed over the members (collective), or -1 when the harness fails. */
static long long dav_sum(uint64_t mine) {
    uint64_t all[TEAM_HARNESS_MAX_P];
    if (team_harness_allgather(&mine, all, sizeof mine)) return -1;
    long long sum = 0;
    for (int r = 0; r < team_harness_size(); r++) sum += (long long)all[r];
    return sum;
}

/* The path and the DAV of a call: `want_heap` whether it must have taken the heap path, `dav`
 * the formula on that path (-1: not checked). Collective. */
static void check_path(shmcoll_team_t *team, uint64_t dav_before, int want_heap, long long dav,
                       const char *desc) {
    want_heap &= team->heap; /* a team of one has nobody to map */
    const int heap = !strcmp(team->last_algo, "heap");
    if (heap != want_heap)
        team_cases_fail("%s: took %s, expected %s", desc, team->last_algo,
                        want_heap ? "heap" : "the inner row");
    const long long got = dav_sum(shmcoll_team_dav(team) - dav_before);
    if (want_heap && dav >= 0 && mapped_run() && got != dav)
        team_cases_fail("%s: DAV %lld, formula %lld", desc, got, dav);
}

/* ---- Data movement ------------------------------------------------------------------------ */

static void check_bytes(const unsigned char *got, const unsigned char *want, size_t n,
                        const char *what, const char *desc) {
    if (n && memcmp(got, want, n)) team_cases_fail("%s: %s wrong", desc, what);
}

static void case_bcast(shmcoll_team_t *team, size_t n, int root, int config, uint64_t seed) {
    const int p = team->size, me = team->rank;
    char desc[160], text[48];
    snprintf(desc, sizeof desc, "bcast %zu bytes root %d, %s", n, root,
             config_name(config, text, sizeof text));
    unsigned char *buf = buffer(config, me, n), *want = malloc(n + 1);
    blocks_fill(want, n, seed, root, 0);
    if (me == root)
        memcpy(buf, want, n);
    else
        memset(buf, 0, n);
    const uint64_t before = shmcoll_team_dav(team);
    team_cases_status_check(team, shmcoll_bcast(team, buf, n, root), desc);
    check_bytes(buf, want, n, "buffer", desc);
    check_path(team, before, member_in_heap(config, root), 2LL * (long long)n * (p - 1), desc);
    release(buf), free(want);
}

static void case_scatter(shmcoll_team_t *team, size_t b, int root, int in_place, int config,
                         uint64_t seed) {
    const int p = team->size, me = team->rank;
    char desc[160], text[48];
    snprintf(desc, sizeof desc, "scatter %zu bytes root %d%s, %s", b, root,
             in_place ? " in place" : "", config_name(config, text, sizeof text));
    unsigned char *send = buffer(config, me, (size_t)p * b), *recv = buffer(config, me, b);
    unsigned char *want = malloc(b + 1);
    for (int q = 0; q < p && me == root; q++) blocks_fill(send + (size_t)q * b, b, seed, root, q);
    blocks_fill(want, b, seed, root, me);
    const int keep = in_place && me == root;
    const uint64_t before = shmcoll_team_dav(team);
    team_cases_status_check(
        team, shmcoll_scatter(team, me == root ? send : NULL, keep ? NULL : recv, b, root), desc);
    check_bytes(keep ? send + (size_t)me * b : recv, want, b, "block", desc);
    check_path(team, before, member_in_heap(config, root),
               2LL * (long long)b * (in_place ? p - 1 : p), desc);
    release(send), release(recv), free(want);
}

static void case_gather(shmcoll_team_t *team, size_t b, int root, int in_place, int config,
                        uint64_t seed) {
    const int p = team->size, me = team->rank;
    char desc[160], text[48];
    snprintf(desc, sizeof desc, "gather %zu bytes root %d%s, %s", b, root,
             in_place ? " in place" : "", config_name(config, text, sizeof text));
    unsigned char *send = buffer(config, me, b), *recv = buffer(config, me, (size_t)p * b);
    unsigned char *want = malloc((size_t)p * b + 1);
    for (int q = 0; q < p; q++) blocks_fill(want + (size_t)q * b, b, seed, q, root);
    blocks_fill(send, b, seed, me, root);
    const int keep = in_place && me == root;
    if (keep) memcpy(recv + (size_t)me * b, send, b);
    const uint64_t before = shmcoll_team_dav(team);
    team_cases_status_check(team, shmcoll_gather(team, keep ? NULL : send, recv, b, root), desc);
    if (me == root) check_bytes(recv, want, (size_t)p * b, "receive buffer", desc);
    check_path(team, before, member_in_heap(config, root),
               2LL * (long long)b * (in_place ? p - 1 : p), desc);
    release(send), release(recv), free(want);
}

/* Allgather (counts NULL) or allgatherv with uneven blocks, some empty, and gaps. */
static void case_allgather(shmcoll_team_t *team, size_t b, int v, int in_place, int config,
                           uint64_t seed) {
    const int p = team->size, me = team->rank;
    char desc[160], text[48];
    snprintf(desc, sizeof desc, "allgather%s %zu bytes%s, %s", v ? "v" : "", b,
             in_place ? " in place" : "", config_name(config, text, sizeof text));
    size_t counts[TEAM_HARNESS_MAX_P], displs[TEAM_HARNESS_MAX_P], span = 0, total = 0;
    for (int q = 0; q < p; q++) {
        counts[q] = v ? (q == 1 ? 0 : blocks_uneven(b, seed, (uint64_t)q) + 1) : b;
        displs[q] = span + (v ? (size_t)q % 3 : 0);
        span = displs[q] + counts[q];
        total += counts[q];
    }
    unsigned char *recv = buffer(config, me, span), *send = buffer(config, me, counts[me]);
    unsigned char *want = malloc(span + 1);
    memset(want, 0xa5, span), memset(recv, 0xa5, span);
    for (int q = 0; q < p; q++) blocks_fill(want + displs[q], counts[q], seed, q, 0);
    blocks_fill(in_place ? recv + displs[me] : send, counts[me], seed, me, 0);
    const uint64_t before = shmcoll_team_dav(team);
    const void *s = in_place ? NULL : send;
    team_cases_status_check(team,
                            v ? shmcoll_allgatherv(team, s, recv, counts, displs)
                              : shmcoll_allgather(team, s, recv, b),
                            desc);
    check_bytes(recv, want, span, "receive buffer", desc);
    /* PULL reads only the blocks that exist: a member with none needs no heap */
    const int heap = config == ALL || (config >= 0 && counts[config] == 0);
    check_path(team, before, heap, 2LL * (long long)total * (in_place ? p - 1 : p), desc);
    release(send), release(recv), free(want);
}

static void case_alltoall(shmcoll_team_t *team, size_t b, int config, uint64_t seed) {
    const int p = team->size, me = team->rank;
    char desc[160], text[48];
    snprintf(desc, sizeof desc, "alltoall %zu bytes, %s", b,
             config_name(config, text, sizeof text));
    const size_t all = (size_t)p * b;
    unsigned char *send = buffer(config, me, all), *recv = buffer(config, me, all);
    unsigned char *want = malloc(all + 1);
    for (int q = 0; q < p; q++) {
        blocks_fill(send + (size_t)q * b, b, seed, me, q);
        blocks_fill(want + (size_t)q * b, b, seed, q, me);
    }
    const uint64_t before = shmcoll_team_dav(team);
    team_cases_status_check(team, shmcoll_alltoall(team, send, recv, b), desc);
    check_bytes(recv, want, all, "receive buffer", desc);
    check_path(team, before, config == ALL, 2LL * (long long)all * p, desc);
    release(send), release(recv), free(want);
}

/* The v-variants have no heap rows (only some members know their sizes): their pipelines agree
 * on the longest block, and with every exposed buffer in a heap they move single-copy at any
 * length, through the owners' mapped arenas (coll/pipeline.c). Uneven blocks with gaps; `kind`
 * 0 alltoallv, 1 gatherv, 2 scatterv (root `root`). */
static void case_v(shmcoll_team_t *team, int kind, size_t b, int root, int config, uint64_t seed) {
    static const char *const names[] = {"alltoallv", "gatherv", "scatterv"};
    const int p = team->size, me = team->rank;
    char desc[160], text[48];
    snprintf(desc, sizeof desc, "%s %zu bytes root %d, %s", names[kind], b, root,
             config_name(config, text, sizeof text));
    size_t counts[TEAM_HARNESS_MAX_P], displs[TEAM_HARNESS_MAX_P], rcounts[TEAM_HARNESS_MAX_P],
        rdispls[TEAM_HARNESS_MAX_P], span = 0, rspan = 0;
    for (int q = 0; q < p; q++) { /* kind 0: what me sends to q; 1, 2: q's block */
        counts[q] = kind ? b + (size_t)q * 3 : b + (size_t)((me + q) % p) * 5;
        rcounts[q] = kind ? counts[q] : b + (size_t)((q + me) % p) * 5;
        displs[q] = span + (size_t)q % 2, span = displs[q] + counts[q];
        rdispls[q] = rspan + (size_t)q % 3, rspan = rdispls[q] + rcounts[q];
    }
    unsigned char *send = buffer(config, me, span), *recv = buffer(config, me, rspan);
    unsigned char *want = malloc(rspan + 1);
    memset(recv, 0xa5, rspan), memset(want, 0xa5, rspan);
    const shmcoll_heap_peer_stats_t before = peer_stats();
    shmcoll_status_t status;
    if (kind == 0) {
        for (int q = 0; q < p; q++) {
            blocks_fill(send + displs[q], counts[q], seed, me, q);
            blocks_fill(want + rdispls[q], rcounts[q], seed, q, me);
        }
        status = shmcoll_alltoallv(team, send, counts, displs, recv, rcounts, rdispls);
    } else if (kind == 1) {
        blocks_fill(send, counts[me], seed, me, root);
        for (int q = 0; q < p; q++) blocks_fill(want + rdispls[q], rcounts[q], seed, q, root);
        status = shmcoll_gatherv(team, send, counts[me], recv, rcounts, rdispls, root);
    } else {
        for (int q = 0; q < p && me == root; q++)
            blocks_fill(send + displs[q], counts[q], seed, root, q);
        blocks_fill(want, counts[me], seed, root, me);
        status = shmcoll_scatterv(team, send, counts, displs, recv, counts[me], root);
    }
    team_cases_status_check(team, status, desc);
    const size_t checked = kind == 2 ? counts[me] : (kind == 1 && me != root) ? 0 : rspan;
    check_bytes(recv, want, checked, "receive buffer", desc);
    /* with every exposed buffer in a heap, single-copy through mappings (a peer that reads or
     * writes maps an arena, unless the mapping is off); gatherv and scatterv move their blocks
     * below SHMCOLL_CMA_MIN through slots, in the same step (their one-step rows) */
    const int exposed_in_heaps =
        (kind ? member_in_heap(config, root) : config == ALL) && (!kind || b >= team->cma_min);
    if (team->heap && exposed_in_heaps && strcmp(team->last_algo, "single-copy") &&
        strcmp(team->last_algo, "one-step") && team->cma != SHMCOLL_CMA_OFF)
        team_cases_fail("%s: took %s, not single-copy", desc, team->last_algo);
    const shmcoll_heap_peer_stats_t after = peer_stats();
    const int copies_here = kind == 0 || me != root;
    if (team->heap && exposed_in_heaps && mapped_run() && copies_here &&
        after.maps + after.hits == before.maps + before.hits)
        team_cases_fail("%s: no peer arena mapped", desc);
    release(send), release(recv), free(want);
}

/* ---- Reductions --------------------------------------------------------------------------- */

enum { K_ALLREDUCE, K_REDUCE, K_REDUCE_SCATTER_BLOCK, K_REDUCE_SCATTER };

static int64_t element(int rank, size_t i, uint64_t seed) {
    return (int64_t)(test_data_mix(seed, (uint64_t)rank, i) % 1000003) - 500000;
}

/* Sums of int64 (kernel), or products of 2x2 matrices in rank order (a non-commutative user op,
 * `mat`). `count`: elements of the whole vector (reduce_scatter_block: per member). */
static void case_reduce(shmcoll_team_t *team, int kind, size_t count, int root, int in_place,
                        int mat, int config, uint64_t seed) {
    static const char *const names[] = {"allreduce", "reduce", "reduce_scatter_block",
                                        "reduce_scatter"};
    const int p = team->size, me = team->rank;
    char desc[200], text[48];
    snprintf(desc, sizeof desc, "%s %s count %zu root %d%s, %s", names[kind],
             mat ? "mat2 product" : "sum/int64", count, root, in_place ? " in place" : "",
             config_name(config, text, sizeof text));
    shmcoll_reduce_op_t op;
    if (mat)
        op = (shmcoll_reduce_op_t){.user_fn = user_ops_mat2_product,
                                   .size = sizeof(mat2_t),
                                   .extent = sizeof(mat2_t),
                                   .commutative = 0,
                                   .name = "mat2"};
    else
        test_data_op(SHMCOLL_DT_INT64, SHMCOLL_OP_SUM, &op);
    const size_t ext = op.extent;
    size_t counts[TEAM_HARNESS_MAX_P], n = count, first = 0;
    if (kind == K_REDUCE_SCATTER_BLOCK) n = count * (size_t)p;
    if (kind == K_REDUCE_SCATTER) {
        n = 0;
        for (int q = 0; q < p; q++) counts[q] = q % 3 == 2 ? 0 : count / (size_t)(q + 1) + 1;
        for (int q = 0; q < p; q++) n += counts[q];
        for (int q = 0; q < me; q++) first += counts[q];
    }
    const size_t mine = kind == K_REDUCE_SCATTER_BLOCK   ? count
                        : kind == K_REDUCE_SCATTER       ? counts[me]
                        : kind == K_REDUCE && me != root ? 0
                                                         : n;
    const size_t out_first = kind == K_REDUCE_SCATTER_BLOCK ? (size_t)me * count
                             : kind == K_REDUCE_SCATTER     ? first
                                                            : 0;
    unsigned char *send = buffer(config, me, n * ext), *recv = buffer(config, me, n * ext);
    unsigned char *want = malloc(mine * ext + 1);
    for (size_t i = 0; i < n; i++) {
        if (mat) {
            mat2_t m = user_ops_mat2_input(me, i, seed);
            memcpy(send + i * ext, &m, ext);
        } else {
            int64_t x = element(me, i, seed);
            memcpy(send + i * ext, &x, ext);
        }
    }
    for (size_t i = 0; i < mine; i++) { /* x0 op (x1 op (... op x(p-1))) */
        const size_t at = out_first + i;
        if (mat) {
            mat2_t acc = user_ops_mat2_input(p - 1, at, seed);
            for (int r = p - 2; r >= 0; r--) {
                mat2_t x = user_ops_mat2_input(r, at, seed);
                acc = user_ops_mat2_mul(&x, &acc);
            }
            memcpy(want + i * ext, &acc, ext);
        } else {
            int64_t acc = 0;
            for (int r = 0; r < p; r++) acc += element(r, at, seed);
            memcpy(want + i * ext, &acc, ext);
        }
    }
    const int here = in_place && (kind != K_REDUCE || me == root);
    if (here) memcpy(recv, send, n * ext);
    const uint64_t before = shmcoll_team_dav(team);
    const void *s = here ? NULL : send;
    shmcoll_status_t status = kind == K_ALLREDUCE ? shmcoll_allreduce(team, s, recv, n, &op)
                              : kind == K_REDUCE  ? shmcoll_reduce(team, s, recv, n, &op, root)
                              : kind == K_REDUCE_SCATTER_BLOCK
                                  ? shmcoll_reduce_scatter_block(team, s, recv, count, &op)
                                  : shmcoll_reduce_scatter(team, s, recv, counts, &op);
    team_cases_status_check(team, status, desc);
    check_bytes(recv, want, mine * ext, "result", desc);
    const long long s_bytes = (long long)(n * op.size);
    const long long dav = mat                   ? -1 /* the user op's copies */
                          : kind == K_ALLREDUCE ? s_bytes * (5 * p - 5)
                                                : s_bytes * 3 * (p - 1);
    check_path(team, before, config == ALL, dav, desc);
    release(send), release(recv), free(want);
}

/* ---- The matrix ---------------------------------------------------------------------------- */

static int body(shmcoll_team_t *team, void *arg) {
    const int p = team->size;
    if (p > 1 && !team->heap) {
        team_harness_log("the team cannot map its members' heaps");
        return 1;
    }
    int roots[8];
    const int nroots = coll_check_roots(p, roots);
    int configs[TEAM_HARNESS_MAX_P + 2], nconfigs = 0;
    configs[nconfigs++] = ALL;
    configs[nconfigs++] = NONE;
    if (p > 1) configs[nconfigs++] = 0;     /* the first member's buffers outside a heap */
    if (p > 2) configs[nconfigs++] = p - 1; /* the last one's */
    uint64_t seed = 1;
    static const size_t moves[] = {100, 70001};
    for (int c = 0; c < nconfigs; c++) {
        const int config = configs[c];
        team_cases_set_group(0);
        for (size_t s = 0; s < sizeof moves / sizeof moves[0]; s++) {
            const size_t b = moves[s];
            for (int k = 0; k < nroots; k++) {
                case_bcast(team, b * 3, roots[k], config, seed++);
                for (int in_place = 0; in_place < 2; in_place++) {
                    case_scatter(team, b, roots[k], in_place, config, seed++);
                    case_gather(team, b, roots[k], in_place, config, seed++);
                }
            }
            for (int in_place = 0; in_place < 2; in_place++)
                for (int v = 0; v < 2; v++) case_allgather(team, b, v, in_place, config, seed++);
            case_alltoall(team, b, config, seed++);
            for (int kind = 0; kind < 3; kind++)
                case_v(team, kind, b, roots[(size_t)kind % (size_t)nroots], config, seed++);
        }
        for (int kind = 1; kind < 3; kind++) /* blocks single-copy in the one-step rows */
            case_v(team, kind, team->cma_min + 3, roots[nroots - 1], config, seed++);
        team_cases_set_group(1);
        static const size_t counts[] = {7, 40000};
        for (size_t s = 0; s < sizeof counts / sizeof counts[0]; s++) {
            const size_t n = counts[s];
            for (int mat = 0; mat < 2; mat++) {
                for (int in_place = 0; in_place < 2; in_place++) {
                    case_reduce(team, K_ALLREDUCE, n, 0, in_place, mat, config, seed++);
                    for (int k = 0; k < nroots; k++)
                        case_reduce(team, K_REDUCE, n, roots[k], in_place, mat, config, seed++);
                }
                case_reduce(team, K_REDUCE_SCATTER_BLOCK, n / (size_t)p + 1, 0, 0, mat, config,
                            seed++);
                case_reduce(team, K_REDUCE_SCATTER, n / (size_t)p + 1, 0, 0, mat, config, seed++);
            }
        }
    }
    return team_cases_verdict();
}

/* 10,000 allgathers of 64-byte blocks, each in a fresh 3 MiB buffer, an arena of its own
 * (SHMCOLL_HEAP_ARENA=2M): every call maps p-1 new arenas on every member. Descriptors and
 * mappings must stay bounded (SHMCOLL_HEAP_CACHE=16), the results right. */
static int body_fresh(shmcoll_team_t *team, void *arg) {
    const int p = team->size, me = team->rank;
    const long calls = 10000 / team_harness_scale_down();
    /* A block that keeps the first arena alive, so that every 3 MiB buffer opens an arena of its
     * own, destroyed when freed. */
    void *keeper = shmcoll_heap_alloc(64, 64);
    const int fds = proc_open_fds();
    int failed = 0;
    for (long k = 0; k < calls && !failed; k++) {
        unsigned char *recv = shmcoll_heap_alloc(3 << 20, 64), mine[64], want[64];
        blocks_fill(mine, 64, (uint64_t)k, me, 0);
        shmcoll_status_t status = shmcoll_allgather(team, mine, recv, 64);
        for (int q = 0; q < p && status == SHMCOLL_OK; q++) {
            blocks_fill(want, 64, (uint64_t)k, q, 0);
            failed |= memcmp(recv + 64 * (size_t)q, want, 64) != 0;
        }
        failed |= status != SHMCOLL_OK || strcmp(team->last_algo, "heap") != 0;
        shmcoll_heap_free(recv);
        shmcoll_heap_peer_stats_t peers;
        shmcoll_heap_peer_stats(&peers);
        if (peers.live > 16 || proc_open_fds() > fds + 2) {
            team_harness_log("call %ld: %llu mappings, %d descriptors (%d before)", k,
                             (unsigned long long)peers.live, proc_open_fds(), fds);
            failed = 1;
        }
    }
    shmcoll_heap_peer_stats_t peers;
    shmcoll_heap_peer_stats(&peers);
    if (p > 1 && peers.maps < (uint64_t)calls) {
        team_harness_log("only %llu arenas mapped in %ld calls", (unsigned long long)peers.maps,
                         calls);
        failed = 1;
    }
    if (proc_heap_mappings() > 16 + 2) {
        team_harness_log("%d arena mappings in the process", proc_heap_mappings());
        failed = 1;
    }
    if (failed) team_harness_log("fresh buffers: wrong results, path or bounds");
    shmcoll_heap_free(keeper);
    return failed;
}

int main(int argc, char **argv) {
    uint64_t inode;
    const int own = shmcoll_heap_pidfd_probe_target(&inode);
    if (own < 0 || shmcoll_heap_pidfd_fetch(getpid(), own) < 0) {
        printf("test_heap: skipped: pidfd_getfd is not available here\n");
        return 0;
    }
    /* 70001-byte blocks stay short of single copy (a row ahead of the heap's, which maps heap
     * buffers itself), so that they test the heap rows */
    static const char *const env_default[] = {"SHMCOLL_TIMEOUT=30", "SHMCOLL_HEAP_MIN=1",
                                              "SHMCOLL_HEAP_CHUNKS=0", "SHMCOLL_CMA_MIN=128k",
                                              NULL};
    static const char *const env_small[] = {"SHMCOLL_TIMEOUT=30",    "SHMCOLL_HEAP_MIN=1",
                                            "SHMCOLL_HEAP_CHUNKS=0", "SHMCOLL_CHUNK=4k",
                                            "SHMCOLL_CMA_MIN=128k",  NULL};
    static const char *const env_attach[] = {"SHMCOLL_TIMEOUT=30",    "SHMCOLL_HEAP_MIN=1",
                                             "SHMCOLL_HEAP_CHUNKS=0", "SHMCOLL_HEAP_CACHE=0",
                                             "SHMCOLL_CMA_MIN=128k",  NULL};
    static const char *const env_fresh[] = {"SHMCOLL_TIMEOUT=60",    "SHMCOLL_HEAP_MIN=1",
                                            "SHMCOLL_HEAP_CHUNKS=0", "SHMCOLL_HEAP_ARENA=2M",
                                            "SHMCOLL_HEAP_CACHE=16", NULL};
    static const int sizes[] = {1, 2, 3, 4, 5, 7};
    static const int few[] = {2, 3};
    int failures = 0;
    const char *const *envs[] = {env_default, env_small, env_attach};
    for (int e = 0; e < 3; e++) {
        team_harness_spec_t spec = {.body = body, .timeout_s = 600, .env = envs[e]};
        printf("%s\n", e == 0 ? "default chunk" : e == 1 ? "4 KiB chunks" : "no mapping (CMA)");
        failures += team_harness_for_sizes_spec(
            argc, argv, e ? few : sizes, e ? 2 : (int)(sizeof sizes / sizeof sizes[0]), &spec);
    }
    team_harness_spec_t fresh = {.body = body_fresh, .timeout_s = 600, .env = env_fresh};
    printf("fresh buffers\n");
    failures += team_harness_for_sizes_spec(argc, argv, few, 2, &fresh);
    return failures != 0;
}
