/* SHMCOLL_CHECK=1: one exchange of fixed-size records per collective, compared by every rank.
 * See check.h.
 *
 * Every rank finds the same first difference in the gathered records, and reports it with the
 * lowest rank that differs from rank 0 (or, for block sizes, the first two ranks that disagree);
 * a difference that only a root sees in its count arrays is reported by the root alone. The
 * reporting rank ends the job with PMPI_Abort on MPI_COMM_WORLD: an error handler could return
 * and let the ranks go on with calls that no longer match. */
#include "mpi/check.h"
#include "mpi/agree.h"
#include "mpi/datatype.h"

#include "base/config.h"
#include "base/log.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void (*describe_fn)(const void *margs, int rank, int size, shmcoll_mpi_check_t *check);

static const describe_fn describe[SHMCOLL_MPI_COLL_COUNT] = {
    [SHMCOLL_MPI_BARRIER] = shmcoll_mpi_check_barrier,
    [SHMCOLL_MPI_BCAST] = shmcoll_mpi_check_bcast,
    [SHMCOLL_MPI_REDUCE] = shmcoll_mpi_check_reduction,
    [SHMCOLL_MPI_ALLREDUCE] = shmcoll_mpi_check_reduction,
    [SHMCOLL_MPI_REDUCE_SCATTER_BLOCK] = shmcoll_mpi_check_reduce_scatter,
    [SHMCOLL_MPI_REDUCE_SCATTER] = shmcoll_mpi_check_reduce_scatter,
    [SHMCOLL_MPI_SCAN] = shmcoll_mpi_check_reduction,
    [SHMCOLL_MPI_EXSCAN] = shmcoll_mpi_check_reduction,
    [SHMCOLL_MPI_ALLGATHER] = shmcoll_mpi_check_allgather,
    [SHMCOLL_MPI_ALLGATHERV] = shmcoll_mpi_check_allgather,
    [SHMCOLL_MPI_GATHER] = shmcoll_mpi_check_gather,
    [SHMCOLL_MPI_GATHERV] = shmcoll_mpi_check_gather,
    [SHMCOLL_MPI_SCATTER] = shmcoll_mpi_check_scatter,
    [SHMCOLL_MPI_SCATTERV] = shmcoll_mpi_check_scatter,
    [SHMCOLL_MPI_ALLTOALL] = shmcoll_mpi_check_alltoall,
    [SHMCOLL_MPI_ALLTOALLV] = shmcoll_mpi_check_alltoall,
};

static const char *const coll_names[SHMCOLL_MPI_COLL_COUNT] = {
    "MPI_Barrier",        "MPI_Bcast",   "MPI_Reduce",  "MPI_Allreduce", "MPI_Reduce_scatter_block",
    "MPI_Reduce_scatter", "MPI_Scan",    "MPI_Exscan",  "MPI_Allgather", "MPI_Allgatherv",
    "MPI_Gather",         "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv",  "MPI_Alltoall",
    "MPI_Alltoallv"};

static const char *const field_names[SHMCOLL_MPI_CHECK_FIELDS] = {
    "collective",   "root",      "op", "datatype", "count", "count x datatype size",
    "MPI_IN_PLACE", "recvcounts"};

int64_t shmcoll_mpi_check_bytes(MPI_Datatype datatype, MPI_Count count) {
    MPI_Count size = 0;
    if (datatype == MPI_DATATYPE_NULL || PMPI_Type_size_x(datatype, &size) != MPI_SUCCESS)
        return SHMCOLL_MPI_CHECK_ABSENT;
    return (int64_t)count * (int64_t)size;
}

int64_t shmcoll_mpi_check_type(MPI_Datatype datatype) {
    shmcoll_mpi_layout_t layout;
    if (shmcoll_mpi_datatype_layout(datatype, &layout) != SHMCOLL_OK)
        return SHMCOLL_MPI_CHECK_ABSENT;
    return layout.index >= 0 ? layout.index : -1 - (int64_t)layout.size;
}

