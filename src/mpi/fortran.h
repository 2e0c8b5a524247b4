/* What the Fortran bindings share (fortran_*.c).
 *
 * A Fortran program calls the MPI library's Fortran layer, not the C entry points shmcoll
 * interposes. Open MPI's Fortran layer calls PMPI_* directly, so without bindings of its own
 * shmcoll would never see a Fortran program's collectives (nor its MPI_FINALIZE, where the
 * statistics are reported); MPICH's calls the C entry points MPI_X, except its mpi_f08
 * MPI_Barrier and MPI_Finalize, which call PMPI_*. So libshmcoll defines the Fortran entry points
 * of the collectives and of MPI_FINALIZE, converts their arguments and calls the C entry points
 * MPI_X: shmcoll's own wrappers, or the MPI library's for a collective shmcoll does not wrap. A
 * Fortran call then takes exactly the path of the same C call, under both MPI libraries.
 *
 * The Fortran ABI of mpif.h and `use mpi`: every argument by reference, handles as INTEGERs
 * (MPI_Fint, converted with PMPI_*_f2c as the MPI libraries' own Fortran layers do: a conversion is
 * not an operation a tool should see), the error code in the last argument. MPI_IN_PLACE and
 * MPI_BOTTOM are Fortran variables of the MPI library, recognised by their address
 * (fortran_sentinel.c). */
#ifndef SHMCOLL_MPI_FORTRAN_H
#define SHMCOLL_MPI_FORTRAN_H

#include "mpi/call.h"

#include "shmcoll.h"

#include <mpi.h>

/* Count and displacement arrays are passed on to C unconverted. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "a Fortran INTEGER is a C int");

/* Exports one Fortran entry point under the external names Fortran programs link against.
 *
 * mpif.h and `use mpi` name a procedure mpi_x in each compiler's own spelling: mpi_x_ (gfortran,
 * ifort, flang), mpi_x__ (g77's -fsecond-underscore), mpi_x (xlf, -fno-underscoring) and MPI_X
 * (upper case, e.g. Cray); the MPI libraries export all four, and so does libshmcoll.
 *
 * Open MPI's mpi_f08 procedures (mpi_x_f08_, compiled by gfortran) take the very same arguments:
 * choice buffers are assumed-size TYPE(*) (plain addresses), a TYPE(MPI_Comm) or TYPE(MPI_Datatype)
 * is a struct of one INTEGER passed by reference, and the error code goes to the last argument,
 * which is OPTIONAL there (NULL when absent, so every body checks it). So the same body serves
 * them. MPICH's mpi_f08 procedures with choice buffers (mpi_x_f08ts_) take gfortran's own array
 * descriptors and call the C entry points MPI_X themselves, so they reach shmcoll unchanged and
 * are left alone.
 *
 * `body` is the static function that implements the procedure; the names are aliases of that one
 * body, so it is written once. This macro renames nothing inside shmcoll: it only emits the symbol
 * names a Fortran program links against. Only MPI_X spellings are defined, never PMPI_X ones,
 * which stay the MPI library's. */
#define SHMCOLL_MPI_FORTRAN_NAMES(body, lower, upper)                                              \
    SHMCOLL_API extern __typeof__(body) lower __attribute__((alias(#body)));                       \
    SHMCOLL_API extern __typeof__(body) lower##_ __attribute__((alias(#body)));                    \
    SHMCOLL_API extern __typeof__(body) lower##__ __attribute__((alias(#body)));                   \
    SHMCOLL_API extern __typeof__(body) upper __attribute__((alias(#body)))
#if defined(OPEN_MPI)
#define SHMCOLL_MPI_FORTRAN_EXPORT(body, lower, upper)                                             \
    SHMCOLL_MPI_FORTRAN_NAMES(body, lower, upper);                                                 \
    SHMCOLL_API extern __typeof__(body) lower##_f08_ __attribute__((alias(#body)))
#else
#define SHMCOLL_MPI_FORTRAN_EXPORT(body, lower, upper) SHMCOLL_MPI_FORTRAN_NAMES(body, lower, upper)
#endif

/* The Fortran procedure `body` with the parameters `params` (in parentheses) and the error code,
 * exported as above: it makes the C call `call` and stores its MPI code in the error code when
 * that is present. */
#define SHMCOLL_MPI_FORTRAN_PROCEDURE(body, lower, upper, params, call)                            \
    static void body(SHMCOLL_MPI_UNPAREN params, MPI_Fint *ierror) {                               \
        const int rc = call;                                                                       \
        if (ierror) *ierror = rc;                                                                  \
    }                                                                                              \
    SHMCOLL_MPI_FORTRAN_EXPORT(body, lower, upper)

/* The C spelling of a Fortran choice buffer: MPI_IN_PLACE and MPI_BOTTOM of the Fortran layer
 * become the C constants, any other address is returned as it is. */
void *shmcoll_mpi_fortran_buffer_f2c(void *buffer);

#endif
