/* Statistics counters and their report at MPI_Finalize. See stats.h for what is counted.
 *
 * Counters are C11 atomics updated with relaxed ordering: calls may come from several threads,
 * and nobody reads the counters before MPI_Finalize. Algorithm names come from coll/ as strings,
 * so each rank keeps a small name -> count table (slots claimed by compare-and-swap of the name
 * pointer) and rank 0 merges all ranks' tables, gathered as fixed-size records. */
#include "mpi/stats.h"

#include "base/config.h"
#include "base/log.h"

#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALGO_SLOTS    16 /* distinct algorithm names per collective; more are counted as "other" */
#define ALGO_NAME_MAX 32 /* bytes of a name in the gathered records */

static const char *const coll_names[SHMCOLL_MPI_COLL_COUNT] = {
    "barrier",        "bcast",   "reduce",  "allreduce", "reduce_scatter_block",
    "reduce_scatter", "scan",    "exscan",  "allgather", "allgatherv",
    "gather",         "gatherv", "scatter", "scatterv",  "alltoall",
    "alltoallv"};

/* One entry per collective and form, the blocking ones first. */
#define ENTRIES (SHMCOLL_MPI_COLL_COUNT * SHMCOLL_MPI_FORM_COUNT)

static void entry_name(int entry, char *name, size_t len) {
    const char *coll = coll_names[entry % SHMCOLL_MPI_COLL_COUNT];
    switch (entry / SHMCOLL_MPI_COLL_COUNT) {
    case SHMCOLL_MPI_NONBLOCKING:
        snprintf(name, len, "i%s", coll);
        break;
    case SHMCOLL_MPI_PERSISTENT:
        snprintf(name, len, "%s_init", coll);
        break;
    default:
        snprintf(name, len, "%s", coll);
    }
}

static _Atomic uint64_t handled_calls, fallback_calls;
static _Atomic uint64_t heap_calls; /* operations that took the heap path ("heap") */
static struct {
    _Atomic uint64_t calls, bytes, dav, net, starts;
    struct {
        _Atomic(const char *) name;
        _Atomic uint64_t count;
    } algos[ALGO_SLOTS];
    _Atomic uint64_t other_algos;
} colls[ENTRIES];

static void add(_Atomic uint64_t *counter, uint64_t value) {
    atomic_fetch_add_explicit(counter, value, memory_order_relaxed);
}

static void count_algo(int coll, const char *name) {
    for (int slot = 0; slot < ALGO_SLOTS; slot++) {
        const char *current =
            atomic_load_explicit(&colls[coll].algos[slot].name, memory_order_relaxed);
        if (!current &&
            atomic_compare_exchange_strong_explicit(&colls[coll].algos[slot].name, &current, name,
                                                    memory_order_relaxed, memory_order_relaxed))
            current = name;
        if (current == name || !strcmp(current, name)) {
            add(&colls[coll].algos[slot].count, 1);
            return;
        }
    }
    add(&colls[coll].other_algos, 1);
}

void shmcoll_mpi_stats_record(shmcoll_mpi_coll_t coll_, shmcoll_mpi_form_t form,
                              const shmcoll_mpi_comm_t *state, int handled, uint64_t bytes,
                              uint64_t share, const char *algo, uint64_t dav, uint64_t net) {
    if (!shmcoll_config()->stats) return;
    const int coll = (int)form * SHMCOLL_MPI_COLL_COUNT + (int)coll_;
    if (dav) add(&colls[coll].dav, dav);
    if (net) add(&colls[coll].net, net);
    if (!state) return;
    if (share) add(&colls[coll].bytes, share);
    if (!state->counts) return;
    if (form == SHMCOLL_MPI_PERSISTENT && handled) {
        add(&colls[coll].starts, 1); /* its call is its *_init */
    } else {
        add(handled ? &handled_calls : &fallback_calls, 1);
        add(&colls[coll].calls, 1);
    }
    add(&colls[coll].bytes, bytes);
    count_algo(coll, algo ? algo : "unknown");
    if (algo && !strcmp(algo, "heap")) add(&heap_calls, 1);
}

uint64_t shmcoll_mpi_stats_heap_calls(void) {
    return atomic_load(&heap_calls);
}

int shmcoll_mpi_stats_inter_payload(shmcoll_mpi_coll_t coll) {
    return coll == SHMCOLL_MPI_BARRIER || coll == SHMCOLL_MPI_BCAST || coll == SHMCOLL_MPI_REDUCE ||
           coll == SHMCOLL_MPI_ALLREDUCE;
}

void shmcoll_mpi_stats_record_init(shmcoll_mpi_coll_t coll, const shmcoll_mpi_comm_t *state) {
    if (!shmcoll_config()->stats || !state || !state->counts) return;
    add(&handled_calls, 1);
    add(&colls[SHMCOLL_MPI_PERSISTENT * SHMCOLL_MPI_COLL_COUNT + coll].calls, 1);
}

typedef struct algo_record {
    char name[ALGO_NAME_MAX];
    uint64_t count;
} algo_record_t;

