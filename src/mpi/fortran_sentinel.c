/* MPI_IN_PLACE and MPI_BOTTOM of the Fortran layer.
 *
 * In Fortran these sentinels are variables of the MPI library, and a binding recognises them by
 * their address; where they live is each MPI's own business:
 *
 * - Open MPI: mpif.h, `use mpi` and `use mpi_f08` all name the variables mpi_fortran_in_place_
 *   and mpi_fortran_bottom_ (common blocks /mpi_fortran_in_place/ and /mpi_fortran_bottom/, or
 *   BIND(C) variables of those names), defined by libmpi, which libshmcoll links: they are
 *   referenced directly (declared in Open MPI's mpif-c-constants-decl.h).
 * - MPICH: mpif.h and `use mpi` declare COMMON /MPIPRIV1/ MPI_BOTTOM, MPI_IN_PLACE, ... (two
 *   INTEGERs first, in that order; MPICH's own mpirinitf hands exactly these two addresses to its
 *   C side). The block, mpipriv1_, is defined in libmpichfort, which a C program does not load, so
 *   libshmcoll cannot link it: it is looked up with dlsym(RTLD_DEFAULT) at the first call of a
 *   Fortran binding, when the Fortran layer is loaded because a Fortran program is running. If it
 *   is not there (a C program calling a Fortran entry point), no address is a sentinel. */
#include "mpi/fortran.h"

#include <mpi.h>

#if defined(OPEN_MPI)

#include <mpif-c-constants-decl.h>

void *shmcoll_mpi_fortran_buffer_f2c(void *buffer) {
    if (buffer == (void *)&mpi_fortran_in_place_) return MPI_IN_PLACE;
    if (buffer == (void *)&mpi_fortran_bottom_) return MPI_BOTTOM;
    return buffer;
}

#elif defined(MPICH)

#include <dlfcn.h>
#include <pthread.h>

/* The leading members of COMMON /MPIPRIV1/ (see MPICH's mpif.h). */
typedef struct mpich_priv1 {
    MPI_Fint bottom, in_place;
} mpich_priv1_t;

static pthread_once_t lookup_once = PTHREAD_ONCE_INIT;
static const void *fortran_in_place, *fortran_bottom; /* NULL: no Fortran layer loaded */

static void lookup(void) {
    const mpich_priv1_t *priv1 = dlsym(RTLD_DEFAULT, "mpipriv1_");
    if (!priv1) return;
    fortran_bottom = &priv1->bottom;
    fortran_in_place = &priv1->in_place;
}

void *shmcoll_mpi_fortran_buffer_f2c(void *buffer) {
    pthread_once(&lookup_once, lookup);
    if (!fortran_in_place) return buffer;
    if (buffer == fortran_in_place) return MPI_IN_PLACE;
    if (buffer == fortran_bottom) return MPI_BOTTOM;
    return buffer;
}

#else
#error "the Fortran sentinels of this MPI library are not known"
#endif
