/* A rank that does not arrive at an allreduce, or dies there. Every rank first prints
 * "test_error: rank R is pid P" (run_mpi.py --error-names-rank matches the pids the library names
 * to ranks), then runs one MPI_Allreduce of one double (it sets the communicator up) and a second
 * one, which the faults below hit:
 *
 *   SHMCOLL_TEST_SLEEP_RANK=r     rank r sleeps SHMCOLL_TEST_SLEEP_SECONDS (default 10) before the
 *                                 second allreduce: the others must give up after SHMCOLL_TIMEOUT
 *                                 with a message naming rank r and the allreduce;
 *   SHMCOLL_TEST_LATE=1           ... unless rank r is only late, as a legal program's rank may
 *                                 be (SHMCOLL_TIMEOUT unset: the MPI library waits for it too):
 *                                 then every rank's second allreduce must succeed;
 *   SHMCOLL_TEST_KILL_RANK=r      rank r raises SIGKILL on itself there: the others, already in
 *                                 the allreduce, must stop (or the launcher ends the job);
 *   SHMCOLL_TEST_KILL_NOTICE=s    the launcher learns of that death s seconds late, or never
 *                                 (s < 0), as when a node's launcher daemon is lost: every rank
 *                                 runs in a child of the process the launcher started, which
 *                                 passes the child's end on (at once, or s seconds after a death
 *                                 by a signal); the others must then end by themselves;
 *   SHMCOLL_TEST_COUNT=n          doubles in the second allreduce (default 1; from 8192, 64 KiB,
 *                                 an allreduce across nodes takes its large, pipelined form).
 *
 * By default the communicator's error handler (MPI_ERRORS_ARE_FATAL) ends the job at the first
 * rank that fails. With SHMCOLL_TEST_REPORT_SECONDS=g errors return instead: each rank whose
 * allreduce fails prints "test_error: rank R: MPI_Allreduce of N bytes failed" and exits 1 after
 * g seconds, so that every rank that ends its wait reports before the launcher ends the job.
 * run_mpi.py checks the messages, the non-zero exit and the time. */
#include "mpi_check.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static long env_long(const char *name, long deflt) {
    const char *text = getenv(name);
    return text && *text ? strtol(text, NULL, 10) : deflt;
}

/* SHMCOLL_TEST_KILL_NOTICE: the rest of the program runs in a child, killed with this process
 * (the launcher's signals reach this one); this one passes the child's end on. */
static void late_death_notice(long seconds) {
    const pid_t parent = getpid(), child = fork();
    if (child < 0) {
        perror("test_error: fork");
        exit(1);
    }
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) raise(SIGKILL); /* the parent is gone already */
        return;
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) continue;
    if (WIFSIGNALED(status)) {
        if (seconds < 0)
            for (;;) pause(); /* until the launcher ends the job */
        sleep((unsigned)seconds);
        signal(WTERMSIG(status), SIG_DFL);
        raise(WTERMSIG(status));
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

int main(int argc, char **argv) {
    const char *notice = getenv("SHMCOLL_TEST_KILL_NOTICE");
    if (notice && *notice) late_death_notice(strtol(notice, NULL, 10));
    check_init(&argc, &argv);
    const int sleeper = (int)env_long("SHMCOLL_TEST_SLEEP_RANK", -1);
    const unsigned seconds = (unsigned)env_long("SHMCOLL_TEST_SLEEP_SECONDS", 10);
    const int late = (int)env_long("SHMCOLL_TEST_LATE", 0);
    const int victim = (int)env_long("SHMCOLL_TEST_KILL_RANK", -1);
    const long count = env_long("SHMCOLL_TEST_COUNT", 1);
    const long report = env_long("SHMCOLL_TEST_REPORT_SECONDS", -1);
    printf("test_error: rank %d is pid %d\n", check_rank, (int)getpid());
    fflush(stdout);
    if (report >= 0) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    double x = check_rank, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == (double)check_size * (check_size - 1) / 2, "first allreduce: %g", sum);

    double *in = check_alloc((size_t)count * sizeof *in);
    double *out = check_alloc((size_t)count * sizeof *out);
    for (long i = 0; i < count; i++) in[i] = check_rank;
    if (check_rank == sleeper) sleep(seconds);
    if (check_rank == victim) raise(SIGKILL);
    int rc = MPI_Allreduce(in, out, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS && report >= 0) {
        printf("test_error: rank %d: MPI_Allreduce of %ld bytes failed\n", check_rank,
               count * (long)sizeof(double));
        fflush(stdout);
        sleep((unsigned)report);
        _exit(1);
    }
    /* Reached only without a fault, or if the error handler returned (it must not). */
    CHECK((sleeper < 0 || late) && victim < 0 && rc == MPI_SUCCESS, "second allreduce returned %d",
          rc);
    for (long i = 0; i < count && rc == MPI_SUCCESS; i++)
        if (!CHECK(out[i] == sum, "second allreduce: element %ld is %g", i, out[i])) break;
    free(in);
    free(out);
    return check_finish("test_error");
}
