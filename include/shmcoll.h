/* The public API of libshmcoll.
 *
 * shmcoll is used through MPI: a program linked with -lshmcoll before the MPI library (or run with
 * LD_PRELOAD=libshmcoll.so) has its MPI_Barrier, MPI_Bcast, MPI_Reduce and MPI_Allreduce served
 * over shared memory when the communicator lives on one node, and by the MPI library otherwise.
 * This header only adds what a program may want to ask the library itself; it needs no MPI. */
#ifndef SHMCOLL_H
#define SHMCOLL_H

#ifdef __cplusplus
extern "C" {
#endif

/* Symbols of the public API are exported from the shared library; everything else is hidden. */
#define SHMCOLL_API __attribute__((visibility("default")))

/* Keep equal to project(VERSION) in the top CMakeLists.txt (a test checks it). */
#define SHMCOLL_VERSION_STRING "0.1.0"

/* The version of the loaded library, e.g. "0.1.0". A program that may or may not run with
 * libshmcoll preloaded can look this symbol up with dlsym(RTLD_DEFAULT, "shmcoll_version"). */
SHMCOLL_API const char *shmcoll_version(void);

#ifdef __cplusplus
}
#endif

#endif
