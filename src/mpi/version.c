/* The public version query, and the build's identity that the job's ranks compare (agree.h).
 *
 * Two ranks of one job may load different builds of libshmcoll: an MPMD launch with a debug build
 * for one part, nodes with installs of different releases. Their shared-memory layouts and their
 * choices of path need not match, so such a job must go to the MPI library as a whole. A release
 * number alone does not tell builds apart (between releases the sources change under the same
 * number), so the identity is the release and a digest of every source file (generated at build
 * time, cmake/source_digest.cmake): builds of the same sources agree wherever and however they
 * were built, builds of different sources do not. SHMCOLL_BUILD_TAG, where defined, is appended:
 * a build made only to be different (the tests' other build). */
#include "mpi/version.h"

#include "shmcoll.h"
#include "shmcoll_source_digest.h"

#ifdef SHMCOLL_BUILD_TAG
#define TAG ", " SHMCOLL_BUILD_TAG
#else
#define TAG ""
#endif

SHMCOLL_API const char *shmcoll_version(void) {
    return SHMCOLL_VERSION_STRING;
}

const char *shmcoll_mpi_build_identity(void) {
    return SHMCOLL_VERSION_STRING " (sources " SHMCOLL_SOURCE_DIGEST TAG ")";
}
