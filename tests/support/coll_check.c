/* Checked collective calls for the team tests; see coll_check.h for what is verified. */
#include "coll_check.h"

#include "select/team_coll.h"
#include "team_harness.h"
#include "test_buffers.h"
#include "test_data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD_BYTES 64
/* Up to this many elements times p, every member compares its own result with the reference. */
#define SELF_CHECK_WORK ((size_t)1 << 14)

const coll_pair_t coll_check_pairs[] = {
    {SHMCOLL_DT_INT32, SHMCOLL_OP_SUM},          {SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM},
    {SHMCOLL_DT_FLOAT, SHMCOLL_OP_MIN},          {SHMCOLL_DT_FLOAT, SHMCOLL_OP_MAX},
    {SHMCOLL_DT_UINT8, SHMCOLL_OP_BXOR},         {SHMCOLL_DT_INT64, SHMCOLL_OP_PROD},
    {SHMCOLL_DT_DOUBLE_INT, SHMCOLL_OP_MAXLOC},  {SHMCOLL_DT_DOUBLE_INT, SHMCOLL_OP_MINLOC},
    {SHMCOLL_DT_SHORT_INT, SHMCOLL_OP_MINLOC},   {SHMCOLL_DT_BOOL, SHMCOLL_OP_LOR},
    {SHMCOLL_DT_DOUBLE_COMPLEX, SHMCOLL_OP_SUM}, {SHMCOLL_DT_LONG_DOUBLE, SHMCOLL_OP_SUM},
    {SHMCOLL_DT_INT8, SHMCOLL_OP_SUM},           {SHMCOLL_DT_UINT16, SHMCOLL_OP_MAX},
    {SHMCOLL_DT_INT16, SHMCOLL_OP_LXOR},         {SHMCOLL_DT_UINT32, SHMCOLL_OP_BOR},
    {SHMCOLL_DT_INT32, SHMCOLL_OP_LAND},         {SHMCOLL_DT_UINT64, SHMCOLL_OP_BAND},
    {SHMCOLL_DT_INT64, SHMCOLL_OP_MIN},          {SHMCOLL_DT_FLOAT, SHMCOLL_OP_SUM},
    {SHMCOLL_DT_FLOAT_COMPLEX, SHMCOLL_OP_PROD}, {SHMCOLL_DT_LONG_DOUBLE_COMPLEX, SHMCOLL_OP_SUM},
    {SHMCOLL_DT_FLOAT_INT, SHMCOLL_OP_MAXLOC},   {SHMCOLL_DT_LONG_INT, SHMCOLL_OP_MINLOC},
    {SHMCOLL_DT_2INT, SHMCOLL_OP_MAXLOC},        {SHMCOLL_DT_LONG_DOUBLE_INT, SHMCOLL_OP_MINLOC},
    {SHMCOLL_DT_BOOL, SHMCOLL_OP_LAND},          {SHMCOLL_DT_BYTE, SHMCOLL_OP_BAND},
};
const int coll_check_npairs = (int)(sizeof coll_check_pairs / sizeof coll_check_pairs[0]);

/* Calls per algorithm name (team->last_algo after each successful checked call). */
#define MAX_ALGOS 16
static struct {
    const char *name;
    long calls;
} algo_tally[MAX_ALGOS];

static void tally(const shmcoll_team_t *team) {
    for (int i = 0; i < MAX_ALGOS; i++) {
        if (algo_tally[i].name && strcmp(algo_tally[i].name, team->last_algo)) continue;
        algo_tally[i].name = team->last_algo;
        algo_tally[i].calls++;
        return;
    }
}

void coll_check_print_algorithms(shmcoll_team_t *team, const char *coll) {
    if (team->rank == 0) {
        char text[512];
        size_t len = 0;
        for (int i = 0; i < MAX_ALGOS && algo_tally[i].name && len < sizeof text; i++)
            len += (size_t)snprintf(text + len, sizeof text - len, " %s:%ld", algo_tally[i].name,
                                    algo_tally[i].calls);
        printf("  p=%d %s algorithms (calls):%s\n", team->size, coll, len ? text : " none");
        fflush(stdout);
    }
    memset(algo_tally, 0, sizeof algo_tally);
}

