/* The knobs that decide paths, compared over a communicator or the job. See agree.h. */
#include "mpi/agree.h"

#include "base/config.h"
#include "base/log.h"
#include "mpi/version.h"
#include "select/tune.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The comparison's format, the same in every build: WIRE_KNOBS entries, the first the build's
 * identity, then the knobs, then zeros. Ranks that loaded different builds (whose knobs may differ
 * in number) so make the same PMPI_Allreduce and learn that they differ; a count of their own
 * would end the job in the MPI library with a truncation error. Never change it. */
#define WIRE_KNOBS 64
#define BUILD      0 /* the identity's entry */

static atomic_int job_differs;
static atomic_int stats_differ;
static char job_reason[192];

int shmcoll_mpi_disabled(void) {
    return shmcoll_config()->disable || atomic_load_explicit(&job_differs, memory_order_relaxed);
}

int shmcoll_mpi_straight_through(void) {
    const shmcoll_config_t *config = shmcoll_config();
    return shmcoll_mpi_disabled() && !config->stats && !config->check && !config->verbose;
}

int shmcoll_mpi_stats_agreed(void) {
    return !atomic_load_explicit(&stats_differ, memory_order_relaxed);
}

int shmcoll_mpi_job_differs(void) {
    return atomic_load_explicit(&job_differs, memory_order_relaxed);
}

const char *shmcoll_mpi_disabled_reason(void) {
    return shmcoll_config()->disable ? "SHMCOLL_DISABLE=1" : job_reason;
}

/* This process's build and knobs of `scope` with their hashes; COMM adds the tuning rules in
 * force. */
static int knobs_of(const char *scope, const char **names, uint64_t *hashes) {
    const char *build = shmcoll_mpi_build_identity();
    names[BUILD] = "the build of shmcoll";
    hashes[BUILD] = shmcoll_config_hash(SHMCOLL_CONFIG_HASH_SEED, build, strlen(build));
    int n = BUILD + 1;
    n += shmcoll_config_scope(scope, names + n, hashes + n, WIRE_KNOBS - 1 - n);
    if (!strcmp(scope, "COMM")) {
        names[n] = "SHMCOLL_TUNE/SHMCOLL_TUNE_FILE (the tuning rules in force)";
        hashes[n++] = shmcoll_tune_digest(shmcoll_tune_current());
    }
    return n;
}

/* A hash as a non-negative int, for MPI_MINLOC. */
static int fold(uint64_t hash) {
    return (int)((hash ^ (hash >> 31) ^ (hash >> 62)) & 0x7fffffff);
}

/* The comparison (collective over comm): for knob k, ranks[2k] holds the least value and
 * ranks[2k + 1] the greatest, equal when all agree. Returns the knobs (-1: the exchange failed,
 * which the MPI library reports to every rank alike through the communicator's handler). */
static int compare(MPI_Comm comm, int rank, const char *scope, const char **names,
                   int ranks[2 * WIRE_KNOBS]) {
    uint64_t hashes[WIRE_KNOBS];
    const int n = knobs_of(scope, names, hashes);
    struct {
        int value, rank;
    } mine[2 * WIRE_KNOBS], all[2 * WIRE_KNOBS];
    for (int k = 0; k < WIRE_KNOBS; k++) {
        mine[k].value = k < n ? fold(hashes[k]) : 0;
        mine[WIRE_KNOBS + k].value = -mine[k].value; /* its least is the greatest value */
        mine[k].rank = mine[WIRE_KNOBS + k].rank = rank;
    }
    if (PMPI_Allreduce(mine, all, 2 * WIRE_KNOBS, MPI_2INT, MPI_MINLOC, comm) != MPI_SUCCESS)
        return -1;
    for (int k = 0; k < n; k++) {
        const int differs = all[k].value != -all[WIRE_KNOBS + k].value;
        const int a = all[k].rank, b = differs ? all[WIRE_KNOBS + k].rank : a;
        ranks[2 * k] = a < b ? a : b; /* the lower first, for the message */
        ranks[2 * k + 1] = a < b ? b : a;
    }
    return n;
}

/* The first knob that differs, or -1; every one that differs is listed into `list` (for
 * SHMCOLL_VERBOSE=1). */
static int first_difference(const char **names, const int *ranks, int n, char *list, size_t len) {
    int first = -1;
    size_t at = 0;
    list[0] = '\0';
    for (int k = 0; k < n; k++) {
        if (ranks[2 * k] == ranks[2 * k + 1]) continue;
        if (first < 0) first = k;
        if (at < len)
            at += (size_t)snprintf(list + at, len - at, "%s%s (ranks %d and %d)", at ? ", " : "",
                                   names[k], ranks[2 * k], ranks[2 * k + 1]);
    }
    return first;
}

