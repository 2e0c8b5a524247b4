/* The socket-aware two-level MA reduction (coll/reduce_ma2.c) on machines we do not have: teams
 * of forked processes placed on injected multi-socket topologies (SHMCOLL_TOPO, SHMCOLL_MAP).
 *
 * Shapes: 2 sockets with ranks dealt NUMA round-robin (socket groups not contiguous in rank
 * order) at p = 4, 8, 12, 16; 3 sockets at p = 12 (n = 4); 5 sockets at p = 10. Refused
 * (NOT_SUPPORTED, buffers untouched): 4 members on one socket and 2 on the other (the group
 * positions would not line up), and one member per socket at p = 3 and the prime p = 5 (no
 * chain; one-level MA serves those).
 *
 * On every supported shape, with SHMCOLL_TUNE forcing ma2 for commutative calls:
 *  - allreduce and reduce (roots 0 and p-1) over the matrix's commutative (type, op) pairs at
 *    counts 1, 7 and 1000, in place or not, through the library's checkers (values against the
 *    scalar oracle, guards, untouched send buffers); each of these calls must have used ma2;
 *  - the same with 4 KiB chunks and a count of many rounds;
 *  - reduce_scatter with uneven blocks (zero-sized ones included) of INT32 sums;
 *  - the DAV of one 1 MiB double sum, summed over the team, equal to s(5p + 2m - 3) for
 *    allreduce, s(3p + 2m - 1) for reduce and s(3p + 2m - 3) for reduce_scatter (YHCCL 3.3). */
#include "coll/coll.h"
#include "coll_check.h"
#include "core/team_topo.h"
#include "select/team_coll.h"
#include "team_harness.h"
#include "test_data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct shape {
    const char *machine, *map;
    int p, sockets; /* sockets 0: the shape must be refused */
} shape_t;

static int used_ma2(shmcoll_team_t *team, const char *desc) {
    if (!strcmp(team->last_algo, "ma2")) return 0;
    team_harness_log("%s: served by %s, not ma2", desc, team->last_algo);
    return 1;
}

static int check_matrix(shmcoll_team_t *team, size_t count, uint64_t *index) {
    const int p = team->size;
    int failed = 0;
    for (int k = 0; k < coll_check_npairs; k++) {
        shmcoll_reduce_op_t op;
        if (test_data_op(coll_check_pairs[k].dtype, coll_check_pairs[k].op, &op) || !op.commutative)
            continue;
        for (int in_place = 0; in_place < 2; in_place++) {
            coll_case_t c = {.dtype = coll_check_pairs[k].dtype,
                             .op = coll_check_pairs[k].op,
                             .count = count,
                             .root = (int)(*index % 2) * (p - 1),
                             .in_place = in_place,
                             .misalign = (int)(*index & 1),
                             .seed = test_data_mix(p, (*index)++, 21)};
            failed |= coll_check_allreduce(team, &c) || used_ma2(team, "allreduce");
            failed |= coll_check_reduce(team, &c) || used_ma2(team, "reduce");
        }
    }
    return failed;
}

/* Reduce_scatter of INT32 sums (exact in any order) with blocks of r % 3 * count elements;
 * result and guards against a local reference. Adds the call's DAV to *dav. */