/* A buffer with poisoned bytes before (the misalignment offset) and after the data. */
typedef struct guarded {
    unsigned char *mem;
    size_t total;
    size_t offset;
    unsigned char *data;
} guarded_t;

static int guarded_alloc(guarded_t *g, size_t data_bytes, size_t offset) {
    g->offset = offset;
    g->total = offset + data_bytes + GUARD_BYTES;
    g->mem = test_buffer_alloc(g->total);
    if (!g->mem) {
        team_harness_log("out of memory for %zu bytes", g->total);
        return 1;
    }
    test_data_poison(g->mem, g->total);
    g->data = g->mem + offset;
    return 0;
}

static void guarded_free(guarded_t *g) {
    test_buffer_free(g->mem);
    g->mem = NULL;
}

/* Bytes outside [offset, offset + span) must still hold the poison. */
static int guarded_check(const guarded_t *g, size_t span, const char *what, const char *desc) {
    long before = test_data_poisoned(g->mem, g->offset);
    long after = test_data_poisoned(g->data + span, g->total - g->offset - span);
    if (before < 0 && after < 0) return 0;
    if (before >= 0)
        team_harness_log("%s: %s byte %ld before the data was overwritten", desc, what,
                         (long)g->offset - before);
    if (after >= 0)
        team_harness_log("%s: %s byte %ld past the last data byte was overwritten", desc, what,
                         after);
    return 1;
}

void coll_case_format(const char *coll, const coll_case_t *c, char *text, size_t len) {
    if (!strcmp(coll, "bcast"))
        snprintf(text, len, "bcast %zu bytes root %d%s seed %llu", c->count, c->root,
                 c->misalign ? " misaligned" : "", (unsigned long long)c->seed);
    else if (!strcmp(coll, "reduce"))
        snprintf(text, len, "reduce %s/%s count %zu root %d%s%s seed %llu",
                 shmcoll_opcode_name(c->op), shmcoll_dtype_name(c->dtype), c->count, c->root,
                 c->in_place ? " in-place" : "", c->misalign ? " misaligned" : "",
                 (unsigned long long)c->seed);
    else
        snprintf(text, len, "%s %s/%s count %zu%s%s seed %llu", coll, shmcoll_opcode_name(c->op),
                 shmcoll_dtype_name(c->dtype), c->count, c->in_place ? " in-place" : "",
                 c->misalign ? " misaligned" : "", (unsigned long long)c->seed);
}

int coll_check_roots(int p, int roots[]) {
    if (p <= 5) {
        for (int r = 0; r < p; r++) roots[r] = r;
        return p;
    }
    roots[0] = 0;
    roots[1] = p - 1;
    roots[2] = p / 2;
    return 3;
}

/* Compares n elements with the reference, reporting the first few differences. */
static int compare_result(const coll_case_t *c, const void *got, const void *want,
                          const char *desc) {
    size_t extent = shmcoll_dtype_extent(c->dtype);
    long first = test_data_compare(c->dtype, got, want, c->count);
    if (first < 0) return 0;
    size_t bad = 0;
    for (size_t i = (size_t)first; i < c->count; i++) {
        const char *g = (const char *)got + i * extent, *w = (const char *)want + i * extent;
        if (test_data_compare(c->dtype, g, w, 1) < 0) continue;
        if (++bad <= 3) {
            char gt[96], wt[96];
            test_data_format(c->dtype, g, gt, sizeof gt);
            test_data_format(c->dtype, w, wt, sizeof wt);
            team_harness_log("%s: element %zu is %s, expected %s", desc, i, gt, wt);
        }
    }
    team_harness_log("%s: %zu of %zu elements wrong", desc, bad, c->count);
    return 1;
}

