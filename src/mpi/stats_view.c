/* The user's view of SHMCOLL_STATS=1. See stats_view.h. */
#include "mpi/stats_view.h"

#include "base/config.h"
#include "select/select.h"

#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REASONS    32 /* distinct reasons per rank; more count as "other" */
#define REASON_MAX 96 /* bytes of a reason in the gathered records */
#define TOP        4  /* the (collective, band) cells and reasons a line names */
#define NS_PER_S   1e9

static const char *const names[SHMCOLL_MPI_COLL_COUNT] = {
    "barrier",        "bcast",   "reduce",  "allreduce", "reduce_scatter_block",
    "reduce_scatter", "scan",    "exscan",  "allgather", "allgatherv",
    "gather",         "gatherv", "scatter", "scatterv",  "alltoall",
    "alltoallv"};

enum { HANDLED_NS, FALLBACK_NS, SAVED_NS, VERDICTS_OURS, VERDICTS_MPI, TOTALS };
static _Atomic uint64_t totals[TOTALS];
static _Atomic uint64_t cell_ns[SHMCOLL_MPI_COLL_COUNT][SHMCOLL_SELECT_BANDS];
static struct {
    _Atomic(const char *) reason;
    _Atomic uint64_t count;
} reasons[REASONS];
static _Atomic uint64_t other_reasons;

static void add(_Atomic uint64_t *counter, uint64_t value) {
    atomic_fetch_add_explicit(counter, value, memory_order_relaxed);
}

void shmcoll_mpi_view_time(shmcoll_mpi_coll_t coll, size_t bytes, int handled, double seconds) {
    const uint64_t ns = seconds > 0 ? (uint64_t)(seconds * NS_PER_S) : 0;
    add(&totals[handled ? HANDLED_NS : FALLBACK_NS], ns);
    add(&cell_ns[coll][shmcoll_select_band(bytes)], ns);
}

void shmcoll_mpi_view_fallback(const char *reason) {
    if (!reason) reason = "unknown";
    for (int slot = 0; slot < REASONS; slot++) {
        const char *current = atomic_load_explicit(&reasons[slot].reason, memory_order_relaxed);
        if (!current &&
            atomic_compare_exchange_strong_explicit(&reasons[slot].reason, &current, reason,
                                                    memory_order_relaxed, memory_order_relaxed))
            current = reason;
        if (current == reason || !strcmp(current, reason)) {
            add(&reasons[slot].count, 1);
            return;
        }
    }
    add(&other_reasons, 1);
}

void shmcoll_mpi_view_verdict(int mpi) {
    add(&totals[mpi ? VERDICTS_MPI : VERDICTS_OURS], 1);
}

void shmcoll_mpi_view_saved(double seconds) {
    if (seconds > 0) add(&totals[SAVED_NS], (uint64_t)(seconds * NS_PER_S));
}

typedef struct reason_record {
    char text[REASON_MAX];
    uint64_t count;
} reason_record_t;

static int by_count(const void *a_, const void *b_) {
    const reason_record_t *a = a_, *b = b_;
    return a->count != b->count ? (a->count > b->count ? -1 : 1) : strcmp(a->text, b->text);
}

/* The cells with the most time, "allreduce [8 B, 16 B) 1.20 s, ..." into `text`. */
static void top_cells(const uint64_t *ns, double per_rank, char *text, size_t len) {
    int taken[TOP];
    size_t at = 0;
    text[0] = '\0';
    for (int k = 0; k < TOP; k++) {
        int best = -1;
        for (int i = 0; i < SHMCOLL_MPI_COLL_COUNT * SHMCOLL_SELECT_BANDS; i++) {
            int seen = 0;
            for (int j = 0; j < k; j++) seen |= taken[j] == i;
            if (!seen && ns[i] && (best < 0 || ns[i] > ns[best])) best = i;
        }
        if (best < 0) break;
        taken[k] = best;
        const int band = best % SHMCOLL_SELECT_BANDS;
        const unsigned long long lo = band ? 1ull << (band - 1) : 0, hi = band ? 1ull << band : 1;
        if (at < len)
            at += (size_t)snprintf(text + at, len - at, "%s%s [%llu, %llu) B %.3f s", k ? ", " : "",
                                   names[best / SHMCOLL_SELECT_BANDS], lo, hi,
                                   (double)ns[best] / NS_PER_S / per_rank);
    }
}

