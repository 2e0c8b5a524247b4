/* Many collectives back to back, with no synchronisation of the harness in between, to catch a
 * member racing into the next collective while others still read its slots (the classic bug of
 * shared-memory collectives: overwriting a slot of call N with data of call N+1).
 *
 * Per team size (p in {2,3,4,5,8,16}): 1000 small allreduces whose count (1..9), in-place flag
 * and size class (inline flag line, flat slot, split pipeline) rotate; every 100 calls a big
 * broadcast from a rotating root; then 200 reduces with rotating roots and counts, and barriers
 * mixed in. Inputs are functions of (rank, call, index) whose reductions have a closed form, so
 * every call is checked at once and cheaply. Team sizes may be given on the command line. */
#include "select/team_coll.h"
#include "team_harness.h"
#include "test_data.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

static shmcoll_reduce_op_t int64_sum(void) {
    return (shmcoll_reduce_op_t){.kernel = shmcoll_kernel_reduce(SHMCOLL_DT_INT64, SHMCOLL_OP_SUM),
                                 .size = 8,
                                 .extent = 8,
                                 .commutative = 1,
                                 .name = "MPI_SUM/int64"};
}

/* Input of rank r for call k at index j, and the sum over all ranks. */
static int64_t input(int r, long k, size_t j) {
    return (int64_t)(r + 1) * (k + 1) + (int64_t)j;
}
static int64_t expected_sum(int p, long k, size_t j) {
    return (int64_t)p * (p + 1) / 2 * (k + 1) + (int64_t)p * (int64_t)j;
}

static int check_status(shmcoll_team_t *team, shmcoll_status_t status, const char *what, long k) {
    if (status == SHMCOLL_OK) return 0;
    team_harness_log("%s %ld returned %s (%s)", what, k, shmcoll_status_string(status),
                     team->error);
    return 1;
}

static int check_sum(const int64_t *got, size_t n, int p, long k, const char *what) {
    for (size_t j = 0; j < n; j++)
        if (got[j] != expected_sum(p, k, j)) {
            team_harness_log("%s %ld count %zu: element %zu is %lld, expected %lld", what, k, n, j,
                             (long long)got[j], (long long)expected_sum(p, k, j));
            return 1;
        }
    return 0;
}

static int bcast_round(shmcoll_team_t *team, long k, unsigned char *buf, size_t bytes) {
    const int root = (int)(k % team->size);
    if (team->rank == root)
        for (size_t i = 0; i < bytes; i++) buf[i] = (unsigned char)(i * 131 + (size_t)k);
    else
        memset(buf, 0, bytes);
    if (check_status(team, shmcoll_bcast(team, buf, bytes, root), "bcast", k)) return 1;
    for (size_t i = 0; i < bytes; i++)
        if (buf[i] != (unsigned char)(i * 131 + (size_t)k)) {
            team_harness_log("bcast %ld from %d: byte %zu wrong", k, root, i);
            return 1;
        }
    return 0;
}

static int body(shmcoll_team_t *team, void *arg) {
    const int p = team->size, me = team->rank;
    const shmcoll_reduce_op_t op = int64_sum();
    /* Counts that land in the inline area, a flat slot and the split pipeline (more than the
     * flat limit of p * span bytes); each call switches class, so protocols alternate. */
    const size_t counts[] = {1, 3, 9, 2000, 2, 500, 7, 40000};
    const size_t big_bcast = ((size_t)1 << 20) / (size_t)team_harness_scale_down() + 1;
    const long rounds = 1000 / team_harness_scale_down();
    const size_t max_count = 40001; /* the largest count below, +1 for the reduces */
    int64_t *send = malloc(max_count * sizeof *send), *recv = malloc(max_count * sizeof *recv);
    unsigned char *bbuf = malloc(big_bcast);
    int failed = !send || !recv || !bbuf;

    for (long k = 0; k < rounds && !failed; k++) {
        const size_t n = counts[k % NELEMS(counts)];
        const int in_place = (k / NELEMS(counts)) & 1;
        int64_t *in = in_place ? recv : send;
        for (size_t j = 0; j < n; j++) in[j] = input(me, k, j);
        failed |= check_status(team, shmcoll_allreduce(team, in_place ? NULL : send, recv, n, &op),
                               "allreduce", k);
        failed = failed || check_sum(recv, n, p, k, "allreduce");
        if (!failed && k % 100 == 99) failed = bcast_round(team, k, bbuf, big_bcast);
        if (!failed && k % 37 == 0)
            failed = check_status(team, shmcoll_barrier(team), "barrier", k);
    }
    for (long k = 0; k < 200 && !failed; k++) {
        const int root = (int)(k % p);
        const size_t n = counts[(k * 3) % NELEMS(counts)] / (k % 5 == 4 ? 1 : 50) + 1;
        const int in_place = root == me && (k & 2);
        int64_t *in = in_place ? recv : send;
        for (size_t j = 0; j < n; j++) in[j] = input(me, k, j);
        failed = check_status(
            team,
            shmcoll_reduce(team, in_place ? NULL : send, root == me ? recv : NULL, n, &op, root),
            "reduce", k);
        if (!failed && root == me) failed = check_sum(recv, n, p, k, "reduce");
        if (!failed && k % 50 == 49) failed = bcast_round(team, k, bbuf, 1000 + (size_t)k);
    }
    free(send), free(recv), free(bbuf);
    return failed;
}

int main(int argc, char **argv) {
    static const int sizes[] = {2, 3, 4, 5, 8, 16};
    return team_harness_for_sizes(argc, argv, sizes, NELEMS(sizes), body, NULL, 120.0) != 0;
}
