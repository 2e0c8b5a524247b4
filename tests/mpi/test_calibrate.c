/* Calibration (src/mpi/calibrate.h): the first calls of each size band take turns between
 * shmcoll's way and the MPI library's, in blocks of 4; after the timed blocks one way serves every
 * later call of the band, the same on every rank.
 *
 * Run with SHMCOLL_CALIBRATE=4: calls 0-3 of a band are shmcoll's, 4-7 the MPI library's (the
 * warm-ups), 8-11 shmcoll's, 12-15 the MPI library's (timed), then the verdict's. Which way a call
 * took shows in this rank's DAV (shmcoll_stats_dav): shmcoll's way moves bytes through shared
 * memory on every rank of the shapes run here, the MPI library's none. Two bands of allreduce and
 * one of bcast are called interleaved, so each band must keep its own count; every rank must have
 * taken the same way on every call, and every result is checked. */
#include "mpi_check.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

#define CALLS   40 /* per band */
#define BLOCK   4
#define VERDICT 16   /* calls before the verdict at SHMCOLL_CALIBRATE=4 */
#define SMALL   8    /* doubles */
#define LARGE   2048 /* doubles: another band */
#define BANDS   3

typedef int (*dav_fn)(MPI_Comm, unsigned long long *);

static unsigned long long dav_now(dav_fn dav) {
    unsigned long long bytes = 0;
    dav(MPI_COMM_WORLD, &bytes);
    return bytes;
}

/* One call of band b (0, 1: allreduce of SMALL, LARGE doubles; 2: bcast of SMALL doubles from
 * the last rank), its result checked. */
static void call_band(int b, int call, double *in, double *out) {
    const int p = check_size, n = b == 1 ? LARGE : SMALL;
    for (int i = 0; i < n; i++) in[i] = (double)(check_rank + 1) * (i + call);
    if (b < 2) {
        MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            if (!CHECK(out[i] == (double)p * (p + 1) / 2 * (i + call), "band %d call %d [%d]", b,
                       call, i))
                break;
        return;
    }
    MPI_Bcast(in, n, MPI_DOUBLE, p - 1, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
        if (!CHECK(in[i] == (double)p * (i + call), "bcast call %d [%d]", call, i)) break;
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    dav_fn dav = (dav_fn)dlsym(RTLD_DEFAULT, "shmcoll_stats_dav");
    CHECK(dav != NULL, "shmcoll_stats_dav is not exported");
    static double in[LARGE], out[LARGE];
    uint64_t ours[BANDS] = {0}; /* bit c: call c of the band took shmcoll's way */
    for (int call = 0; dav && call < CALLS; call++)
        for (int b = 0; b < BANDS; b++) {
            const unsigned long long before = dav_now(dav);
            call_band(b, call, in, out);
            if (dav_now(dav) > before) ours[b] |= (uint64_t)1 << call;
        }

    uint64_t all[BANDS * 64];
    MPI_Allgather(ours, BANDS, MPI_UINT64_T, all, BANDS, MPI_UINT64_T, MPI_COMM_WORLD);
    for (int r = 0; r < check_size; r++)
        for (int b = 0; b < BANDS; b++)
            CHECK(all[r * BANDS + b] == ours[b],
                  "band %d: rank %d took other ways (%#llx) than %d (%#llx)", b, r,
                  (unsigned long long)all[r * BANDS + b], check_rank, (unsigned long long)ours[b]);
    for (int b = 0; b < BANDS; b++) {
        for (int call = 0; call < VERDICT; call++)
            CHECK(((ours[b] >> call) & 1) == !((call / BLOCK) & 1),
                  "band %d call %d: took %s's way in a turn of the other (%#llx)", b, call,
                  (ours[b] >> call) & 1 ? "shmcoll" : "the MPI library",
                  (unsigned long long)ours[b]);
        const uint64_t settled = ours[b] >> VERDICT, width = CALLS - VERDICT;
        CHECK(settled == 0 || settled == ((uint64_t)1 << width) - 1,
              "band %d: calls after the verdict took both ways (%#llx)", b,
              (unsigned long long)ours[b]);
        if (check_rank == 0)
            printf("band %d: %s's way after calibration\n", b,
                   settled ? "shmcoll" : "the MPI library");
    }
    return check_finish("test_calibrate");
}
