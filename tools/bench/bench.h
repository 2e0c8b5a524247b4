/* shmcoll-bench: the MPI library's own collectives and shmcoll's, measured side by side in one run.
 *
 * The benchmark is an ordinary MPI program linked with libshmcoll. A call to PMPI_Allreduce goes
 * straight to the MPI library; a call to MPI_Allreduce goes through shmcoll (which may still hand
 * it to the library). Both variants run in the same process, on the same buffers, alternating, so
 * drift of the machine (frequency, other load) affects both equally. Every timed loop is followed
 * by a check of the result of its last iteration: a fast wrong answer aborts the run.
 *
 * Files: options.c (command line), data.c (deterministic inputs and their checks), measure.c
 * (warm-up, calibration, timed loops), report.c (table or CSV), main.c (the driver). */
#ifndef SHMCOLL_BENCH_BENCH_H
#define SHMCOLL_BENCH_BENCH_H

#include <mpi.h>
#include <stddef.h>

typedef enum shmcoll_bench_coll {
    SHMCOLL_BENCH_BARRIER,
    SHMCOLL_BENCH_BCAST,
    SHMCOLL_BENCH_REDUCE,
    SHMCOLL_BENCH_ALLREDUCE,
    SHMCOLL_BENCH_NCOLL
} shmcoll_bench_coll_t;

/* Which implementation a call goes to. */
typedef enum shmcoll_bench_impl {
    SHMCOLL_BENCH_IMPL_MPI,     /* PMPI_*: the MPI library itself */
    SHMCOLL_BENCH_IMPL_SHMCOLL, /* MPI_*: through shmcoll */
    SHMCOLL_BENCH_NIMPL
} shmcoll_bench_impl_t;

/* Element type of the data. Reductions use MPI_SUM, which MPI defines for all three; bytes are
 * reduced as MPI_UNSIGNED_CHAR (MPI_SUM is not defined on MPI_BYTE) and sums wrap modulo 256. */
typedef enum shmcoll_bench_type {
    SHMCOLL_BENCH_DOUBLE,
    SHMCOLL_BENCH_INT,
    SHMCOLL_BENCH_BYTE
} shmcoll_bench_type_t;

typedef struct shmcoll_bench_options {
    int run[SHMCOLL_BENCH_NCOLL]; /* 1: measure this collective */
    size_t min_size;              /* bytes */
    size_t max_size;
    size_t factor; /* sizes are min_size * factor^k, then max_size */
    long iters;    /* timed iterations per loop; 0: calibrate to `target` seconds */
    int rounds;    /* timed loops per implementation, alternating */
    double target; /* seconds per timed loop when calibrating */
    int root;      /* root of bcast and reduce */
    shmcoll_bench_type_t type;
    int cache_bust; /* rewrite the send buffer before every iteration */
    int csv;        /* machine-readable output */
} shmcoll_bench_options_t;

/* One measured case: a collective at one message size. */
typedef struct shmcoll_bench_case {
    shmcoll_bench_coll_t coll;
    shmcoll_bench_type_t type;
    size_t count; /* elements */
    size_t bytes; /* count * element size */
    int root;
    int rank;
    int nprocs;
    MPI_Comm comm;
    void *sendbuf; /* bcast: the buffer on every rank */
    void *recvbuf;
    int cache_bust;
} shmcoll_bench_case_t;

typedef struct shmcoll_bench_result {
    long iters;                       /* timed iterations per loop */
    int rounds;                       /* loops per implementation */
    double usec[SHMCOLL_BENCH_NIMPL]; /* per-rank mean per call, maximum over ranks (rank 0) */
} shmcoll_bench_result_t;

/* options.c: parse argv (identical on every rank). Returns 0 to run, 1 after printing the help
 * (on rank 0), 2 after printing an error (on rank 0). */
int shmcoll_bench_options_parse(int argc, char **argv, int rank, int nprocs,
                                shmcoll_bench_options_t *options);
const char *shmcoll_bench_coll_name(shmcoll_bench_coll_t coll);
const char *shmcoll_bench_type_name(shmcoll_bench_type_t type);
const char *shmcoll_bench_impl_name(shmcoll_bench_impl_t impl);

/* data.c: deterministic integer-valued inputs, so sums are exact in every type. `tag` makes every
 * timed loop (and, with cache-bust, every iteration) write different values. */
size_t shmcoll_bench_data_elem_size(shmcoll_bench_type_t type);
MPI_Datatype shmcoll_bench_data_mpi_type(shmcoll_bench_type_t type, shmcoll_bench_coll_t coll);
void shmcoll_bench_data_fill(shmcoll_bench_type_t type, void *buf, size_t count, int rank,
                             unsigned long tag);
void shmcoll_bench_data_poison(void *buf, size_t bytes);
/* Returns the index of the first wrong element of the result of `coll`, or (size_t)-1 when all
 * are right; *got and *want describe that element. */
size_t shmcoll_bench_data_check(const shmcoll_bench_case_t *bcase, const void *buf,
                                unsigned long tag, double *got, double *want);

/* measure.c: warm-up, calibration and the alternating timed loops of one case. Collective over
 * the case's communicator. Aborts the job with a message when a result is wrong. */
void shmcoll_bench_measure_run(const shmcoll_bench_case_t *bcase,
                               const shmcoll_bench_options_t *options,
                               shmcoll_bench_result_t *result);

/* report.c: output on rank 0. */
void shmcoll_bench_report_header(const shmcoll_bench_options_t *options, int nprocs);
void shmcoll_bench_report_row(const shmcoll_bench_options_t *options,
                              const shmcoll_bench_case_t *bcase,
                              const shmcoll_bench_result_t *result);

#endif