/* Fills the reference result into a fresh buffer, or NULL after logging. */
static void *make_reference(const coll_case_t *c, int p, const char *desc) {
    size_t bytes = c->count * shmcoll_dtype_extent(c->dtype);
    void *ref = malloc(bytes ? bytes : 1);
    if (!ref || test_data_reference(c->dtype, c->op, p, c->seed, ref, c->count)) {
        team_harness_log("%s: cannot compute the reference", desc);
        free(ref);
        return NULL;
    }
    return ref;
}

/* Sets up the send buffer (or the in-place input) and a pristine copy of it. */
static int prepare_input(const coll_case_t *c, int rank, int p, guarded_t *send, guarded_t *recv,
                         unsigned char **send_copy) {
    size_t extent = shmcoll_dtype_extent(c->dtype);
    size_t offset = c->misalign ? test_data_align(c->dtype) : 0;
    guarded_t *input = send ? send : recv;
    if (send && guarded_alloc(send, c->count * extent, offset)) return 1;
    test_data_fill(c->dtype, c->op, rank, p, c->seed, input->data, c->count);
    if (send) {
        *send_copy = malloc(send->total);
        if (!*send_copy) return 1;
        memcpy(*send_copy, send->mem, send->total);
    }
    return 0;
}

static int check_send_unchanged(const guarded_t *send, const unsigned char *copy,
                                const char *desc) {
    if (!send || !send->mem || !memcmp(send->mem, copy, send->total)) return 0;
    team_harness_log("%s: the send buffer was modified", desc);
    return 1;
}

int coll_check_allreduce(shmcoll_team_t *team, const coll_case_t *c) {
    const int p = team->size, me = team->rank;
    char desc[192];
    coll_case_format("allreduce", c, desc, sizeof desc);
    shmcoll_reduce_op_t op;
    if (test_data_op(c->dtype, c->op, &op)) {
        team_harness_log("%s: no kernel for this type and op", desc);
        return 1;
    }
    const size_t extent = op.extent, span = test_data_span(c->dtype, c->count);
    guarded_t send = {0}, recv = {0};
    unsigned char *send_copy = NULL;
    int failed =
        guarded_alloc(&recv, c->count * extent, c->misalign ? test_data_align(c->dtype) : 0);
    if (!failed) failed = prepare_input(c, me, p, c->in_place ? NULL : &send, &recv, &send_copy);
    if (failed) goto out;

    shmcoll_status_t status =
        shmcoll_allreduce(team, c->in_place ? NULL : send.data, recv.data, c->count, &op);
    if (status != SHMCOLL_OK) {
        team_harness_log("%s: returned %s (%s)", desc, shmcoll_status_string(status), team->error);
        failed = 1;
    } else {
        tally(team);
    }
    failed |= guarded_check(&recv, span, "receive buffer", desc);
    failed |= check_send_unchanged(c->in_place ? NULL : &send, send_copy, desc);

    /* Every member publishes a hash of its result's bits (and whether it failed); one member,
     * rotating, checks that all hashes equal its own. Small cases: every member compares its
     * result with the reference; large ones: only that member does. */
    const int checker = (int)(c->seed % (uint64_t)p);
    const int self_check = (size_t)p * c->count <= SELF_CHECK_WORK;
    uint64_t mine[2] = {failed ? 0 : test_data_hash(c->dtype, recv.data, c->count),
                        (uint64_t)failed};
    uint64_t *all = calloc((size_t)p * 2, sizeof *all);
    if (!all || team_harness_allgather(mine, all, sizeof mine)) {
        team_harness_log("%s: hash exchange failed", desc);
        failed = 1;
    } else if (!failed && (self_check || me == checker)) {
        void *ref = make_reference(c, p, desc);
        failed |= !ref || compare_result(c, recv.data, ref, desc);
        for (int r = 0; r < p && me == checker; r++)
            if (!all[2 * r + 1] && all[2 * r] != mine[0]) {
                team_harness_log("%s: rank %d's result differs from rank %d's in its bits", desc, r,
                                 me);
                failed = 1;
            }
        free(ref);
    }
    free(all);
out:
    guarded_free(&send);
    guarded_free(&recv);
    free(send_copy);
    return failed;
}

