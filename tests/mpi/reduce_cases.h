/* The (datatype, op) cases of the reduction tests, each with its own reference implementation.
 *
 * Inputs are exact in their type (small integers in floating point), so any evaluation order gives
 * the same value and results can be compared for equality. The user-defined op is a 2x2 matrix
 * product, not commutative, so it also checks that shmcoll combines in canonical rank order. */
#ifndef SHMCOLL_TESTS_MPI_REDUCE_CASES_H
#define SHMCOLL_TESTS_MPI_REDUCE_CASES_H

#include <mpi.h>
#include <stddef.h>

typedef struct reduce_case {
    const char *name;
    MPI_Datatype type;
    MPI_Op op;
    size_t extent; /* bytes per element in a C array */
    void (*fill)(void *buf, int rank, size_t n);
    void (*combine)(const void *in, void *inout, size_t n); /* inout = in op inout */
    int (*equal)(const void *a, const void *b);             /* data of one element */
    /* The bytes of an element outside its data (the pair types MPI_DOUBLE_INT and MPI_SHORT_INT:
     * the padding after the int, between the short and the int), which MPI never writes:
     * shmcoll hands such calls to the MPI library. gap_len 0: none. */
    size_t gap_at, gap_len;
} reduce_case_t;

/* Fills cases[] (creating derived types and user ops); returns how many. */
int reduce_cases_create(reduce_case_t *cases, int max);
void reduce_cases_free(reduce_case_t *cases, int ncases);

/* The reference result over ranks 0..p-1: x0 op x1 op ... op x(p-1). */
void reduce_case_expected(const reduce_case_t *c, int p, size_t n, void *out);

/* Index of the first element of `got` that differs from `want`, or n. */
size_t reduce_case_mismatch(const reduce_case_t *c, const void *got, const void *want, size_t n);

/* Index of the first of the n elements of `buf` whose gap is not all `byte`, or n. */
size_t reduce_case_gap_written(const reduce_case_t *c, const void *buf, size_t n,
                               unsigned char byte);

#endif
