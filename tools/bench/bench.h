/* shmcoll-bench: the MPI library's own collectives and shmcoll's, measured side by side in one run.
 *
 * The benchmark is an ordinary MPI program linked with libshmcoll. A call to PMPI_Allreduce goes
 * straight to the MPI library; a call to MPI_Allreduce goes through shmcoll (which may still hand
 * it to the library). Both variants run in the same process, on the same buffers, alternating, so
 * drift of the machine (frequency, other load) affects both equally. Every timed loop is followed
 * by a check of the result of its last iteration: a fast wrong answer aborts the run. Next to the
 * times it reports shmcoll's data-access volume per call as a bandwidth, and the bandwidth of a
 * plain memcpy by every rank at once, so the distance to the machine's limit is visible.
 *
 * Files: options.c (command line), layout.c (counts, displacements and buffer sizes of a case),
 * data.c (deterministic inputs and element checks), expect.c (the expected result of every
 * collective), calls.c (one call to either implementation), measure.c (warm-up, calibration,
 * timed loops, DAV, overlap), copy.c (memcpy bandwidth), report.c (table or CSV), main.c (the
 * driver). */
#ifndef SHMCOLL_BENCH_BENCH_H
#define SHMCOLL_BENCH_BENCH_H

#include <mpi.h>
#include <stddef.h>

/* Unless --iters is given, at least so many timed calls per implementation, in more rounds: a
 * row of 3-call loops (64 MiB) differed by 6-11% between two columns that both ran the MPI
 * library's collective (measure.c, the help, the header). */
#define SHMCOLL_BENCH_MIN_CALLS 24

typedef enum shmcoll_bench_coll {
    SHMCOLL_BENCH_BARRIER,
    SHMCOLL_BENCH_BCAST,
    SHMCOLL_BENCH_REDUCE,
    SHMCOLL_BENCH_ALLREDUCE,
    SHMCOLL_BENCH_REDUCE_SCATTER_BLOCK,
    SHMCOLL_BENCH_REDUCE_SCATTER,
    SHMCOLL_BENCH_SCAN,
    SHMCOLL_BENCH_EXSCAN,
    SHMCOLL_BENCH_ALLGATHER,
    SHMCOLL_BENCH_ALLGATHERV,
    SHMCOLL_BENCH_GATHER,
    SHMCOLL_BENCH_GATHERV,
    SHMCOLL_BENCH_SCATTER,
    SHMCOLL_BENCH_SCATTERV,
    SHMCOLL_BENCH_ALLTOALL,
    SHMCOLL_BENCH_ALLTOALLV,
    SHMCOLL_BENCH_NCOLL
} shmcoll_bench_coll_t;

/* Which implementation a call goes to. */
typedef enum shmcoll_bench_impl {
    SHMCOLL_BENCH_IMPL_MPI,     /* PMPI_*: the MPI library itself */
    SHMCOLL_BENCH_IMPL_SHMCOLL, /* MPI_*: through shmcoll */
    SHMCOLL_BENCH_NIMPL
} shmcoll_bench_impl_t;

/* How a call is made: blocking, non-blocking (MPI_I* then MPI_Wait) or persistent (MPI_*_init
 * once per case and implementation, then MPI_Start and MPI_Wait per call). */
typedef enum shmcoll_bench_form {
    SHMCOLL_BENCH_FORM_BLOCKING,
    SHMCOLL_BENCH_FORM_NONBLOCKING,
    SHMCOLL_BENCH_FORM_PERSISTENT
} shmcoll_bench_form_t;

/* Element type of the data. Reductions use MPI_SUM, which MPI defines for all three; bytes are
 * reduced as MPI_UNSIGNED_CHAR (MPI_SUM is not defined on MPI_BYTE) and sums wrap modulo 256. */
typedef enum shmcoll_bench_type {
    SHMCOLL_BENCH_DOUBLE,
    SHMCOLL_BENCH_INT,
    SHMCOLL_BENCH_BYTE
} shmcoll_bench_type_t;

/* Whether rows are measured with the send buffer rewritten before every call. */
typedef enum shmcoll_bench_bust {
    SHMCOLL_BENCH_BUST_EXTRA, /* default: an extra cache-busted row from `bust_min` bytes */
    SHMCOLL_BENCH_BUST_ALL,   /* --cache-bust: every row cache-busted, no extra rows */
    SHMCOLL_BENCH_BUST_NONE   /* --no-cache-bust-rows: no cache-busted row at all */
} shmcoll_bench_bust_t;

