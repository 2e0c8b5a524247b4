/* libshmcoll-profile: calls, bytes and time of an MPI program's collectives, by collective and
 * message-size band, printed by rank 0 of MPI_COMM_WORLD at MPI_Finalize.
 *
 * `make apps` measures real applications with and without shmcoll and needs to know which of
 * their collectives carry the time either way. This library is preloaded in front of whatever
 * serves MPI_* (LD_PRELOAD="libshmcoll-profile.so libshmcoll.so", or alone in front of the MPI
 * library): each wrapper times the call and forwards it to the next definition of the same symbol
 * (dlsym(RTLD_NEXT)), so it measures what the application gets, shmcoll's collectives or the MPI
 * library's.
 *
 * Wrapped: the blocking collectives and their non-blocking forms (MPI_Ibcast ...; the time of a
 * non-blocking one is that of the starting call alone, not of its completion), from C, and the
 * blocking ones and MPI_FINALIZE from Fortran (mpif.h and `use mpi` as gfortran names them:
 * mpi_allreduce_ ...). The Fortran entry points are needed because Open MPI's Fortran layer calls
 * PMPI_* directly: a Fortran program's collectives never pass the C MPI_* symbols there. MPICH's
 * Fortran layer does call MPI_*, and shmcoll's Fortran bindings call its C ones; a per-thread
 * depth counter makes a call that is already being timed pass every inner wrapper untimed, so
 * each call counts once whichever way it takes.
 *
 * What is counted: an operation's calls and bytes at rank 0 of its communicator (so an operation
 * counts once, as shmcoll's SHMCOLL_STATS counts them); its bytes are the whole message as that
 * rank sees it: a reduction's vector, a bcast's buffer, all blocks of a gather's, allgather's,
 * scatter's or alltoall's result (v-forms: the sum of the counts that rank has). Time is each
 * rank's own, reported as the mean over the ranks of MPI_COMM_WORLD and the largest of any rank.
 * The size band is that of the message as each rank sees it: 0, up to 16 B, then powers of 4.
 *
 * SHMCOLL_PROFILE_FILE=path: rank 0 appends the table to that file instead of standard error. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum coll {
    BARRIER,
    BCAST,
    REDUCE,
    ALLREDUCE,
    REDUCE_SCATTER_BLOCK,
    REDUCE_SCATTER,
    SCAN,
    EXSCAN,
    ALLGATHER,
    ALLGATHERV,
    GATHER,
    GATHERV,
    SCATTER,
    SCATTERV,
    ALLTOALL,
    ALLTOALLV,
    NCOLL
};
static const char *const names[NCOLL] = {
    "barrier",        "bcast",   "reduce",  "allreduce", "reduce_scatter_block",
    "reduce_scatter", "scan",    "exscan",  "allgather", "allgatherv",
    "gather",         "gatherv", "scatter", "scatterv",  "alltoall",
    "alltoallv"};

/* Size bands: 0 bytes, 1-16 B, then (4^(k-1), 4^k] up to 64 MiB, and larger. */
#define NBANDS 14
static const char *const bands[NBANDS] = {"0",    "<=16",  "<=64",  "<=256",  "<=1K",
                                          "<=4K", "<=16K", "<=64K", "<=256K", "<=1M",
                                          "<=4M", "<=16M", "<=64M", ">64M"};
/* The wrappers are this library's interface (the build hides other symbols by default). */
#define EXPORT __attribute__((visibility("default")))

static int band(uint64_t bytes) {
    if (bytes == 0) return 0;
    int b = 1;
    for (uint64_t top = 16; bytes > top && b < NBANDS - 1; top *= 4) b++;
    return b;
}

/* Per row (blocking or non-blocking collective, band): operations and their bytes counted at
 * rank 0 of the communicator, and this rank's nanoseconds in the calls. Counters are atomic:
 * several threads may call collectives at once. */
