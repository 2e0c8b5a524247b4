/* MPICH's mpi_f08 request calls: MPI_Wait, MPI_Test and their -all, -any and -some forms, and
 * MPI_Request_get_status.
 *
 * A request of a non-blocking or persistent collective served by shmcoll completes only in
 * shmcoll's wrappers of the request calls (request.h). MPICH's mpif.h and `use mpi` bindings
 * call the C entry points MPI_X, and so do its mpi_f08 bindings of the collectives, but its
 * mpi_f08 bindings of these calls call PMPI_X directly: a Fortran program would get a shmcoll
 * request from MPI_Iallreduce and see it complete at once in MPI_Wait. So libshmcoll defines
 * these procedures (mpi_x_f08_, as gfortran names them), converts their arguments and calls the
 * C entry points. Open MPI needs none of this: its Fortran bindings call PMPI_* for the
 * collectives too, so a Fortran program never holds a shmcoll request there.
 *
 * The arguments: TYPE(MPI_Request) is one INTEGER, TYPE(MPI_Status) is MPI_F08_status (MPICH's
 * MPI_Status field for field; MPICH 4.0 does not export MPI_Status_c2f08), MPI_STATUS(ES)_IGNORE
 * are MPI_F08_STATUS(ES)_IGNORE, a LOGICAL flag is an int (0 or 1), indices count from 1, and the
 * OPTIONAL error code is NULL when absent. */
#include "mpi/fortran.h"

#include <mpi.h>
#include <stdlib.h>

#if !defined(OPEN_MPI) && MPI_VERSION >= 4

static MPI_Status *status_c(MPI_F08_status *f, MPI_Status *c) {
    return f == MPI_F08_STATUS_IGNORE ? MPI_STATUS_IGNORE : c;
}

_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "MPICH's two statuses");

static void status_to_f08(const MPI_Status *c, MPI_F08_status *f) {
    f->count_lo = c->count_lo;
    f->count_hi_and_cancelled = c->count_hi_and_cancelled;
    f->MPI_SOURCE = c->MPI_SOURCE;
    f->MPI_TAG = c->MPI_TAG;
    f->MPI_ERROR = c->MPI_ERROR;
}

static void status_back(const MPI_Status *c, MPI_F08_status *f) {
    if (f != MPI_F08_STATUS_IGNORE) status_to_f08(c, f);
}

static void done(int rc, MPI_Fint *ierror) {
    if (ierror) *ierror = rc;
}

/* An array of n requests (and statuses unless ignored) in C, for the -all/-any/-some forms. */
typedef struct c_array {
    MPI_Request *requests;
    MPI_Status *statuses; /* MPI_STATUSES_IGNORE when ignored */
} c_array_t;

static int c_array_init(c_array_t *a, int n, const MPI_Fint *requests, MPI_F08_status *statuses) {
    const size_t count = n > 0 ? (size_t)n : 1;
    a->requests = malloc(count * sizeof *a->requests);
    a->statuses = statuses == MPI_F08_STATUSES_IGNORE ? MPI_STATUSES_IGNORE
                                                      : malloc(count * sizeof(MPI_Status));
    if (!a->requests || !a->statuses) {
        free(a->requests);
        if (a->statuses != MPI_STATUSES_IGNORE) free(a->statuses);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < n; i++) a->requests[i] = PMPI_Request_f2c(requests[i]);
    return MPI_SUCCESS;
}

/* Requests back to Fortran, and the first `nstatus` statuses. */
static void c_array_fini(c_array_t *a, int n, MPI_Fint *requests, MPI_F08_status *statuses,
                         int nstatus) {
    for (int i = 0; i < n; i++) requests[i] = PMPI_Request_c2f(a->requests[i]);
    if (a->statuses != MPI_STATUSES_IGNORE) {
        for (int i = 0; i < nstatus; i++) status_to_f08(&a->statuses[i], &statuses[i]);
        free(a->statuses);
    }
    free(a->requests);
}

static void wait_f08(MPI_Fint *request, MPI_F08_status *status, MPI_Fint *ierror) {
    MPI_Request r = PMPI_Request_f2c(*request);
    MPI_Status s;
    const int rc = MPI_Wait(&r, status_c(status, &s));
    *request = PMPI_Request_c2f(r);
    status_back(&s, status);
    done(rc, ierror);
}
SHMCOLL_API extern __typeof__(wait_f08) mpi_wait_f08_ __attribute__((alias("wait_f08")));

static void test_f08(MPI_Fint *request, MPI_Fint *flag, MPI_F08_status *status, MPI_Fint *ierror) {
    MPI_Request r = PMPI_Request_f2c(*request);
    MPI_Status s;
    int f = 0;
    const int rc = MPI_Test(&r, &f, status_c(status, &s));
    *request = PMPI_Request_c2f(r);
    *flag = f != 0;
    if (f) status_back(&s, status);
    done(rc, ierror);
}
SHMCOLL_API extern __typeof__(test_f08) mpi_test_f08_ __attribute__((alias("test_f08")));

