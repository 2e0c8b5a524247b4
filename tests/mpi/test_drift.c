/* The selector's watch on a large band (src/mpi/calibrate.c, watch): once a band of 1 MiB or
 * more has its verdict, one call in each block's worth taking it (or up to 8 times fewer where the
 * watch's agreement is dear) is timed against the verdict's measured time, and two such calls in
 * a row more than 1.5 times slower send the band to be measured again at once, on every rank at
 * the same call, also while a measurement spreads its trials.
 *
 * The calls change under the band without changing its size: a 1 MiB bcast of contiguous bytes
 * gets its verdict, then the same bytes go as a vector type with a stride of 64 bytes, each byte
 * an element on a cache line of its own, spread over 64 MiB; packing a million elements costs
 * many times the contiguous copy on any way (shmcoll's and the MPI library's alike), also
 * oversubscribed and under sanitizers, so the verdict's watched calls are slower by far more than
 * 1.5 times and the band is measured again (run with
 * SHMCOLL_VERBOSE=1, the runner looks for the line that says so). Every result is checked, and
 * every rank must have taken the same way on every call: shmcoll's DAV grows on every reader of a
 * call it served (and on the root too, but for single copy, where the readers copy from the
 * root's buffer), on none of one the MPI library served. */
#include "mpi_check.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT  (1 << 20) /* bytes: 1 MiB */
#define STRIDE 64        /* bytes between the vector's elements: one per cache line */
#define CALLS                                                                                      \
    128 /* of each phase: the measurement (about 20), then watched calls: one in                   \
         * 4, or up to 8 times fewer where the agreement costs (oversubscribed) */

typedef int (*dav_fn)(MPI_Comm, unsigned long long *);

static unsigned long long dav_now(dav_fn dav) {
    unsigned long long bytes = 0;
    if (dav) dav(MPI_COMM_WORLD, &bytes);
    return bytes;
}

/* The byte `call` puts at element i. */
static unsigned char value(long i, int call) {
    return (unsigned char)(i * 7 + call);
}

/* One bcast from the last rank of COUNT bytes `stride` apart (the type describes them), its
 * result checked; returns whether shmcoll served it. */
static int bcast(unsigned char *buf, int stride, MPI_Datatype type, int call, dav_fn dav) {
    const int root = check_size - 1;
    for (long i = 0; i < COUNT; i++)
        buf[i * stride] = check_rank == root ? value(i, call) : (unsigned char)~value(i, call);
    const unsigned long long before = dav_now(dav);
    MPI_Bcast(buf, stride == 1 ? COUNT : 1, type, root, MPI_COMM_WORLD);
    const int ours = dav_now(dav) > before;
    for (long i = 0; i < COUNT; i++)
        if (!CHECK(buf[i * stride] == value(i, call), "stride %d call %d [%ld]: %d", stride, call,
                   i, buf[i * stride]))
            break;
    return ours;
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    dav_fn dav = (dav_fn)dlsym(RTLD_DEFAULT, "shmcoll_stats_dav");
    CHECK(dav != NULL, "shmcoll_stats_dav is not exported");
    unsigned char *buf = malloc((size_t)COUNT * STRIDE);
    char ours[2 * CALLS], all[2 * CALLS];
    MPI_Datatype vector;
    MPI_Type_vector(COUNT, 1, STRIDE, MPI_BYTE, &vector);
    MPI_Type_commit(&vector);
    if (!CHECK(buf != NULL, "no memory")) return check_finish("test_drift");
    for (int call = 0; call < CALLS; call++) ours[call] = (char)bcast(buf, 1, MPI_BYTE, call, dav);
    for (int call = 0; call < CALLS; call++)
        ours[CALLS + call] = (char)bcast(buf, STRIDE, vector, call, dav);
    /* Every rank against every reader (rank 0 is one), the root only where it moved bytes. */
    const int root = check_size - 1;
    for (int r = 0; r < check_size; r++) {
        memcpy(all, ours, sizeof all);
        MPI_Bcast(all, 2 * CALLS, MPI_CHAR, r, MPI_COMM_WORLD);
        for (int c = 0; c < 2 * CALLS; c++) {
            const int same = r == root            ? !all[c] || ours[c]
                             : check_rank == root ? !ours[c] || all[c]
                                                  : all[c] == ours[c];
            if (!CHECK(same, "call %d: rank %d took another way than %d", c, r, check_rank)) break;
        }
    }
    MPI_Type_free(&vector);
    free(buf);
    return check_finish("test_drift");
}