static int check_reduce_scatter(shmcoll_team_t *team, size_t count, uint64_t seed, uint64_t *dav) {
    const int p = team->size, me = team->rank;
    size_t counts[p], firsts[p], total = 0;
    for (int r = 0; r < p; r++)
        firsts[r] = total, counts[r] = (size_t)(r % 3) * count, total += counts[r];
    shmcoll_reduce_op_t op;
    test_data_op(SHMCOLL_DT_INT32, SHMCOLL_OP_SUM, &op);
    int32_t *in = malloc(total * 4 + 4), *ref = malloc(total * 4 + 4), *x = malloc(total * 4 + 4);
    int32_t *out = malloc(counts[me] * 4 + 64);
    int failed = 0;
    if (!in || !ref || !x || !out) {
        team_harness_log("reduce_scatter: out of memory");
        failed = 1;
    }
    if (!failed) {
        memset(ref, 0, total * 4);
        for (int r = 0; r < p; r++) {
            test_data_fill(SHMCOLL_DT_INT32, SHMCOLL_OP_SUM, r, p, seed, x, total);
            for (size_t i = 0; i < total; i++)
                ref[i] = (int32_t)((uint32_t)ref[i] + (uint32_t)x[i]);
        }
        test_data_fill(SHMCOLL_DT_INT32, SHMCOLL_OP_SUM, me, p, seed, in, total);
        test_data_poison(out, counts[me] * 4 + 64);
    }
    /* No registry row runs ma2 for reduce_scatter: its task is started by hand, as the selector
     * would start a row's. */
    const shmcoll_coll_args_t args = {.kind = SHMCOLL_KIND_REDUCE_SCATTER,
                                      .sendbuf = in,
                                      .recvbuf = out,
                                      .recvcounts = counts,
                                      .op = &op};
    shmcoll_task_t task = {.args = &args,
                           .ops = &shmcoll_coll_reduce_ma2_ops,
                           .algo = "ma2",
                           .name = "reduce_scatter"};
    const uint64_t before = shmcoll_team_dav(team);
    shmcoll_status_t status = failed ? SHMCOLL_ERR_NO_MEMORY : shmcoll_task_run(team, &task);
    *dav += shmcoll_team_dav(team) - before;
    if (!failed && status != SHMCOLL_OK) {
        team_harness_log("reduce_scatter count %zu: %s (%s)", count, shmcoll_status_string(status),
                         team->error);
        failed = 1;
    } else if (!failed) {
        long bad = test_data_compare(SHMCOLL_DT_INT32, out, ref + firsts[me], counts[me]);
        if (bad >= 0 || test_data_poisoned((char *)out + counts[me] * 4, 64) >= 0) {
            team_harness_log("reduce_scatter count %zu: element %ld wrong or guard written", count,
                             bad);
            failed = 1;
        }
    }
    free(in), free(ref), free(x), free(out);
    return failed;
}

/* The summed DAV of one call on every member. */
static uint64_t team_total(uint64_t mine) {
    uint64_t all[TEAM_HARNESS_MAX_P], total = 0;
    if (team_harness_allgather(&mine, all, sizeof mine)) return 0;
    for (int r = 0; r < team_harness_size(); r++) total += all[r];
    return total;
}

static int check_dav(shmcoll_team_t *team, int m, uint64_t *index) {
    const int p = team->size;
    const uint64_t s = (uint64_t)1 << 20;
    coll_case_t c = {.dtype = SHMCOLL_DT_DOUBLE, .op = SHMCOLL_OP_SUM, .count = s / 8};
    uint64_t got[3], before = shmcoll_team_dav(team);
    c.seed = test_data_mix(p, (*index)++, 22), c.root = -1;
    int failed = coll_check_allreduce(team, &c);
    got[0] = team_total(shmcoll_team_dav(team) - before);
    before = shmcoll_team_dav(team), c.root = p - 1, c.seed = test_data_mix(p, (*index)++, 22);
    failed |= coll_check_reduce(team, &c);
    got[1] = team_total(shmcoll_team_dav(team) - before);
    uint64_t rs = 0;
    /* blocks of r % 3 elements of 4 bytes: s bytes in all when their sum is s / 4 elements */
    size_t thirds = 0;
    for (int r = 0; r < p; r++) thirds += (size_t)(r % 3);
    failed |= check_reduce_scatter(team, s / 4 / thirds, test_data_mix(p, (*index)++, 23), &rs);
    const uint64_t rs_bytes = (uint64_t)(s / 4 / thirds) * thirds * 4;
    got[2] = team_total(rs);
    const uint64_t want[3] = {s * (uint64_t)(5 * p + 2 * m - 3), s * (uint64_t)(3 * p + 2 * m - 1),
                              rs_bytes * (uint64_t)(3 * p + 2 * m - 3)};
    static const char *names[3] = {"allreduce", "reduce", "reduce_scatter"};
    if (team->rank == 0)
        printf("  p=%d m=%d DAV/s: allreduce %.3f reduce %.3f reduce_scatter %.3f\n", p, m,
               (double)got[0] / (double)s, (double)got[1] / (double)s,
               (double)got[2] / (double)rs_bytes);
    for (int w = 0; w < 3; w++)
        if (got[w] != want[w]) {
            team_harness_log("%s: DAV %llu, expected %llu", names[w], (unsigned long long)got[w],
                             (unsigned long long)want[w]);
            failed = 1;
        }
    return failed;
}

