/* Helpers shared by the MPI integration tests.
 *
 * - Failure accounting: CHECK() counts and prints (the first few) failures; check_finish() agrees
 *   on the outcome over MPI_COMM_WORLD, so every rank exits with the same status.
 * - Expected statistics: each test tallies its collective calls with the counting rule of
 *   SHMCOLL_STATS (once per operation, by the communicator's counting rank) and rank 0 prints
 *   them as "expect:" lines, which run_mpi.py compares with what the library reports.
 * - Interposition: with SHMCOLL_TEST_EXPECT_ACTIVE=1, the test fails unless MPI_Allreduce resolves
 *   into libshmcoll (catches a link order or LD_PRELOAD that silently did nothing).
 * Reference values are computed locally (every rank can generate every rank's input), because each
 * call into the MPI library itself is slow on an oversubscribed node. */
#ifndef SHMCOLL_TESTS_MPI_CHECK_H
#define SHMCOLL_TESTS_MPI_CHECK_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

typedef enum check_coll {
    CHECK_BARRIER,
    CHECK_BCAST,
    CHECK_REDUCE,
    CHECK_ALLREDUCE,
    CHECK_COLL_COUNT
} check_coll_t;

extern int check_rank, check_size; /* in MPI_COMM_WORLD */

/* MPI_Init, rank/size, the interposition check. */
void check_init(int *argc, char ***argv);
/* The same through MPI_Init_thread; returns the thread level provided. */
int check_init_thread(int *argc, char ***argv, int required);

#define CHECK(cond, ...) ((cond) ? 1 : check_fail(__FILE__, __LINE__, __VA_ARGS__))
int check_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Tallies one call of `coll` on `comm` that the library is expected to handle (or not), moving
 * `count` elements of `datatype` (payload = count * type size; barrier: pass 0, MPI_BYTE). */
void check_expect(check_coll_t coll, MPI_Comm comm, int handled, MPI_Count count,
                  MPI_Datatype datatype);

/* Agrees on failures, prints the expectations and PASS/FAIL at rank 0, calls MPI_Finalize;
 * returns the process exit status. */
int check_finish(const char *test_name);

/* Deterministic pseudo-random 32-bit value of (rank, index, salt). */
uint32_t check_hash(int rank, size_t index, int salt);

#endif
