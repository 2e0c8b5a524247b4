/* Fortran bindings of MPI_INIT and MPI_INIT_THREAD.
 *
 * The job's ranks compare their settings once MPI is initialised (agree.h): a rank that skipped
 * the comparison would leave the others waiting in it. Open MPI's Fortran MPI_INIT, and the
 * mpi_f08 ones, call PMPI_Init directly, bypassing shmcoll's MPI_Init; so each spelling is served
 * here by the MPI library's own procedure of the same name (the next definition in the link
 * order: its Fortran setup stays the library's), followed by what shmcoll's MPI_Init adds
 * (init.c: once, so a Fortran MPI_INIT that calls the C MPI_Init, as MPICH's does, compares once).
 * The error code is the last argument, absent (NULL) where mpi_f08 leaves it out. */
#include "mpi/fortran.h"
#include "mpi/init.h"

#include "base/log.h"

#include <dlfcn.h>
#include <mpi.h>

typedef void (*fortran_init_t)(MPI_Fint *ierror);
typedef void (*fortran_init_thread_t)(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror);

/* The MPI library's procedure `name` below this one (`self`), or NULL (reported). */
static void *library_procedure(const char *name, void *self) {
    void *next = dlsym(RTLD_NEXT, name);
    if (!next || next == self) {
        shmcoll_log_error("%s: the MPI library's Fortran binding was not found", name);
        return NULL;
    }
    return next;
}

static void init_ended(MPI_Fint *ierror) {
    if (!ierror || *ierror == MPI_SUCCESS) shmcoll_mpi_init_done();
}

/* MPI_INIT and MPI_INIT_THREAD under the external name `name`. */
#define FORTRAN_INIT(name)                                                                         \
    SHMCOLL_API void name(MPI_Fint *ierror) {                                                      \
        fortran_init_t next = (fortran_init_t)library_procedure(#name, (void *)name);              \
        if (!next) {                                                                               \
            if (ierror) *ierror = MPI_ERR_OTHER;                                                   \
            return;                                                                                \
        }                                                                                          \
        next(ierror);                                                                              \
        init_ended(ierror);                                                                        \
    }
#define FORTRAN_INIT_THREAD(name)                                                                  \
    SHMCOLL_API void name(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror) {              \
        fortran_init_thread_t next =                                                               \
            (fortran_init_thread_t)library_procedure(#name, (void *)name);                         \
        if (!next) {                                                                               \
            if (ierror) *ierror = MPI_ERR_OTHER;                                                   \
            return;                                                                                \
        }                                                                                          \
        next(required, provided, ierror);                                                          \
        init_ended(ierror);                                                                        \
    }

/* The spellings of fortran.h: gfortran's, g77's, unadorned, upper case, and mpi_f08's. */
FORTRAN_INIT(mpi_init_)
FORTRAN_INIT(mpi_init__)
FORTRAN_INIT(mpi_init)
FORTRAN_INIT(MPI_INIT)
FORTRAN_INIT(mpi_init_f08_)
FORTRAN_INIT_THREAD(mpi_init_thread_)
FORTRAN_INIT_THREAD(mpi_init_thread__)
FORTRAN_INIT_THREAD(mpi_init_thread)
FORTRAN_INIT_THREAD(MPI_INIT_THREAD)
FORTRAN_INIT_THREAD(mpi_init_thread_f08_)