static void request_get_status_f08(const MPI_Fint *request, MPI_Fint *flag, MPI_F08_status *status,
                                   MPI_Fint *ierror) {
    MPI_Status s;
    int f = 0;
    const int rc = MPI_Request_get_status(PMPI_Request_f2c(*request), &f, status_c(status, &s));
    *flag = f != 0;
    if (f) status_back(&s, status);
    done(rc, ierror);
}
SHMCOLL_API extern __typeof__(request_get_status_f08) mpi_request_get_status_f08_
    __attribute__((alias("request_get_status_f08")));

/* Waitall (flag NULL) and Testall. */
static void all(const MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag, MPI_F08_status *statuses,
                MPI_Fint *ierror) {
    c_array_t a;
    int rc = c_array_init(&a, *count, requests, statuses), f = 1;
    if (rc != MPI_SUCCESS) {
        done(rc, ierror);
        return;
    }
    rc = flag ? MPI_Testall(*count, a.requests, &f, a.statuses)
              : MPI_Waitall(*count, a.requests, a.statuses);
    if (flag) *flag = f != 0;
    c_array_fini(&a, *count, requests, statuses, f ? *count : 0);
    done(rc, ierror);
}

static void waitall_f08(const MPI_Fint *count, MPI_Fint *requests, MPI_F08_status *statuses,
                        MPI_Fint *ierror) {
    all(count, requests, NULL, statuses, ierror);
}
SHMCOLL_API extern __typeof__(waitall_f08) mpi_waitall_f08_ __attribute__((alias("waitall_f08")));

static void testall_f08(const MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag,
                        MPI_F08_status *statuses, MPI_Fint *ierror) {
    all(count, requests, flag, statuses, ierror);
}
SHMCOLL_API extern __typeof__(testall_f08) mpi_testall_f08_ __attribute__((alias("testall_f08")));

/* Waitany (flag NULL) and Testany. */
static void any(const MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag,
                MPI_F08_status *status, MPI_Fint *ierror) {
    c_array_t a;
    int rc = c_array_init(&a, *count, requests, MPI_F08_STATUSES_IGNORE), f = 1, at = 0;
    if (rc != MPI_SUCCESS) {
        done(rc, ierror);
        return;
    }
    MPI_Status s;
    rc = flag ? MPI_Testany(*count, a.requests, &at, &f, status_c(status, &s))
              : MPI_Waitany(*count, a.requests, &at, status_c(status, &s));
    if (flag) *flag = f != 0;
    *index = at == MPI_UNDEFINED ? MPI_UNDEFINED : at + 1;
    if (f) status_back(&s, status);
    c_array_fini(&a, *count, requests, MPI_F08_STATUSES_IGNORE, 0);
    done(rc, ierror);
}

static void waitany_f08(const MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index,
                        MPI_F08_status *status, MPI_Fint *ierror) {
    any(count, requests, index, NULL, status, ierror);
}
SHMCOLL_API extern __typeof__(waitany_f08) mpi_waitany_f08_ __attribute__((alias("waitany_f08")));

static void testany_f08(const MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag,
                        MPI_F08_status *status, MPI_Fint *ierror) {
    any(count, requests, index, flag, status, ierror);
}
SHMCOLL_API extern __typeof__(testany_f08) mpi_testany_f08_ __attribute__((alias("testany_f08")));

/* Waitsome and Testsome. */
static void some(const MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
                 MPI_F08_status *statuses, MPI_Fint *ierror, int wait) {
    c_array_t a;
    int rc = c_array_init(&a, *incount, requests, statuses), out = 0;
    if (rc != MPI_SUCCESS) {
        done(rc, ierror);
        return;
    }
    rc = wait ? MPI_Waitsome(*incount, a.requests, &out, indices, a.statuses)
              : MPI_Testsome(*incount, a.requests, &out, indices, a.statuses);
    *outcount = out;
    const int n = out == MPI_UNDEFINED ? 0 : out;
    for (int i = 0; i < n; i++) indices[i] += 1;
    c_array_fini(&a, *incount, requests, statuses, n);
    done(rc, ierror);
}

static void waitsome_f08(const MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                         MPI_Fint *indices, MPI_F08_status *statuses, MPI_Fint *ierror) {
    some(incount, requests, outcount, indices, statuses, ierror, 1);
}
SHMCOLL_API extern __typeof__(waitsome_f08) mpi_waitsome_f08_
    __attribute__((alias("waitsome_f08")));

static void testsome_f08(const MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                         MPI_Fint *indices, MPI_F08_status *statuses, MPI_Fint *ierror) {
    some(incount, requests, outcount, indices, statuses, ierror, 0);
}
SHMCOLL_API extern __typeof__(testsome_f08) mpi_testsome_f08_
    __attribute__((alias("testsome_f08")));

#endif