typedef struct shmcoll_bench_options {
    int run[SHMCOLL_BENCH_NCOLL]; /* 1: measure this collective */
    size_t min_size;              /* bytes; what a size means per collective: report.c */
    size_t max_size;
    size_t factor; /* sizes are min_size * factor^k, then max_size */
    long iters;    /* timed iterations per loop; 0: calibrate to `target` seconds */
    int rounds;    /* timed loops per implementation, alternating */
    double target; /* seconds per timed loop when calibrating; 0: the default, see below */
    int root;      /* root of bcast, reduce, gather(v) and scatter(v) */
    shmcoll_bench_type_t type;
    shmcoll_bench_bust_t bust;
    size_t bust_min;      /* smallest size with an extra cache-busted row */
    int copy;             /* measure the memcpy bandwidth of every size */
    int csv;              /* machine-readable output */
    const char *csv_file; /* --csv-file: the rows as CSV in this file too (table on stdout) */
    shmcoll_bench_form_t form;
    int overlap;      /* non-blocking: also the OSU-style overlap of every row */
    int alloc_mem;    /* buffers from MPI_Alloc_mem (shmcoll's shared heap) instead of malloc */
    long first_calls; /* >0: the first calls of fresh communicators, each timed alone (measure.c) */
    int own_barrier;  /* calls timed alone: each implementation's own barrier before each */
    int rank_mean;    /* a loop's time: the mean over the ranks (OSU's average), not the slowest */
    int waitall;      /* non-blocking and persistent: each call completed by MPI_Waitall */
} shmcoll_bench_options_t;

/* One measured case: a collective at one message size. The counts and displacements of this
 * rank's call are in elements; layout.c fills them (and says what each collective uses). */
typedef struct shmcoll_bench_case {
    shmcoll_bench_coll_t coll;
    shmcoll_bench_type_t type;
    size_t count;      /* the count argument: the vector, or one block; the mean block for v */
    size_t bytes;      /* the size of the row (see report.c), in bytes */
    size_t send_elems; /* elements this rank sends from sendbuf (bcast: the root's buffer) */
    size_t recv_elems; /* elements this rank receives into recvbuf (bcast: into sendbuf) */
    int *sendcounts, *sdispls; /* p entries each */
    int *recvcounts, *rdispls;
    int *shares; /* the uneven split of a v collective's p * count elements, in 1 : 2 : ... : p */
    int root;
    int rank;
    int nprocs;
    MPI_Comm comm;
    void *sendbuf; /* bcast: the buffer on every rank */
    void *recvbuf;
    int cache_bust;  /* rewrite the send buffer before every call */
    int own_barrier; /* a call timed alone follows its implementation's own barrier */
    shmcoll_bench_form_t form;
    int waitall;               /* completed by MPI_Waitall of its one request, not MPI_Wait */
    MPI_Request persistent[2]; /* the persistent form's request of each implementation */
} shmcoll_bench_case_t;

typedef struct shmcoll_bench_result {
    long iters;                          /* timed iterations per loop */
    int rounds;                          /* loops per implementation */
    double usec[SHMCOLL_BENCH_NIMPL];    /* each loop's slowest rank, median over loops (rank 0) */
    int dav_known;                       /* 0: the library cannot report its DAV */
    double dav;                          /* shmcoll's bytes loaded + stored per call, all ranks */
    double copy_gbs;                     /* memcpy bandwidth at this size, all ranks; 0: none */
    double overlap[SHMCOLL_BENCH_NIMPL]; /* --overlap: percent of the call hidden; <0: none */
    int mpi_wrong;   /* the MPI library's own result was wrong on some rank: no reference */
    double mpi_self; /* the MPI library against itself, as a speedup (measure.c); 0: none */
} shmcoll_bench_result_t;

/* options.c: parse argv (identical on every rank). Returns 0 to run, 1 after printing the help
 * (on rank 0), 2 after printing an error (on rank 0). */
int shmcoll_bench_options_parse(int argc, char **argv, int rank, int nprocs,
                                shmcoll_bench_options_t *options);
const char *shmcoll_bench_coll_name(shmcoll_bench_coll_t coll);
/* Seconds per timed loop of `coll`: --time, or by default 0.03 for barrier, bcast, reduce and
 * allreduce and 0.015 for the others, which keeps a default run of every collective (six rounds)
 * short. */
double shmcoll_bench_options_target(const shmcoll_bench_options_t *options,
                                    shmcoll_bench_coll_t coll);
const char *shmcoll_bench_type_name(shmcoll_bench_type_t type);
const char *shmcoll_bench_impl_name(shmcoll_bench_impl_t impl);
/* 1 for reductions (MPI_SUM over the data), 0 for barrier and the data-movement collectives. */
int shmcoll_bench_coll_reduces(shmcoll_bench_coll_t coll);
/* 1 for the collectives with a root. */
int shmcoll_bench_coll_rooted(shmcoll_bench_coll_t coll);

