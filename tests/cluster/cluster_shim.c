/* Preloaded into every rank by scripts/cluster-run.sh (tests only, never part of shmcoll):
 *
 * - Yield in UCX's progress loop: with SHMC_SHIM_YIELD=1, ucp_worker_progress() calls
 *   sched_yield() whenever it made no progress. MPICH 4.0.2 (ch4:ucx) busy-polls without
 *   yielding, so with more ranks than cores one 8-byte collective takes milliseconds; with this
 *   it takes microseconds. Open MPI has its own knob (mpi_yield_when_idle).
 * - Finalize markers on stderr, one line each, so that the launcher can tell a job that hangs in
 *   MPI_Finalize (after every rank finished its work) from one that hangs before:
 *       shmc-shim: rank R on HOST: MPI_Finalize           the program called MPI_Finalize
 *       shmc-shim: rank R on HOST: library finalize       the MPI library's own finalize began
 *       shmc-shim: rank R on HOST: finalized              ... and returned
 *   "library finalize" is the MPI library's MPI_Finalize when the program calls it directly, or
 *   its PMPI_Finalize when an interposed library (shmcoll) calls that from its MPI_Finalize.
 *
 * No MPI header: the rank comes from the launcher's environment (PMI_RANK for hydra,
 * OMPI_COMM_WORLD_RANK for Open MPI) and the symbols are looked up with dlsym(RTLD_NEXT). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT, dladdr */
#endif
#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void marker(const char *what) {
    const char *rank = getenv("PMI_RANK");
    if (!rank) rank = getenv("OMPI_COMM_WORLD_RANK");
    char host[256] = "?";
    gethostname(host, sizeof host - 1);
    char line[512];
    int n = snprintf(line, sizeof line, "shmc-shim: rank %s on %s: %s\n", rank ? rank : "?", host,
                     what);
    if (n <= 0) return;
    if ((size_t)n >= sizeof line) n = sizeof line - 1;
    ssize_t written = write(STDERR_FILENO, line, (size_t)n);
    (void)written;
}

/* Whether the function at `fn` is in the MPI library (libmpi*.so: libmpich, libmpi). */
static int in_mpi_library(void *fn) {
    Dl_info info;
    if (!fn || !dladdr(fn, &info) || !info.dli_fname) return 0;
    const char *base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    return strncmp(base, "libmpi", 6) == 0;
}

typedef int (*finalize_fn)(void);
static int library_finalize_seen;

static int library_finalize(finalize_fn real) {
    library_finalize_seen = 1;
    marker("library finalize");
    int rc = real();
    marker("finalized");
    return rc;
}

int MPI_Finalize(void) {
    finalize_fn next = (finalize_fn)dlsym(RTLD_NEXT, "MPI_Finalize");
    if (!next) abort();
    marker("MPI_Finalize");
    if (in_mpi_library((void *)next)) return library_finalize(next);
    int rc = next(); /* an interposed library, which calls PMPI_Finalize below */
    if (!library_finalize_seen) marker("finalized");
    return rc;
}

int PMPI_Finalize(void) {
    finalize_fn next = (finalize_fn)dlsym(RTLD_NEXT, "PMPI_Finalize");
    if (!next) abort();
    return library_finalize(next);
}

typedef unsigned (*progress_fn)(void *worker);

unsigned ucp_worker_progress(void *worker) {
    static progress_fn real;
    static int yield = -1;
    if (!real) {
        real = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
        if (!real) abort();
    }
    if (yield < 0) {
        const char *env = getenv("SHMC_SHIM_YIELD");
        yield = env && !strcmp(env, "1");
    }
    unsigned events = real(worker);
    if (!events && yield) sched_yield();
    return events;
}