/* Every rank's reasons merged by text, the most frequent first, into `text`. */
static void top_reasons(const reason_record_t *all, int nranks, uint64_t other, char *text,
                        size_t len) {
    reason_record_t merged[2 * REASONS];
    int n = 0;
    for (int r = 0; r < nranks * REASONS; r++) {
        if (!all[r].count) continue;
        int m = 0;
        while (m < n && strncmp(merged[m].text, all[r].text, REASON_MAX)) m++;
        if (m == n) {
            if (n == 2 * REASONS) {
                other += all[r].count;
                continue;
            }
            merged[n] = all[r];
            merged[n++].count = 0;
        }
        merged[m].count += all[r].count;
    }
    qsort(merged, (size_t)n, sizeof *merged, by_count);
    size_t at = 0;
    text[0] = '\0';
    for (int m = 0; m < n && at < len; m++)
        at += (size_t)snprintf(text + at, len - at, "%s%.*s (%llu)", m ? ", " : "", REASON_MAX,
                               merged[m].text, (unsigned long long)merged[m].count);
    if (other && at < len)
        snprintf(text + at, len - at, "%sother reasons (%llu)", at ? ", " : "",
                 (unsigned long long)other);
}

void shmcoll_mpi_view_report(void) {
    enum { CELLS = SHMCOLL_MPI_COLL_COUNT * SHMCOLL_SELECT_BANDS };
    uint64_t mine[TOTALS + CELLS + 1], sum[TOTALS + CELLS + 1];
    for (int i = 0; i < TOTALS; i++) mine[i] = atomic_load(&totals[i]);
    for (int i = 0; i < CELLS; i++)
        mine[TOTALS + i] =
            atomic_load(&cell_ns[i / SHMCOLL_SELECT_BANDS][i % SHMCOLL_SELECT_BANDS]);
    mine[TOTALS + CELLS] = atomic_load(&other_reasons);
    int rank, nranks;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &nranks);
    PMPI_Reduce(mine, sum, TOTALS + CELLS + 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    reason_record_t records[REASONS];
    memset(records, 0, sizeof records);
    for (int slot = 0; slot < REASONS; slot++) {
        const char *reason = atomic_load(&reasons[slot].reason);
        if (!reason) break;
        snprintf(records[slot].text, REASON_MAX, "%s", reason);
        records[slot].count = atomic_load(&reasons[slot].count);
    }
    reason_record_t *all = rank == 0 ? calloc((size_t)nranks, sizeof records) : NULL;
    const int gathered = rank != 0 || all;
    int all_gathered = 0;
    PMPI_Allreduce(&gathered, &all_gathered, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_gathered) { /* no memory at rank 0: the lines without the reasons */
        free(all);
        all = NULL;
    } else {
        PMPI_Gather(records, (int)sizeof records, MPI_BYTE, all, (int)sizeof records, MPI_BYTE, 0,
                    MPI_COMM_WORLD);
    }
    if (rank != 0) return;
    const double per_rank = nranks, handled = (double)sum[HANDLED_NS] / NS_PER_S / per_rank,
                 library = (double)sum[FALLBACK_NS] / NS_PER_S / per_rank;
    char text[1024];
    /* Printed with fprintf, not the logger: the format is a stable interface for scripts. */
    top_cells(sum + TOTALS, per_rank, text, sizeof text);
    fprintf(stderr,
            "shmcoll: time in blocking collectives per rank: %.3f s (shmcoll %.3f s, the MPI "
            "library %.3f s); most: %s\n",
            handled + library, handled, library, text[0] ? text : "none");
    if (sum[VERDICTS_OURS] + sum[VERDICTS_MPI])
        fprintf(stderr,
                "shmcoll: measured: %llu verdicts for shmcoll, %llu for the MPI library; "
                "shmcoll's ways saved about %.3f s per rank against the MPI library's own\n",
                (unsigned long long)sum[VERDICTS_OURS], (unsigned long long)sum[VERDICTS_MPI],
                (double)sum[SAVED_NS] / NS_PER_S / per_rank);
    if (all) {
        top_reasons(all, nranks, sum[TOTALS + CELLS], text, sizeof text);
        if (text[0]) fprintf(stderr, "shmcoll: left to the MPI library: %s\n", text);
        free(all);
    }
}