/* How ranks that differ in entry k differ, for a message. */
static const char *difference(const char **names, int k, char *text, size_t len) {
    if (k == BUILD) return "loaded different builds of shmcoll";
    snprintf(text, len, "set %s differently", names[k]);
    return text;
}

const char *shmcoll_mpi_agree_comm(MPI_Comm comm, int rank, int size) {
    static atomic_int warned;
    const char *names[WIRE_KNOBS];
    int ranks[2 * WIRE_KNOBS];
    const int n = compare(comm, rank, "COMM", names, ranks);
    if (n < 0) return "comparing the ranks' settings failed";
    char list[768];
    const int k = first_difference(names, ranks, n, list, sizeof list);
    if (k < 0) return NULL;
    char text[128];
    if (rank == 0 && !atomic_exchange(&warned, 1))
        shmcoll_log_warn("ranks %d and %d of a communicator of %d processes %s: its collectives "
                         "go to the MPI library (the build and the settings that decide a path "
                         "must be the same on every rank; SHMCOLL_VERBOSE=1 lists all)",
                         ranks[2 * k], ranks[2 * k + 1], size,
                         difference(names, k, text, sizeof text));
    if (rank == 0) shmcoll_log_verbose("settings that differ: %s", list);
    return "its ranks are configured differently";
}

/* This process's rank in MPI_COMM_WORLD, from now on in its log lines. */
static int world_rank_logged(void) {
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    shmcoll_log_set_rank(rank);
    return rank;
}

void shmcoll_mpi_agree_job_without(int missing) {
    const int rank = world_rank_logged();
    snprintf(job_reason, sizeof job_reason, "rank %d of the job did not load shmcoll", missing);
    atomic_store(&stats_differ, 1); /* MPI_Finalize's statistics are collectives too */
    atomic_store(&job_differs, 1);
    /* Rank 0 warns where it has shmcoll; where it has not, each rank that has it. */
    if (rank == 0 || missing == 0)
        shmcoll_log_warn("%s: every collective goes to the MPI library (every rank of a job must "
                         "load shmcoll: give LD_PRELOAD to mpirun with -x, to mpiexec with -genv)",
                         job_reason);
}

void shmcoll_mpi_agree_job(void) {
    const int rank = world_rank_logged();
    const char *names[WIRE_KNOBS];
    int ranks[2 * WIRE_KNOBS];
    const int n = compare(MPI_COMM_WORLD, rank, "JOB", names, ranks);
    /* SHMCOLL_STATS decides only whether MPI_Finalize gathers the statistics: where ranks differ
     * nobody does, and shmcoll serves on. */
    for (int s = 0; s < n; s++)
        if (!strcmp(names[s], "SHMCOLL_STATS") && ranks[2 * s] != ranks[2 * s + 1]) {
            atomic_store(&stats_differ, 1);
            if (rank == 0)
                shmcoll_log_warn("ranks %d and %d of the job set SHMCOLL_STATS differently: no "
                                 "statistics at MPI_Finalize",
                                 ranks[2 * s], ranks[2 * s + 1]);
            ranks[2 * s + 1] = ranks[2 * s];
        }
    char list[768];
    const int k = n < 0 ? -1 : first_difference(names, ranks, n, list, sizeof list);
    if (k < 0) return;
    char text[128];
    snprintf(job_reason, sizeof job_reason, "ranks %d and %d of the job %s", ranks[2 * k],
             ranks[2 * k + 1], difference(names, k, text, sizeof text));
    atomic_store(&job_differs, 1);
    if (k == BUILD) {
        atomic_store(&stats_differ, 1); /* their statistics need not match either */
        /* The two ranks named each tell their own: the one to replace may be either. */
        if (rank == ranks[2 * k] || rank == ranks[2 * k + 1])
            shmcoll_log_warn(
                "%s: every collective goes to the MPI library (every rank must load the "
                "same libshmcoll; this one is %s)",
                job_reason, shmcoll_mpi_build_identity());
    } else if (rank == 0) {
        shmcoll_log_warn("%s: every collective goes to the MPI library (settings that decide a "
                         "path must be the same on every rank; SHMCOLL_VERBOSE=1 lists all)",
                         job_reason);
        shmcoll_log_verbose("settings that differ: %s", list);
    }
}