enum { CALLS, BYTES, NANOS, NFIELDS };
#define NROWS (2 * NCOLL * NBANDS)
static uint64_t table[NROWS][NFIELDS];
static uint64_t start_ns;
static int reported;
static __thread int depth; /* > 0 inside a timed call: inner wrappers forward untimed */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((constructor)) static void profile_start(void) {
    start_ns = now_ns();
}

static void *next_symbol(const char *name) {
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "shmcoll-profile: %s not found after this library\n", name);
        abort();
    }
    return f;
}

static void record(int coll, int nonblocking, MPI_Comm comm, uint64_t bytes, uint64_t ns) {
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    uint64_t *row = table[(nonblocking * NCOLL + coll) * NBANDS + band(bytes)];
    if (rank == 0) {
        __atomic_add_fetch(&row[CALLS], 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&row[BYTES], bytes, __ATOMIC_RELAXED);
    }
    __atomic_add_fetch(&row[NANOS], ns, __ATOMIC_RELAXED);
}

/* ---- bytes of a call as this rank sees it; only arguments significant on this rank are read */

static uint64_t type_bytes(MPI_Datatype type, int64_t count) {
    int size = 0;
    if (count <= 0) return 0;
    PMPI_Type_size(type, &size);
    return (uint64_t)count * (uint64_t)(size > 0 ? size : 0);
}
static int comm_size(MPI_Comm comm) {
    int p = 1;
    PMPI_Comm_size(comm, &p);
    return p;
}
static int is_root(MPI_Comm comm, int root) {
    int rank = -1;
    PMPI_Comm_rank(comm, &rank);
    return root == MPI_ROOT || root == rank;
}
static int64_t sum(const int *counts, int n) {
    int64_t s = 0;
    for (int i = 0; i < n; i++) s += counts[i];
    return s;
}
static uint64_t gather_bytes(MPI_Comm comm, int root, int scount, MPI_Datatype stype, int rcount,
                             MPI_Datatype rtype) {
    if (root == MPI_PROC_NULL) return 0;
    const int p = comm_size(comm);
    return is_root(comm, root) ? type_bytes(rtype, (int64_t)rcount * p)
                               : type_bytes(stype, (int64_t)scount * p);
}
static uint64_t gatherv_bytes(MPI_Comm comm, int root, int scount, MPI_Datatype stype,
                              const int *rcounts, MPI_Datatype rtype) {
    if (root == MPI_PROC_NULL) return 0;
    return is_root(comm, root) ? type_bytes(rtype, sum(rcounts, comm_size(comm)))
                               : type_bytes(stype, scount);
}

/* The expressions of each collective, shared by its C forms and its Fortran binding. */
#define BYTES_BARRIER    0
#define BYTES_BCAST      type_bytes(datatype, count)
#define BYTES_REDUCTION  type_bytes(datatype, count)
#define BYTES_RSB        type_bytes(datatype, (int64_t)recvcount *comm_size(comm))
#define BYTES_RS         type_bytes(datatype, sum(recvcounts, comm_size(comm)))
#define BYTES_ALLGATHER  type_bytes(recvtype, (int64_t)recvcount *comm_size(comm))
#define BYTES_ALLGATHERV type_bytes(recvtype, sum(recvcounts, comm_size(comm)))
#define BYTES_GATHER     gather_bytes(comm, root, sendcount, sendtype, recvcount, recvtype)
#define BYTES_GATHERV    gatherv_bytes(comm, root, sendcount, sendtype, recvcounts, recvtype)
#define BYTES_SCATTER    gather_bytes(comm, root, recvcount, recvtype, sendcount, sendtype)
#define BYTES_SCATTERV   gatherv_bytes(comm, root, recvcount, recvtype, sendcounts, sendtype)
#define BYTES_ALLTOALL   type_bytes(recvtype, (int64_t)recvcount *comm_size(comm))
#define BYTES_ALLTOALLV  type_bytes(recvtype, sum(recvcounts, comm_size(comm)))

/* ---- C entry points ------------------------------------------------------------------------ */

/* int name(params): forwards `args` to the next `name`, timed as collective `coll`, and counts
 * `bytes`, an expression of the parameters (evaluated before the call: an in-place buffer or a
 * count array may change in it). */