int coll_check_reduce(shmcoll_team_t *team, const coll_case_t *c) {
    const int p = team->size, me = team->rank, is_root = me == c->root;
    char desc[192];
    coll_case_format("reduce", c, desc, sizeof desc);
    shmcoll_reduce_op_t op;
    if (test_data_op(c->dtype, c->op, &op)) {
        team_harness_log("%s: no kernel for this type and op", desc);
        return 1;
    }
    const size_t extent = op.extent, span = test_data_span(c->dtype, c->count);
    const size_t offset = c->misalign ? test_data_align(c->dtype) : 0;
    guarded_t send = {0}, recv = {0};
    unsigned char *send_copy = NULL;
    /* A non-root passes no receive buffer, or one that must stay untouched. */
    const int pass_recv = is_root || (c->seed & 1);
    const int use_send = !(is_root && c->in_place);
    int failed = pass_recv && guarded_alloc(&recv, c->count * extent, offset);
    if (!failed) failed = prepare_input(c, me, p, use_send ? &send : NULL, &recv, &send_copy);
    if (failed) goto out;

    shmcoll_status_t status = shmcoll_reduce(team, use_send ? send.data : NULL,
                                             pass_recv ? recv.data : NULL, c->count, &op, c->root);
    if (status != SHMCOLL_OK) {
        team_harness_log("%s: returned %s (%s)", desc, shmcoll_status_string(status), team->error);
        failed = 1;
    } else {
        tally(team);
    }
    failed |= check_send_unchanged(use_send ? &send : NULL, send_copy, desc);
    if (is_root) {
        failed |= guarded_check(&recv, span, "receive buffer", desc);
        void *ref = make_reference(c, p, desc);
        failed |= !ref || (status == SHMCOLL_OK && compare_result(c, recv.data, ref, desc));
        free(ref);
    } else if (pass_recv && test_data_poisoned(recv.mem, recv.total) >= 0) {
        team_harness_log("%s: a non-root's receive buffer was written", desc);
        failed = 1;
    }
out:
    guarded_free(&send);
    guarded_free(&recv);
    free(send_copy);
    return failed;
}

int coll_check_bcast(shmcoll_team_t *team, const coll_case_t *c) {
    char desc[192];
    coll_case_format("bcast", c, desc, sizeof desc);
    const size_t bytes = c->count, offset = c->misalign ? 1 + c->seed % 7 : 0;
    guarded_t buf = {0};
    unsigned char *want = malloc(bytes ? bytes : 1);
    int failed = !want || guarded_alloc(&buf, bytes, offset);
    if (failed) goto out;
    /* The payload: the byte stream of (seed, root). */
    test_data_bytes(want, 0, bytes, c->seed, (uint64_t)c->root);
    if (team->rank == c->root) memcpy(buf.data, want, bytes);

    shmcoll_status_t status = shmcoll_bcast(team, buf.data, bytes, c->root);
    if (status != SHMCOLL_OK) {
        team_harness_log("%s: returned %s (%s)", desc, shmcoll_status_string(status), team->error);
        failed = 1;
    } else {
        tally(team);
    }
    failed |= guarded_check(&buf, bytes, "buffer", desc);
    if (memcmp(buf.data, want, bytes)) {
        size_t first = 0, bad = 0;
        for (size_t i = 0; i < bytes; i++)
            if (buf.data[i] != want[i] && !bad++) first = i;
        team_harness_log("%s: %zu of %zu bytes wrong, first at %zu (0x%02x, expected 0x%02x)", desc,
                         bad, bytes, first, buf.data[first], want[first]);
        failed = 1;
    }
out:
    guarded_free(&buf);
    free(want);
    return failed;
}
