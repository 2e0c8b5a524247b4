/* Memory a job pays for its communicators: the proportional set size (Pss of
 * /proc/self/smaps_rollup, shared pages divided among the processes mapping them; its anonymous and
 * shared-memory parts, see pss_kib) before and after
 * creating SHMCOLL_TEST_COMMS duplicates of MPI_COMM_WORLD (default 100) and running one allreduce
 * of SHMCOLL_TEST_BYTES bytes (default 8) on each, all of them kept alive until measured.
 *
 * Everything the job would pay anyway is paid before the first measurement: the buffers are
 * touched, one allreduce of the same size on MPI_COMM_WORLD sets up its team, and one through the
 * MPI library itself (PMPI_Allreduce on a duplicate) whatever the library keeps for that size
 * (MPICH's temporary buffers stay in the heap: 8 MiB after a 16 MiB allreduce), which the
 * communicators that go to the MPI library would otherwise be charged with. With
 * SHMCOLL_TEST_PSS_LIMIT_KIB the test fails when the ranks' mean growth exceeds it: what the job
 * pays per rank. Not each rank's own: how a shared page's Pss divides among the ranks depends on
 * which of them have it mapped, which the kernel's fault-around decides by timing (it maps a
 * page's neighbours only where their owner has touched them already), so one rank's share of a
 * team's segment of 2 MiB at p = 4 was 514 KiB in one run and 715 KiB in another, under load.
 * Rank 0 prints one line with the mean and the largest growth ("footprint: ...") and every rank's
 * result is checked against the sum of the inputs; a failure lists the mappings of the largest. */
#include "mpi_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long env_long(const char *name, long fallback) {
    const char *text = getenv(name);
    return text && *text ? strtol(text, NULL, 0) : fallback;
}

/* Pss of the process's anonymous and shared memory in KiB (Pss_Anon + Pss_Shmem: what it
 * allocated, not the libraries' pages, whose shares change as other jobs that map the same
 * libraries start and end: a test running beside this one), the whole Pss where the kernel does
 * not tell them apart, or -1 when it has no smaps_rollup. */
static long pss_kib(void) {
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (!f) return -1;
    char line[256];
    long kib = -1, anon = -1, shmem = -1, value;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Pss: %ld", &value) == 1)
            kib = value;
        else if (sscanf(line, "Pss_Anon: %ld", &value) == 1)
            anon = value;
        else if (sscanf(line, "Pss_Shmem: %ld", &value) == 1)
            shmem = value;
    fclose(f);
    if (anon >= 0 && shmem >= 0) kib = anon + shmem;
    return kib;
}

/* Where a rank's Pss is, for a failure's message: every mapping of at least 64 KiB of Pss. */
static void print_mappings(void) {
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return;
    char line[512], name[512] = "";
    while (fgets(line, sizeof line, f)) {
        long kib;
        if (strchr(line, '-') && strchr(line, '-') < strchr(line, ' ')) {
            snprintf(name, sizeof name, "%s", line);
            name[strcspn(name, "\n")] = '\0';
        } else if (sscanf(line, "Pss: %ld kB", &kib) == 1 && kib >= 64)
            printf("rank %d: Pss %ld KiB in %s\n", check_rank, kib, name);
    }
    fclose(f);
}

/* Pss of every rank at the same moment: each rank's share of a shared page depends on how many
 * others map it, so all measure between two barriers. */
static long measure(void) {
    MPI_Barrier(MPI_COMM_WORLD);
    long kib = pss_kib();
    MPI_Barrier(MPI_COMM_WORLD);
    return kib;
}

static int allreduce_check(const double *in, double *out, size_t count, MPI_Comm comm) {
    int rc = MPI_Allreduce(in, out, (int)count, MPI_DOUBLE, MPI_SUM, comm);
    const double want = (double)check_size * (check_size + 1) / 2;
    return CHECK(rc == MPI_SUCCESS && out[0] == want && out[count - 1] == want,
                 "allreduce: rc %d, got %g and %g, want %g", rc, out[0], out[count - 1], want);
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    const long ncomms = env_long("SHMCOLL_TEST_COMMS", 100);
    const long bytes = env_long("SHMCOLL_TEST_BYTES", 8);
    const long limit = env_long("SHMCOLL_TEST_PSS_LIMIT_KIB", -1);
    const size_t count = bytes < 8 ? 1 : (size_t)bytes / sizeof(double);

    double *in = check_alloc(count * sizeof *in), *out = check_alloc(count * sizeof *out);
    for (size_t i = 0; i < count; i++) in[i] = check_rank + 1, out[i] = 0;
    allreduce_check(in, out, count, MPI_COMM_WORLD);
    MPI_Comm warm;
    MPI_Comm_dup(MPI_COMM_WORLD, &warm);
    PMPI_Allreduce(in, out, (int)count, MPI_DOUBLE, MPI_SUM, warm);
    MPI_Comm_free(&warm);
    MPI_Comm *comms = check_alloc((size_t)ncomms * sizeof *comms);
    memset(comms, 0, (size_t)ncomms * sizeof *comms);

    const long before = measure();
    for (long c = 0; c < ncomms; c++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[c]);
        allreduce_check(in, out, count, comms[c]);
    }
    const long after = measure();
    long growth = after - before, most = 0, total = 0;
    MPI_Allreduce(&growth, &most, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&growth, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    const long mean = total / check_size;
    CHECK(before >= 0, "no Pss in /proc/self/smaps_rollup");
    if (limit >= 0 &&
        !CHECK(mean <= limit, "Pss grew by %ld KiB a rank for %ld communicators, limit %ld KiB",
               mean, ncomms, limit) &&
        growth == most)
        print_mappings();
    if (check_rank == 0)
        printf("footprint: p=%d comms=%ld bytes=%ld pss_before=%ld KiB growth=%ld KiB a rank, "
               "%ld KiB the largest\n",
               check_size, ncomms, bytes, before, mean, most);
    for (long c = 0; c < ncomms; c++) MPI_Comm_free(&comms[c]);
    free(comms);
    free(in);
    free(out);
    return check_finish("test_footprint");
}