/* layout.c: fill the counts, displacements and element totals of `bcase` (coll, type, rank,
 * nprocs set; count arrays allocated with nprocs entries) for a row of `size` bytes. Returns -1
 * when a count or displacement does not fit an int. Local, the same on every rank. */
int shmcoll_bench_layout_fill(shmcoll_bench_case_t *bcase, size_t size);
/* Where rank `from`'s send buffer holds the block for rank `to`, in elements (scatter(v) from
 * the root, alltoall(v)); lets a receiver check data it only knows by its origin. */
size_t shmcoll_bench_layout_send_offset(const shmcoll_bench_case_t *bcase, int from, int to);

/* data.c: deterministic integer-valued inputs, so sums are exact in every type. `tag` makes every
 * timed loop (and, with cache-bust, every iteration) write different values. */
size_t shmcoll_bench_data_elem_size(shmcoll_bench_type_t type);
MPI_Datatype shmcoll_bench_data_mpi_type(shmcoll_bench_type_t type, shmcoll_bench_coll_t coll);
void shmcoll_bench_data_fill(shmcoll_bench_type_t type, void *buf, size_t count, int rank,
                             unsigned long tag);
void shmcoll_bench_data_poison(void *buf, size_t bytes);
/* Checks `count` elements at `buf` against base + scale * ((first + i + tag) mod 61), in the
 * arithmetic of `type`. Returns the index of the first wrong element, or (size_t)-1 when all are
 * right; *got and *want describe that element. */
size_t shmcoll_bench_data_check(shmcoll_bench_type_t type, const void *buf, size_t count,
                                size_t first, long long base, long long scale, unsigned long tag,
                                double *got, double *want);

/* expect.c: check this rank's result of the last call of a loop with inputs of `tag`; a wrong
 * result of shmcoll's aborts the job with a message naming the case, the rank, the block and the
 * element. One of the MPI library's own (MPICH 4.0.2's persistent allgather, say) is printed the
 * same way but does not stop the run: returns 1, and the row is marked instead. */
int shmcoll_bench_expect_check(const shmcoll_bench_case_t *bcase, shmcoll_bench_impl_t impl,
                               unsigned long tag);

/* calls.c: one call of the case's collective through `impl` in the case's form (non-blocking and
 * persistent: to its completion); returns the MPI error code. */
int shmcoll_bench_call_run(const shmcoll_bench_case_t *bcase, shmcoll_bench_impl_t impl);
/* Non-blocking: posts the call into *request. Persistent: creates its request (MPI_*_init). */
int shmcoll_bench_call_post(const shmcoll_bench_case_t *bcase, shmcoll_bench_impl_t impl,
                            shmcoll_bench_form_t form, MPI_Request *request);
/* MPI_Wait (MPI_Waitall where the case says so) through `impl`. */
int shmcoll_bench_call_wait(const shmcoll_bench_case_t *bcase, shmcoll_bench_impl_t impl,
                            MPI_Request *request);

/* measure.c: warm-up, calibration and the alternating timed loops of one case. Collective over
 * the case's communicator. Aborts the job with a message when a result is wrong. */
void shmcoll_bench_measure_run(const shmcoll_bench_case_t *bcase,
                               const shmcoll_bench_options_t *options,
                               shmcoll_bench_result_t *result);

/* copy.c: GB/s of (load + store) bytes of every rank memcpy'ing `bytes` from `src` to `dst` at
 * the same time, summed over ranks (on every rank). Collective over `comm`. */
double shmcoll_bench_copy_measure(void *dst, const void *src, size_t bytes, MPI_Comm comm,
                                  const shmcoll_bench_options_t *options);

/* state.c: the machine's state (0: not measured). Collective over `comm`. */
typedef struct shmcoll_bench_state {
    double copy_gbs;      /* every rank copying 16 MiB at once (options->copy only) */
    double round_trip_ns; /* a cache line from the node's rank 0 to its rank 1 and back */
} shmcoll_bench_state_t;
shmcoll_bench_state_t shmcoll_bench_state(MPI_Comm comm, const shmcoll_bench_options_t *options);

/* report.c: output on rank 0. */
void shmcoll_bench_report_header(const shmcoll_bench_options_t *options, int nprocs);
/* After the rows: the machine's state at the start and the end of the run (a warning when the
 * copy bandwidth differs by more than 20%, or the round trip by more than half), the worst
 * speedup and how many rows fell below 0.95x and 1.0x. */
void shmcoll_bench_report_summary(const shmcoll_bench_options_t *options,
                                  const shmcoll_bench_state_t *start,
                                  const shmcoll_bench_state_t *end);
void shmcoll_bench_report_row(const shmcoll_bench_options_t *options,
                              const shmcoll_bench_case_t *bcase,
                              const shmcoll_bench_result_t *result);

#endif
