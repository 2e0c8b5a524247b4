/* Memory a job pays for its communicators: the proportional set size (Pss of
 * /proc/self/smaps_rollup, shared pages divided among the processes mapping them) before and after
 * creating SHMCOLL_TEST_COMMS duplicates of MPI_COMM_WORLD (default 100) and running one allreduce
 * of SHMCOLL_TEST_BYTES bytes (default 8) on each, all of them kept alive until measured.
 *
 * Everything the job would pay anyway is paid before the first measurement: the buffers are
 * touched, one allreduce of the same size on MPI_COMM_WORLD sets up its team, and one through the
 * MPI library itself (PMPI_Allreduce on a duplicate) whatever the library keeps for that size
 * (MPICH's temporary buffers stay in the heap: 8 MiB after a 16 MiB allreduce), which the
 * communicators that go to the MPI library would otherwise be charged with. With
 * SHMCOLL_TEST_PSS_LIMIT_KIB the test fails when any rank's growth exceeds it. Rank 0 prints one
 * line with the largest growth of any rank ("footprint: ...") and every rank's result is checked
 * against the sum of the inputs. */
#include "mpi_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long env_long(const char *name, long fallback) {
    const char *text = getenv(name);
    return text && *text ? strtol(text, NULL, 0) : fallback;
}

/* Pss of the whole process in KiB, or -1 when the kernel has no smaps_rollup. */
static long pss_kib(void) {
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (!f) return -1;
    char line[256];
    long kib = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "Pss:", 4)) {
            kib = strtol(line + 4, NULL, 10);
            break;
        }
    fclose(f);
    return kib;
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
    long growth = after - before, most = 0;
    MPI_Allreduce(&growth, &most, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    CHECK(before >= 0, "no Pss in /proc/self/smaps_rollup");
    if (limit >= 0)
        CHECK(growth <= limit, "rank %d: Pss grew by %ld KiB for %ld communicators, limit %ld KiB",
              check_rank, growth, ncomms, limit);
    if (check_rank == 0)
        printf("footprint: p=%d comms=%ld bytes=%ld pss_before=%ld KiB growth=%ld KiB (largest of "
               "any rank)\n",
               check_size, ncomms, bytes, before, most);
    for (long c = 0; c < ncomms; c++) MPI_Comm_free(&comms[c]);
    free(comms);
    free(in);
    free(out);
    return check_finish("test_footprint");
}