#define WRAP(coll, nonblocking, name, params, args, bytes)                                         \
    EXPORT int name params {                                                                       \
        static __typeof__(&name) next;                                                             \
        if (!next) next = (__typeof__(&name))next_symbol(#name);                                   \
        if (depth) return next args;                                                               \
        const uint64_t n = (bytes);                                                                \
        const uint64_t t0 = now_ns();                                                              \
        depth++;                                                                                   \
        const int rc = next args;                                                                  \
        depth--;                                                                                   \
        record(coll, nonblocking, comm, n, now_ns() - t0);                                         \
        return rc;                                                                                 \
    }
/* The blocking form MPI_<name> and the non-blocking one MPI_I<lower> (request appended). */
#define WRAP_BOTH(coll, name, lower, params, args, bytes)                                          \
    WRAP(coll, 0, MPI_##name, (SHMCOLL_PROFILE_UNPAREN params), (SHMCOLL_PROFILE_UNPAREN args),    \
         bytes)                                                                                    \
    WRAP(coll, 1, MPI_I##lower, (SHMCOLL_PROFILE_UNPAREN params, MPI_Request * request),           \
         (SHMCOLL_PROFILE_UNPAREN args, request), bytes)
#define SHMCOLL_PROFILE_UNPAREN(...) __VA_ARGS__

WRAP(BARRIER, 0, MPI_Barrier, (MPI_Comm comm), (comm), BYTES_BARRIER)
WRAP(BARRIER, 1, MPI_Ibarrier, (MPI_Comm comm, MPI_Request *request), (comm, request),
     BYTES_BARRIER)
WRAP_BOTH(BCAST, Bcast, bcast,
          (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm),
          (buffer, count, datatype, root, comm), BYTES_BCAST)
WRAP_BOTH(REDUCE, Reduce, reduce,
          (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
           int root, MPI_Comm comm),
          (sendbuf, recvbuf, count, datatype, op, root, comm), BYTES_REDUCTION)
WRAP_BOTH(ALLREDUCE, Allreduce, allreduce,
          (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
           MPI_Comm comm),
          (sendbuf, recvbuf, count, datatype, op, comm), BYTES_REDUCTION)
WRAP_BOTH(REDUCE_SCATTER_BLOCK, Reduce_scatter_block, reduce_scatter_block,
          (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
           MPI_Comm comm),
          (sendbuf, recvbuf, recvcount, datatype, op, comm), BYTES_RSB)
WRAP_BOTH(REDUCE_SCATTER, Reduce_scatter, reduce_scatter,
          (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
           MPI_Op op, MPI_Comm comm),
          (sendbuf, recvbuf, recvcounts, datatype, op, comm), BYTES_RS)
WRAP_BOTH(SCAN, Scan, scan,
          (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
           MPI_Comm comm),
          (sendbuf, recvbuf, count, datatype, op, comm), BYTES_REDUCTION)
WRAP_BOTH(EXSCAN, Exscan, exscan,
          (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
           MPI_Comm comm),
          (sendbuf, recvbuf, count, datatype, op, comm), BYTES_REDUCTION)
WRAP_BOTH(ALLGATHER, Allgather, allgather,
          (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
           MPI_Datatype recvtype, MPI_Comm comm),
          (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), BYTES_ALLGATHER)
WRAP_BOTH(ALLGATHERV, Allgatherv, allgatherv,
          (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
           const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm),
          (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm),
          BYTES_ALLGATHERV)
WRAP_BOTH(GATHER, Gather, gather,
          (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, MPI_Comm comm),
          (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), BYTES_GATHER)
WRAP_BOTH(GATHERV, Gatherv, gatherv,
          (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
           const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
           MPI_Comm comm),
          (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm),
          BYTES_GATHERV)
WRAP_BOTH(SCATTER, Scatter, scatter,
          (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, MPI_Comm comm),
          (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), BYTES_SCATTER)
WRAP_BOTH(SCATTERV, Scatterv, scatterv,
          (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
           void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),
          (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm),
          BYTES_SCATTERV)
WRAP_BOTH(ALLTOALL, Alltoall, alltoall,
          (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
           MPI_Datatype recvtype, MPI_Comm comm),
          (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), BYTES_ALLTOALL)
WRAP_BOTH(ALLTOALLV, Alltoallv, alltoallv,
          (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
           void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
           MPI_Comm comm),
          (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm),
          BYTES_ALLTOALLV)

/* ---- Fortran entry points (mpif.h, `use mpi`; gfortran's names) ---------------------------- */

/* void name(params, ierror): every argument by reference, handles as INTEGERs. The parameters
 * keep the C names, so the bytes expressions above serve after the handles are converted; they are
 * named f_x here and converted into locals x. `convert` declares those locals. */
#define FWRAP(coll, name, params, args, convert, bytes)                                            \
    typedef void name##_fn(SHMCOLL_PROFILE_UNPAREN params, MPI_Fint *ierror);                      \
    EXPORT name##_fn name;                                                                         \
    EXPORT void name(SHMCOLL_PROFILE_UNPAREN params, MPI_Fint *ierror) {                           \
        static name##_fn *next;                                                                    \
        if (!next) next = (name##_fn *)next_symbol(#name);                                         \
        if (depth) {                                                                               \
            next(SHMCOLL_PROFILE_UNPAREN args, ierror);                                            \
            return;                                                                                \
        }                                                                                          \
        MPI_Comm comm = PMPI_Comm_f2c(*f_comm);                                                    \
        SHMCOLL_PROFILE_UNPAREN convert;                                                           \
        const uint64_t n = (bytes);                                                                \
        const uint64_t t0 = now_ns();                                                              \
        depth++;                                                                                   \
        next(SHMCOLL_PROFILE_UNPAREN args, ierror);                                                \
        depth--;                                                                                   \
        record(coll, 0, comm, n, now_ns() - t0);                                                   \
    }
typedef const MPI_Fint fint; /* an INTEGER argument */
#define TYPE(x) MPI_Datatype x = PMPI_Type_f2c(*f_##x)
#define ROOT    int root = *f_root
#define SEND    int sendcount = *f_sendcount
#define RECV    int recvcount = *f_recvcount
#define NOTHING (void)0
#define COUNTS  const int *recvcounts = f_recvcounts
#define SCOUNTS const int *sendcounts = f_sendcounts

FWRAP(BARRIER, mpi_barrier_, (fint * f_comm), (f_comm), (NOTHING), BYTES_BARRIER)
FWRAP(BCAST, mpi_bcast_,
      (void *buffer, fint *f_count, fint *f_datatype, fint *f_root, fint *f_comm),
      (buffer, f_count, f_datatype, f_root, f_comm),
      (int count = *f_count; TYPE(datatype); ROOT; (void)root), BYTES_BCAST)
#define FREDUCTION(coll, name, bytes)                                                              \
    FWRAP(                                                                                         \
        coll, name,                                                                                \
        (void *sendbuf, void *recvbuf, fint *f_count, fint *f_datatype, fint *f_op, fint *f_comm), \
        (sendbuf, recvbuf, f_count, f_datatype, f_op, f_comm),                                     \
        (int count = *f_count; int recvcount = count; TYPE(datatype); (void)recvcount), bytes)
FWRAP(REDUCE, mpi_reduce_,
      (void *sendbuf, void *recvbuf, fint *f_count, fint *f_datatype, fint *f_op, fint *f_root,
       fint *f_comm),
      (sendbuf, recvbuf, f_count, f_datatype, f_op, f_root, f_comm),
      (int count = *f_count; TYPE(datatype)), BYTES_REDUCTION)
FREDUCTION(ALLREDUCE, mpi_allreduce_, BYTES_REDUCTION)
FREDUCTION(REDUCE_SCATTER_BLOCK, mpi_reduce_scatter_block_, BYTES_RSB)
FREDUCTION(SCAN, mpi_scan_, BYTES_REDUCTION)
FREDUCTION(EXSCAN, mpi_exscan_, BYTES_REDUCTION)
FWRAP(REDUCE_SCATTER, mpi_reduce_scatter_,
      (void *sendbuf, void *recvbuf, fint *f_recvcounts, fint *f_datatype, fint *f_op,
       fint *f_comm),
      (sendbuf, recvbuf, f_recvcounts, f_datatype, f_op, f_comm), (COUNTS; TYPE(datatype)),
      BYTES_RS)
#define FMOVE(coll, name, bytes, root_param, root_arg, root_local)                                 \
    FWRAP(coll, name,                                                                              \
          (void *sendbuf, fint *f_sendcount, fint *f_sendtype, void *recvbuf, fint *f_recvcount,   \
           fint *f_recvtype, SHMCOLL_PROFILE_UNPAREN root_param fint *f_comm),                     \
          (sendbuf, f_sendcount, f_sendtype, recvbuf, f_recvcount, f_recvtype,                     \
           SHMCOLL_PROFILE_UNPAREN root_arg f_comm),                                               \
          (SEND; RECV; TYPE(sendtype); TYPE(recvtype); SHMCOLL_PROFILE_UNPAREN root_local;         \
           (void)sendcount; (void)sendtype),                                                       \
          bytes)
FMOVE(ALLGATHER, mpi_allgather_, BYTES_ALLGATHER, (), (), (NOTHING))
FMOVE(ALLTOALL, mpi_alltoall_, BYTES_ALLTOALL, (), (), (NOTHING))
FMOVE(GATHER, mpi_gather_, BYTES_GATHER, (fint * f_root, ), (f_root, ), (ROOT))
FMOVE(SCATTER, mpi_scatter_, BYTES_SCATTER, (fint * f_root, ), (f_root, ), (ROOT))
FWRAP(ALLGATHERV, mpi_allgatherv_,
      (void *sendbuf, fint *f_sendcount, fint *f_sendtype, void *recvbuf, fint *f_recvcounts,
       fint *displs, fint *f_recvtype, fint *f_comm),
      (sendbuf, f_sendcount, f_sendtype, recvbuf, f_recvcounts, displs, f_recvtype, f_comm),
      (COUNTS; TYPE(recvtype)), BYTES_ALLGATHERV)
FWRAP(GATHERV, mpi_gatherv_,
      (void *sendbuf, fint *f_sendcount, fint *f_sendtype, void *recvbuf, fint *f_recvcounts,
       fint *displs, fint *f_recvtype, fint *f_root, fint *f_comm),
      (sendbuf, f_sendcount, f_sendtype, recvbuf, f_recvcounts, displs, f_recvtype, f_root, f_comm),
      (SEND; COUNTS; TYPE(sendtype); TYPE(recvtype); ROOT), BYTES_GATHERV)
FWRAP(SCATTERV, mpi_scatterv_,
      (void *sendbuf, fint *f_sendcounts, fint *displs, fint *f_sendtype, void *recvbuf,
       fint *f_recvcount, fint *f_recvtype, fint *f_root, fint *f_comm),
      (sendbuf, f_sendcounts, displs, f_sendtype, recvbuf, f_recvcount, f_recvtype, f_root, f_comm),
      (SCOUNTS; RECV; TYPE(sendtype); TYPE(recvtype); ROOT), BYTES_SCATTERV)
FWRAP(ALLTOALLV, mpi_alltoallv_,
      (void *sendbuf, fint *sendcounts, fint *sdispls, fint *f_sendtype, void *recvbuf,
       fint *f_recvcounts, fint *rdispls, fint *f_recvtype, fint *f_comm),
      (sendbuf, sendcounts, sdispls, f_sendtype, recvbuf, f_recvcounts, rdispls, f_recvtype,
       f_comm),
      (COUNTS; TYPE(recvtype)), BYTES_ALLTOALLV)

/* ---- the report ---------------------------------------------------------------------------- */

static void print_row(FILE *out, const char *coll, const char *size, uint64_t calls, uint64_t bytes,
                      double mean_s, double max_s, double run_s) {
    fprintf(out, "profile: %-22s %-7s %10llu %14llu %10.4f %10.4f %6.2f\n", coll, size,
            (unsigned long long)calls, (unsigned long long)bytes, mean_s, max_s,
            run_s > 0 ? 100.0 * mean_s / run_s : 0.0);
}

/* Sums calls and bytes over the ranks, time as mean and maximum, and prints the rows that have
 * calls or time on rank 0 of MPI_COMM_WORLD. Collective over MPI_COMM_WORLD (PMPI_*: not seen by
 * shmcoll nor counted). */
static void report(void) {
    if (reported) return;
    reported = 1;
    int rank = 0, p = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &p);
    static uint64_t counts[NROWS][2], nanos[NROWS], counts_sum[NROWS][2], nanos_sum[NROWS],
        nanos_max[NROWS];
    for (int r = 0; r < NROWS; r++) {
        counts[r][0] = table[r][CALLS];
        counts[r][1] = table[r][BYTES];
        nanos[r] = table[r][NANOS];
    }
    double run = (double)(now_ns() - start_ns) * 1e-9, run_sum = 0;
    PMPI_Reduce(counts, counts_sum, 2 * NROWS, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(nanos, nanos_sum, NROWS, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(nanos, nanos_max, NROWS, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&run, &run_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank != 0) return;

    const char *path = getenv("SHMCOLL_PROFILE_FILE");
    FILE *out = path && *path ? fopen(path, "a") : NULL;
    if (!out) out = stderr;
    const double run_mean = run_sum / p;
    fprintf(out,
            "profile: p=%d, run %.3f s (mean over ranks, from load to MPI_Finalize); calls and "
            "bytes: operations at rank 0 of their communicator; time: mean over ranks and the "
            "largest of any rank\n",
            p, run_mean);
    fprintf(out, "profile: %-22s %-7s %10s %14s %10s %10s %6s\n", "collective", "size", "calls",
            "bytes", "time_s", "max_s", "%run");
    uint64_t all_calls = 0, all_bytes = 0;
    double all_time = 0, all_max = 0;
    for (int nb = 0; nb < 2; nb++)
        for (int c = 0; c < NCOLL; c++) {
            char name[32];
            snprintf(name, sizeof name, "%s%s", nb ? "i" : "", names[c]);
            uint64_t calls = 0, bytes = 0;
            double time = 0, max = 0;
            int rows = 0;
            for (int b = 0; b < NBANDS; b++) {
                const int r = (nb * NCOLL + c) * NBANDS + b;
                if (!counts_sum[r][0] && !nanos_sum[r]) continue;
                const double mean_s = 1e-9 * (double)nanos_sum[r] / p;
                const double max_s = 1e-9 * (double)nanos_max[r];
                print_row(out, name, bands[b], counts_sum[r][0], counts_sum[r][1], mean_s, max_s,
                          run_mean);
                calls += counts_sum[r][0], bytes += counts_sum[r][1];
                time += mean_s, max += max_s, rows++;
            }
            if (rows > 1) print_row(out, name, "all", calls, bytes, time, max, run_mean);
            all_calls += calls, all_bytes += bytes, all_time += time, all_max += max;
        }
    print_row(out, "total", "all", all_calls, all_bytes, all_time, all_max, run_mean);
    if (out != stderr) fclose(out);
}

EXPORT int MPI_Finalize(void) {
    static __typeof__(&MPI_Finalize) next;
    if (!next) next = (__typeof__(&MPI_Finalize))next_symbol("MPI_Finalize");
    if (!depth) report();
    depth++;
    const int rc = next();
    depth--;
    return rc;
}

EXPORT void mpi_finalize_(MPI_Fint *ierror);
EXPORT void mpi_finalize_(MPI_Fint *ierror) {
    static __typeof__(&mpi_finalize_) next;
    if (!next) next = (__typeof__(&mpi_finalize_))next_symbol("mpi_finalize_");
    if (!depth) report();
    depth++;
    next(ierror);
    depth--;
}
