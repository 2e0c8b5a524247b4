/* A small MPI program built against an installed shmcoll by tests/install/test_install.sh: plain
 * (run with the library preloaded), or linked through pkg-config or CMake's find_package (built
 * with -DSHMCOLL_LINKED, so it calls the library's API directly). It checks a few allreduces and a
 * bcast, and that the loaded shmcoll is the installed headers' version; rank 0 prints PASS. */
#include <mpi.h>

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "shmcoll.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int ok = 1;
    for (long k = 0; k < 10; k++) {
        long in = (rank + 1) * (k + 1), sum = 0;
        MPI_Allreduce(&in, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        ok &= sum == (long)size * (size + 1) / 2 * (k + 1);
    }
    double v[1000];
    for (int i = 0; i < 1000; i++) v[i] = rank == 0 ? i * 0.5 : -1;
    MPI_Bcast(v, 1000, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < 1000; i++) ok &= v[i] == i * 0.5;
#ifdef SHMCOLL_LINKED
    const char *version = shmcoll_version();
#else
    const char *(*version_fn)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "shmcoll_version");
    const char *version = version_fn ? version_fn() : NULL;
#endif
    ok &= version && strcmp(version, SHMCOLL_VERSION_STRING) == 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s install_check: p=%d, shmcoll %s, headers %s\n", ok ? "PASS" : "FAIL", size,
               version ? version : "not loaded", SHMCOLL_VERSION_STRING);
    MPI_Finalize();
    return ok ? 0 : 1;
}