static int check_refused(shmcoll_team_t *team) {
    shmcoll_reduce_op_t op;
    test_data_op(SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM, &op);
    double in[100], out[100], copy[100];
    test_data_fill(SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM, team->rank, team->size, 5, in, 100);
    test_data_poison(out, sizeof out);
    memcpy(copy, out, sizeof out);
    const shmcoll_coll_args_t args = {
        .kind = SHMCOLL_KIND_ALLREDUCE, .sendbuf = in, .recvbuf = out, .count = 100, .op = &op};
    shmcoll_status_t status = shmcoll_coll_run_algo(team, &args, "ma2", NULL);
    if (status == SHMCOLL_ERR_NOT_SUPPORTED && !memcmp(out, copy, sizeof out) &&
        shmcoll_team_socket_groups(&team->hiers) == 0)
        return 0;
    team_harness_log("unequal socket groups: %s, groups %d, receive buffer %s",
                     shmcoll_status_string(status), shmcoll_team_socket_groups(&team->hiers),
                     memcmp(out, copy, sizeof out) ? "written" : "untouched");
    return 1;
}

static int body(shmcoll_team_t *team, void *arg) {
    const shape_t *shape = arg;
    if (!shape->sockets) return check_refused(team);
    if (shmcoll_team_socket_groups(&team->hiers) != shape->sockets) {
        team_harness_log("%d socket groups, expected %d", shmcoll_team_socket_groups(&team->hiers),
                         shape->sockets);
        return 1;
    }
    uint64_t index = 0, unused = 0;
    int failed = 0;
    static const size_t counts[] = {1, 7, 1000};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
        failed |= check_matrix(team, counts[i], &index);
    for (size_t count = 0; count <= 40; count += 13)
        failed |=
            check_reduce_scatter(team, count, test_data_mix(team->size, index++, 24), &unused);
    failed |= check_dav(team, shape->sockets, &index);
    return failed;
}

/* Many rounds: 4 KiB buffers, a message of several slices per position. */
static int body_rounds(shmcoll_team_t *team, void *arg) {
    if (team_harness_check_chunk(team, 4096)) return 1;
    uint64_t index = 100, unused = 0;
    int failed = check_matrix(team, 20000 / (size_t)team_harness_scale_down() + 3, &index);
    failed |= check_reduce_scatter(team, 3001, test_data_mix(team->size, index++, 25), &unused);
    return failed;
}

int main(void) {
    static const shape_t shapes[] = {
        {"pack:2 numa:2 l3:2 core:4 pu:1", "numa-rr", 4, 2},
        {"pack:2 numa:2 l3:2 core:4 pu:1", "numa-rr", 8, 2},
        {"pack:2 numa:2 l3:2 core:4 pu:1", "numa-rr", 12, 2},
        {"pack:2 numa:2 l3:2 core:4 pu:1", "numa-rr", 16, 2},
        {"pack:3 core:4 pu:1", "linear", 12, 3},
        {"pack:3 core:4 pu:1", "0,4,8", 3, 0},
        {"pack:5 core:2 pu:1", "linear", 10, 5},
        {"pack:5 core:2 pu:1", "0,2,4,6,8", 5, 0},
        {"pack:2 numa:2 l3:2 core:4 pu:1", "numa-rr", 6, 0},
    };
    int failed = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        char topo_env[96], map_env[64];
        snprintf(topo_env, sizeof topo_env, "SHMCOLL_TOPO=%s", shapes[i].machine);
        snprintf(map_env, sizeof map_env, "SHMCOLL_MAP=%s", shapes[i].map);
        const char *env[] = {topo_env, map_env, "SHMCOLL_TUNE=allreduce:@ma2;reduce:@ma2", NULL,
                             NULL};
        for (int rounds = 0; rounds < 2; rounds++) {
            if (rounds && !shapes[i].sockets) continue;
            env[3] = rounds ? "SHMCOLL_CHUNK=4k" : NULL;
            team_harness_spec_t spec = {.p = shapes[i].p,
                                        .body = rounds ? body_rounds : body,
                                        .arg = (void *)&shapes[i],
                                        .timeout_s = 120,
                                        .env = env};
            const double start = team_harness_now();
            const int f = team_harness_run_spec(&spec);
            printf("ma2 %s map %s p=%d%s: %s (%.2f s)\n", shapes[i].machine, shapes[i].map,
                   shapes[i].p, rounds ? " chunk=4k" : "", f ? "FAILED" : "ok",
                   team_harness_now() - start);
            fflush(stdout);
            failed |= f != 0;
        }
    }
    return failed;
}