int64_t shmcoll_mpi_check_op(MPI_Op op) {
    const MPI_Op known[] = {MPI_MAX,    MPI_MIN,    MPI_SUM,     MPI_PROD, MPI_LAND,
                            MPI_BAND,   MPI_LOR,    MPI_BOR,     MPI_LXOR, MPI_BXOR,
                            MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (op == known[i]) return (int64_t)i;
    return op == MPI_OP_NULL ? SHMCOLL_MPI_CHECK_ABSENT : 1000;
}

static int64_t count_at(const void *counts, int wide, int j) {
    return wide ? (int64_t)((const MPI_Count *)counts)[j] : ((const int *)counts)[j];
}

int64_t shmcoll_mpi_check_counts_hash(const void *counts, int wide, int n, int64_t unit) {
    if (!counts || unit == SHMCOLL_MPI_CHECK_ABSENT) return SHMCOLL_MPI_CHECK_ABSENT;
    uint64_t hash = 14695981039346656037ull;
    for (int j = 0; j < n; j++)
        hash = (hash ^ (uint64_t)(count_at(counts, wide, j) * unit)) * 1099511628211ull;
    return (int64_t)(hash >> 1);
}

/* Prints the error and ends the job; the message goes out before the abort. The launcher
 * forwards a rank's output on its own time while an abort ends every process at once, so the
 * message is given a moment to leave (seen lost once in many runs under MPICH's hydra). */
static void fail(const char *function, const char *what) {
    shmcoll_log_error("%s: %s", function, what);
    fflush(stderr);
    const struct timespec moment = {0, 200 * 1000 * 1000};
    nanosleep(&moment, NULL);
    PMPI_Abort(MPI_COMM_WORLD, 1);
}

static void describe_value(int field, int64_t value, char *text, size_t len) {
    if (field == SHMCOLL_MPI_CHECK_COLL && value >= 0 && value < SHMCOLL_MPI_COLL_COUNT)
        snprintf(text, len, "%s", coll_names[value]);
    else if (field == SHMCOLL_MPI_CHECK_TYPE && value >= 0)
        snprintf(text, len, "%s", shmcoll_mpi_datatype_name((int)value));
    else if (field == SHMCOLL_MPI_CHECK_TYPE)
        snprintf(text, len, "a derived datatype of %" PRId64 " bytes", -1 - value);
    else if (field == SHMCOLL_MPI_CHECK_IN_PLACE)
        snprintf(text, len, "%s", value ? "MPI_IN_PLACE" : "a send buffer");
    else if (field == SHMCOLL_MPI_CHECK_OP || field == SHMCOLL_MPI_CHECK_COUNTS)
        snprintf(text, len, "another");
    else
        snprintf(text, len, "%" PRId64, value);
}

/* The first field in which some rank differs from rank 0, reported with that rank. */
static void compare_fields(const char *function, const shmcoll_mpi_check_t *all, int size) {
    for (int f = 0; f < SHMCOLL_MPI_CHECK_FIELDS; f++)
        for (int r = 1; r < size; r++) {
            const int64_t a = all[0].field[f], b = all[r].field[f];
            if (a == b) continue;
            char what[256], va[64], vb[64];
            describe_value(f, a, va, sizeof va);
            describe_value(f, b, vb, sizeof vb);
            if (f == SHMCOLL_MPI_CHECK_COLL)
                snprintf(what, sizeof what,
                         "ranks call different collectives: rank 0 calls %s, "
                         "rank %d calls %s",
                         va, r, vb);
            else if (f == SHMCOLL_MPI_CHECK_OP || f == SHMCOLL_MPI_CHECK_COUNTS)
                snprintf(what, sizeof what, "%s differs: rank 0 and rank %d pass different ones",
                         field_names[f], r);
            else
                snprintf(what, sizeof what, "%s differs: rank 0 has %s, rank %d has %s",
                         field_names[f], va, r, vb);
            fail(function, what);
        }
}

/* All blocks alike: every send and receive size present must be the same. */
static void compare_blocks(const char *function, const shmcoll_mpi_check_t *all, int size) {
    int first = -1, first_sends = 0;
    int64_t bytes = 0;
    for (int r = 0; r < size; r++)
        for (int side = 0; side < 2; side++) {
            const int64_t b = side ? all[r].recv : all[r].send;
            if (b == SHMCOLL_MPI_CHECK_ABSENT) continue;
            if (first < 0) {
                first = r, first_sends = !side, bytes = b;
                continue;
            }
            if (b == bytes) continue;
            char what[256];
            snprintf(what, sizeof what,
                     "sendcount and recvcount differ (bytes per block, count x datatype "
                     "size): rank %d %s %" PRId64 ", rank %d %s %" PRId64,
                     first, first_sends ? "sends" : "receives", bytes, r,
                     side ? "receives" : "sends", b);
            fail(function, what);
        }
}

/* This rank's count array against the other ranks' block sizes. */
static void compare_counts(const char *function, const shmcoll_mpi_check_t *mine, int rank,
                           const shmcoll_mpi_check_t *all, int size) {
    if (!mine->counts || mine->unit == SHMCOLL_MPI_CHECK_ABSENT) return;
    for (int j = 0; j < size; j++) {
        const int64_t theirs = mine->against_recv ? all[j].recv : all[j].send;
        const int64_t count = count_at(mine->counts, mine->wide, j);
        if (theirs == SHMCOLL_MPI_CHECK_ABSENT || count * mine->unit == theirs) continue;
        char what[256];
        snprintf(what, sizeof what,
                 "%s[%d] differs: rank %d has %" PRId64 " (%" PRId64 " bytes), rank %d %s %" PRId64
                 " bytes",
                 mine->against_recv ? "sendcounts" : "recvcounts", j, rank, count,
                 count * mine->unit, j, mine->against_recv ? "receives" : "sends", theirs);
        fail(function, what);
    }
}

void shmcoll_mpi_check(shmcoll_mpi_coll_t coll, const char *function, const void *margs,
                       MPI_Comm comm) {
    int inter = 0, rank, size;
    /* Not where the job's ranks disagree on the JOB knobs, SHMCOLL_CHECK among them (agree.h). */
    if (!shmcoll_config()->check || shmcoll_mpi_job_differs() || comm == MPI_COMM_NULL ||
        PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    shmcoll_mpi_check_t mine = {.send = SHMCOLL_MPI_CHECK_ABSENT, .recv = SHMCOLL_MPI_CHECK_ABSENT};
    for (int f = 0; f < SHMCOLL_MPI_CHECK_FIELDS; f++) mine.field[f] = SHMCOLL_MPI_CHECK_ABSENT;
    describe[coll](margs, rank, size, &mine);
    mine.field[SHMCOLL_MPI_CHECK_COLL] = coll;
    /* Only what every rank compares travels; the count array stays here. */
    shmcoll_mpi_check_t sent = mine;
    sent.counts = NULL;
    shmcoll_mpi_check_t *all = malloc((size_t)size * sizeof *all);
    if (!all) fail(function, "no memory to check the arguments (SHMCOLL_CHECK=1)");
    PMPI_Allgather(&sent, (int)sizeof sent, MPI_BYTE, all, (int)sizeof sent, MPI_BYTE, comm);
    compare_fields(function, all, size);
    if (mine.uniform) compare_blocks(function, all, size);
    compare_counts(function, &mine, rank, all, size);
    free(all);
}
