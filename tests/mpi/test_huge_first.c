/* A huge band's first measurement reaches its verdict within the few calls an application makes
 * of such a size (calibrate.c, probed): from 8 MiB a round is one call of each way, so the
 * measurement is a warm-up call and at most two rounds of the ways, with no probe in front. An
 * application whose FFT made 16 transpositions of 32 MiB spent all of them measuring. Run at the
 * defaults with SHMCOLL_VERBOSE=1: after the communicator's setup (its first calls are the MPI
 * library's, SHMCOLL_COLLS_THRESHOLD), `argv[1]` bcasts of 8 MiB from the last rank (seven by
 * default: the warm-up and two rounds of bcast's three ways, the heap's row, which wraps the
 * pipeline, single copy and the MPI library's; a probe alone took nine), each result checked;
 * run_mpi.py checks that the band's verdict was printed. With `argv[2]`, bcasts of that many bytes
 * instead: a large band below 8 MiB is measured first with its trials spread (calibrate.c,
 * band_for), so its first calls, as many as a trial block's gap, all take single copy, the way
 * calls without a verdict take (calibrate.c, unmeasured_row), none the MPI library's and none the
 * node team's choice, the pipeline (run with SHMCOLL_STATS=1, run_mpi.py checks the bcast's way).
 */
#include "mpi_check.h"

#include <stdlib.h>
#include <string.h>

#define HUGE  ((size_t)8 << 20) /* bytes: the band [8 MiB, 16 MiB), by default */
#define SETUP 8                 /* small calls first: past the setup threshold */

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    const int calls = argc > 1 ? atoi(argv[1]) : 7, root = check_size - 1;
    const size_t bytes = argc > 2 ? strtoull(argv[2], NULL, 10) : HUGE;
    for (int i = 0; i < SETUP; i++) {
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(sum == check_size, "setup allreduce %d: %d", i, sum);
    }
    unsigned char *buf = malloc(bytes);
    if (!CHECK(buf != NULL, "no memory for %zu bytes", bytes)) return check_finish("huge_first");
    for (int c = 0; c < calls; c++) {
        const unsigned char mark = (unsigned char)(c * 7 + 1);
        memset(buf, check_rank == root ? mark : 0, bytes);
        MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD);
        for (size_t i = 0; i < bytes; i += 4093)
            if (!CHECK(buf[i] == mark, "call %d byte %zu: %u, not %u", c, i, buf[i], mark)) break;
        if (!CHECK(buf[bytes - 1] == mark, "call %d: last byte %u", c, buf[bytes - 1])) break;
    }
    free(buf);
    return check_finish("huge_first");
}
