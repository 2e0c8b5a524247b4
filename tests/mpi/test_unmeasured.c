/* The way of non-blocking and persistent calls whose size band has no measured verdict
 * (src/mpi/calibrate.c, unmeasured_row): the communicator here makes no blocking bcast, so its
 * bcasts have nothing to follow. One from SHMCOLL_CMA_MIN (32 KiB) goes single copy: the root
 * exposes its buffer and the others read it, so the root's own data-access volume does not grow.
 * A smaller one takes the node team's choice, which copies the root's message into shared memory:
 * the root's volume grows by at least the message. With --tuned (a tuning rule in force, given in
 * SHMCOLL_TUNE for another collective by the test's command) the rules choose at every size, and
 * the large bcast is copied in too. MPI_Ibcast on a communicator of its own, set up by a few
 * blocking barriers; then persistent MPI_Bcast_init requests of both sizes, whose ways the test's
 * command reads from the statistics (a request runs on a duplicate of the communicator, whose
 * volume this program does not see); every result checked. */
#include "mpi_check.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Open MPI 4 has the persistent collectives as an extension, named MPIX_*_init. */
#if MPI_VERSION < 4 && defined(OPEN_MPI)
#include <mpi-ext.h>
#define MPI_Bcast_init MPIX_Bcast_init
#endif

#define SMALL ((size_t)16 << 10) /* below SHMCOLL_CMA_MIN */
#define LARGE ((size_t)1 << 20)
#define SETUP 8 /* blocking barriers: more than the uses before a communicator's setup */

typedef int (*dav_fn)(MPI_Comm, unsigned long long *);

static unsigned long long dav_now(dav_fn dav, MPI_Comm comm) {
    unsigned long long bytes = 0;
    dav(comm, &bytes);
    return bytes;
}

/* One bcast of `bytes` from rank 0 in `form` (0 non-blocking, 1 persistent); returns the
 * root's growth of its data-access volume (0 elsewhere), the result checked on every rank. */
static unsigned long long bcast_once(dav_fn dav, MPI_Comm comm, size_t bytes, int form, int round) {
    unsigned char *buf = malloc(bytes);
    for (size_t i = 0; i < bytes; i++)
        buf[i] = check_rank == 0 ? (unsigned char)(i * 7 + (size_t)round) : 0;
    const unsigned long long before = dav_now(dav, comm);
    MPI_Request request;
    if (form == 0) {
        MPI_Ibcast(buf, (int)bytes, MPI_BYTE, 0, comm, &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
    } else {
        MPI_Bcast_init(buf, (int)bytes, MPI_BYTE, 0, comm, MPI_INFO_NULL, &request);
        MPI_Start(&request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        MPI_Request_free(&request);
    }
    const unsigned long long grown = dav_now(dav, comm) - before;
    for (size_t i = 0; i < bytes; i++)
        if (!CHECK(buf[i] == (unsigned char)(i * 7 + (size_t)round),
                   "form %d, %zu bytes: byte %zu is %u", form, bytes, i, buf[i]))
            break;
    free(buf);
    return check_rank == 0 ? grown : 0;
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    const int tuned = argc > 1 && !strcmp(argv[1], "--tuned");
    dav_fn dav = (dav_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "shmcoll_stats_dav");
    if (!CHECK(dav != NULL, "shmcoll_stats_dav not found: is libshmcoll loaded?"))
        return check_finish("test_unmeasured");
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    for (int i = 0; i < SETUP; i++) MPI_Barrier(comm);
    for (int form = 0; form < 2; form++) {
        for (int round = 0; round < 3; round++) {
            const unsigned long long small = bcast_once(dav, comm, SMALL, form, round);
            const unsigned long long large = bcast_once(dav, comm, LARGE, form, round);
            if (check_rank != 0 || form == 1) continue;
            CHECK(small >= SMALL,
                  "form %d: the root of a %zu-byte bcast moved %llu bytes, not "
                  "its message: not served by shared memory",
                  form, SMALL, small);
            if (tuned)
                CHECK(large >= LARGE,
                      "form %d, tuned: the root of a %zu-byte bcast moved %llu "
                      "bytes: the tuning's choice copies the message in",
                      form, LARGE, large);
            else
                CHECK(large == 0,
                      "form %d: the root of a %zu-byte bcast without a verdict moved "
                      "%llu bytes: not single copy",
                      form, LARGE, large);
        }
    }
    MPI_Comm_free(&comm);
    return check_finish("test_unmeasured");
}
