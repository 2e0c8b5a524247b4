/* A rank that does not arrive: with SHMCOLL_TEST_SLEEP_RANK=r and SHMCOLL_TEST_SLEEP_SECONDS=s,
 * rank r sleeps s seconds before its second MPI_Allreduce (the first one sets the team up). The
 * others must give up after SHMCOLL_TIMEOUT with a message naming rank r and the allreduce, and
 * the communicator's default error handler (MPI_ERRORS_ARE_FATAL) ends the job: run_mpi.py checks
 * the message, the non-zero exit and the time. */
#include "mpi_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    const char *rank_text = getenv("SHMCOLL_TEST_SLEEP_RANK");
    const char *seconds_text = getenv("SHMCOLL_TEST_SLEEP_SECONDS");
    int sleeper = rank_text ? atoi(rank_text) : -1;
    unsigned seconds = seconds_text ? (unsigned)atoi(seconds_text) : 10;

    double x = check_rank, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == (double)check_size * (check_size - 1) / 2, "first allreduce: %g", sum);
    if (check_rank == sleeper) sleep(seconds);
    int rc = MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    /* Reached only without a sleeper, or if the error handler returned (it must not). */
    CHECK(sleeper < 0 && rc == MPI_SUCCESS, "second allreduce returned %d", rc);
    return check_finish("test_error");
}
