/* The loop check's stretches go on past a call with other arguments (calibrate.c, check_mark,
 * check_grant). A benchmark times a loop of 8-byte allreduces, and every WARMUP calls reduces its
 * timings with an allreduce of one double (the same 8-byte band, other arguments) and a barrier.
 * Such a call ended the express run of the MPI library's stretch, whose other calls then ran
 * ahead unstamped: the check counted 30 periods of that way, one of them across the interruption
 * (12.5 us against 0.5 a call), and took the MPI library's way for 1.1-1.3 us a call where its
 * loop took 0.4-0.5 (Open MPI, p = 2). Every verdict the MPI library's (the margin), so that the
 * band is checked and its first stretch is the MPI library's; run_mpi.py matches the check's line
 * for at least 40 periods of each way (of the 64 it counts). Every result is checked. */
#include "mpi_check.h"

#include <stdlib.h>

#define WARMUP 40   /* calls between two interruptions */
#define CALLS  1200 /* a measurement, its check's two stretches of 128, and more */

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    const int p = check_size;
    for (int c = 0; c < CALLS; c++) {
        const float send[2] = {(float)(check_rank + c % 7), 1.0f};
        float sum[2] = {0, 0};
        MPI_Allreduce(send, sum, 2, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        const float want = (float)(p * (p - 1) / 2 + p * (c % 7));
        if (!CHECK(sum[0] == want && sum[1] == (float)p, "call %d: %g %g, not %g %d", c, sum[0],
                   sum[1], want, p))
            break;
        if (c % WARMUP == WARMUP - 1) { /* the benchmark's own reduction of its timings */
            double mine = check_rank + 0.5, most = 0;
            MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            CHECK(most == p - 0.5, "call %d: the timings' maximum %g, not %g", c, most, p - 0.5);
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    return check_finish("loop_break");
}