#define RECORDS_PER_RANK (ENTRIES * (ALGO_SLOTS + 1))

static void fill_records(algo_record_t *records) {
    memset(records, 0, RECORDS_PER_RANK * sizeof *records);
    for (int coll = 0; coll < ENTRIES; coll++) {
        algo_record_t *row = records + coll * (ALGO_SLOTS + 1);
        for (int slot = 0; slot < ALGO_SLOTS; slot++) {
            const char *name = atomic_load(&colls[coll].algos[slot].name);
            if (!name) break;
            snprintf(row[slot].name, ALGO_NAME_MAX, "%s", name);
            row[slot].count = atomic_load(&colls[coll].algos[slot].count);
        }
        snprintf(row[ALGO_SLOTS].name, ALGO_NAME_MAX, "other");
        row[ALGO_SLOTS].count = atomic_load(&colls[coll].other_algos);
    }
}

static int by_count(const void *a_, const void *b_) {
    const algo_record_t *a = a_, *b = b_;
    if (a->count != b->count) return a->count > b->count ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* Merges one collective's records of all ranks by name and prints "name:count,..." into text. */
static void format_algos(const algo_record_t *all, int nranks, int coll, char *text, size_t len) {
    algo_record_t merged[64];
    int nmerged = 0;
    for (int rank = 0; rank < nranks; rank++) {
        const algo_record_t *row = all + (size_t)rank * RECORDS_PER_RANK + coll * (ALGO_SLOTS + 1);
        for (int slot = 0; slot <= ALGO_SLOTS; slot++) {
            if (!row[slot].count) continue;
            int m = 0;
            while (m < nmerged && strncmp(merged[m].name, row[slot].name, ALGO_NAME_MAX)) m++;
            if (m == nmerged) {
                if (nmerged == 64) continue;
                merged[nmerged] = row[slot];
                merged[nmerged++].count = 0;
            }
            merged[m].count += row[slot].count;
        }
    }
    qsort(merged, (size_t)nmerged, sizeof merged[0], by_count);
    size_t used = 0;
    text[0] = '\0';
    for (int m = 0; m < nmerged && used < len; m++)
        used +=
            (size_t)snprintf(text + used, len - used, "%s%.*s:%llu", m ? "," : "", ALGO_NAME_MAX,
                             merged[m].name, (unsigned long long)merged[m].count);
}

void shmcoll_mpi_stats_report(void) {
    enum { HANDLED, FALLBACK, PER_COLL, NCOUNTERS = PER_COLL + 5 * ENTRIES };
    uint64_t mine[NCOUNTERS], total[NCOUNTERS];
    mine[HANDLED] = atomic_load(&handled_calls);
    mine[FALLBACK] = atomic_load(&fallback_calls);
    for (int coll = 0; coll < ENTRIES; coll++) {
        mine[PER_COLL + 5 * coll] = atomic_load(&colls[coll].calls);
        mine[PER_COLL + 5 * coll + 1] = atomic_load(&colls[coll].bytes);
        mine[PER_COLL + 5 * coll + 2] = atomic_load(&colls[coll].dav);
        mine[PER_COLL + 5 * coll + 3] = atomic_load(&colls[coll].net);
        mine[PER_COLL + 5 * coll + 4] = atomic_load(&colls[coll].starts);
    }
    int rank, nranks;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &nranks);
    PMPI_Reduce(mine, total, NCOUNTERS, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);

    algo_record_t records[RECORDS_PER_RANK];
    fill_records(records);
    algo_record_t *all = NULL;
    if (rank == 0) {
        all = malloc((size_t)nranks * sizeof records);
        if (!all) {
            shmcoll_log_error("out of memory for the statistics of %d ranks", nranks);
            PMPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    PMPI_Gather(records, (int)sizeof records, MPI_BYTE, all, (int)sizeof records, MPI_BYTE, 0,
                MPI_COMM_WORLD);
    if (rank != 0) return;

    /* Printed with fprintf, not the logger: the format is a stable interface for scripts. */
    fprintf(stderr, "shmcoll: handled %llu calls, fell back %llu\n",
            (unsigned long long)total[HANDLED], (unsigned long long)total[FALLBACK]);
    for (int coll = 0; coll < ENTRIES; coll++) {
        const uint64_t *c = total + PER_COLL + 5 * coll;
        if (!c[0]) continue;
        char algos[1024], net[48] = "", starts[48] = "", name[48];
        format_algos(all, nranks, coll, algos, sizeof algos);
        entry_name(coll, name, sizeof name);
        if (c[3]) snprintf(net, sizeof net, " net=%llu", (unsigned long long)c[3]);
        if (coll / SHMCOLL_MPI_COLL_COUNT == SHMCOLL_MPI_PERSISTENT)
            snprintf(starts, sizeof starts, " starts=%llu", (unsigned long long)c[4]);
        fprintf(stderr, "shmcoll: %s calls=%llu%s bytes=%llu dav=%llu%s algo=%s\n", name,
                (unsigned long long)c[0], starts, (unsigned long long)c[1],
                (unsigned long long)c[2], net, algos);
    }
    free(all);
}
