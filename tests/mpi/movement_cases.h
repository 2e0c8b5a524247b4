/* Cases of the data-movement tests (gather, scatter, allgather, alltoall and their v-variants):
 * the values each rank sends, block layouts (uniform, or uneven with empty blocks, gaps and
 * displacements in reverse rank order) and the count/displacement arrays in the form MPI takes
 * them (int, or MPI_Count / MPI_Aint for the large-count twins).
 *
 * Values are doubles that are small integers, so they are exact; each depends on the sender, the
 * receiver (or -1 when the same block goes to everyone) and the element index, so a block that
 * lands in the wrong place or from the wrong rank is caught. Elements outside every block hold a
 * sentinel that must survive. */
#ifndef SHMCOLL_TESTS_MPI_MOVEMENT_CASES_H
#define SHMCOLL_TESTS_MPI_MOVEMENT_CASES_H

#include <mpi.h>
#include <stddef.h>

#define MOVEMENT_SENTINEL (-12345.5)
#define MOVEMENT_GAP      2 /* elements left free before every uneven block */

/* Element k of what rank `from` sends to rank `to` (-1: to everyone). */
double movement_value(int from, int to, size_t k, int salt);

/* Count of block j of the uneven pattern around n: some blocks empty, the others n plus a
 * little, different from block to block (so even n = 0 moves something). */
size_t movement_count(size_t n, int j, int salt);

/* p blocks of the uneven pattern, placed in reverse rank order with a gap before each;
 * returns the number of elements the buffer needs. */
size_t movement_uneven(size_t n, int p, int salt, size_t *counts, size_t *displs);

/* p blocks of n elements, back to back; returns p * n. */
size_t movement_uniform(size_t n, int p, size_t *counts, size_t *displs);

/* buf (total elements) := the sentinel, then block j := movement_value(from, j, k). */
void movement_fill(double *buf, size_t total, int p, const size_t *counts, const size_t *displs,
                   int from, int salt);

/* buf (total elements) := the sentinel, then block j := movement_value(j, to, k) for the blocks
 * with `present[j]` set (all when present is NULL): what an in-place receive side holds. */
void movement_fill_received(double *buf, size_t total, int p, const size_t *counts,
                            const size_t *displs, int to, const int *present, int salt);

/* Checks that block j of buf holds movement_value(j, to, k) and everything else the sentinel;
 * reports the first difference with `what` and returns 1 when all is right. */
int movement_check(const double *buf, size_t total, int p, const size_t *counts,
                   const size_t *displs, int to, int salt, const char *what);

/* Checks n elements of buf against movement_value(from, to, k). */
int movement_check_one(const double *buf, size_t n, int from, int to, int salt, const char *what);

/* counts and displs as MPI takes them: int arrays, or MPI_Count and MPI_Aint arrays (large). */
typedef struct movement_args {
    void *counts;
    void *displs;
} movement_args_t;
movement_args_t movement_args(const size_t *counts, const size_t *displs, int p, int large);
void movement_args_free(movement_args_t *a);

#endif
