/* SHMCOLL_CHECK=1: every blocking collective first checks that its arguments agree across the
 * ranks of its communicator, and a difference ends the job with an error that names the
 * collective, the argument and two ranks ("shmcoll: error: MPI_Allreduce: count differs: rank 0
 * has 4, rank 1 has 8") instead of the hang or wrong result it would cause.
 *
 * Each collective describes its call in a fixed-size record (its describe function, in its own
 * coll_*.c file): the values MPI requires to be equal on every rank, and the bytes per block each
 * rank sends and receives where they are significant. One PMPI_Allgather of the records, and
 * every rank compares them all: equal fields, and one block size for the collectives whose blocks
 * are all alike. The v-variants' count arrays are checked against the other ranks' block bytes by
 * the ranks that hold them (every rank for allgatherv, the root for gatherv and scatterv);
 * alltoallv's p x p pairs are not checked. Intercommunicators are not checked. */
#ifndef SHMCOLL_MPI_CHECK_H
#define SHMCOLL_MPI_CHECK_H

#include "mpi/stats.h"

#include <mpi.h>
#include <stdint.h>

/* The fields of a record, in the order they are compared and reported. */
typedef enum shmcoll_mpi_check_field {
    SHMCOLL_MPI_CHECK_COLL,     /* the collective (shmcoll_mpi_coll_t) */
    SHMCOLL_MPI_CHECK_ROOT,     /* root */
    SHMCOLL_MPI_CHECK_OP,       /* reductions: the op */
    SHMCOLL_MPI_CHECK_TYPE,     /* reductions: the datatype */
    SHMCOLL_MPI_CHECK_COUNT,    /* reductions: the count */
    SHMCOLL_MPI_CHECK_BYTES,    /* bcast: count x type size (the signature's length) */
    SHMCOLL_MPI_CHECK_IN_PLACE, /* where MPI_IN_PLACE must be used by all ranks or none */
    SHMCOLL_MPI_CHECK_COUNTS,   /* a hash of the counts every rank must pass alike */
    SHMCOLL_MPI_CHECK_FIELDS,
} shmcoll_mpi_check_field_t;

typedef struct shmcoll_mpi_check {
    int64_t field[SHMCOLL_MPI_CHECK_FIELDS]; /* SHMCOLL_MPI_CHECK_ABSENT: not compared */
    /* Bytes per block this rank sends and receives, where significant (else ABSENT): for the
     * collectives whose blocks are all alike, every present value must be the same. */
    int64_t send, recv;
    int uniform; /* blocks all alike (not a v-variant) */
    /* Local only: counts[j] x unit bytes must equal rank j's `send` (against_recv: `recv`). */
    const void *counts;
    int wide;
    int64_t unit;
    int against_recv;
} shmcoll_mpi_check_t;

#define SHMCOLL_MPI_CHECK_ABSENT INT64_MIN

/* Checks the call (a no-op unless SHMCOLL_CHECK=1); returns only when the arguments agree. */
void shmcoll_mpi_check(shmcoll_mpi_coll_t coll, const char *function, const void *margs,
                       MPI_Comm comm);

/* ---- For the describe functions --------------------------------------------------------- */

/* Bytes of count elements of datatype (ABSENT for an invalid type: the MPI library reports it). */
int64_t shmcoll_mpi_check_bytes(MPI_Datatype datatype, MPI_Count count);

/* A number naming the datatype alike on every rank: its row in the predefined table, or, for a
 * derived type, its size (negated), so that types of different signatures mostly differ. */
int64_t shmcoll_mpi_check_type(MPI_Datatype datatype);

/* A number naming the op alike on every rank (predefined ops by their handle's place among
 * them; every user-defined op the same, as handles are not comparable across processes). */
int64_t shmcoll_mpi_check_op(MPI_Op op);

/* A hash of n counts (int, or MPI_Count when wide) times unit bytes. */
int64_t shmcoll_mpi_check_counts_hash(const void *counts, int wide, int n, int64_t unit);

/* The describe functions, one per coll_*.c file: fill `check` (all fields ABSENT on entry) from
 * the collective's MPI arguments `margs`; rank and size in the communicator. */
void shmcoll_mpi_check_barrier(const void *margs, int rank, int size, shmcoll_mpi_check_t *check);
void shmcoll_mpi_check_bcast(const void *margs, int rank, int size, shmcoll_mpi_check_t *check);
void shmcoll_mpi_check_reduction(const void *margs, int rank, int size, shmcoll_mpi_check_t *check);
void shmcoll_mpi_check_reduce_scatter(const void *margs, int rank, int size,
                                      shmcoll_mpi_check_t *check);
void shmcoll_mpi_check_allgather(const void *margs, int rank, int size, shmcoll_mpi_check_t *check);
void shmcoll_mpi_check_gather(const void *margs, int rank, int size, shmcoll_mpi_check_t *check);
void shmcoll_mpi_check_scatter(const void *margs, int rank, int size, shmcoll_mpi_check_t *check);
void shmcoll_mpi_check_alltoall(const void *margs, int rank, int size, shmcoll_mpi_check_t *check);

#endif
