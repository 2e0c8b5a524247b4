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

/* In the order of the library's statistics lines. */
typedef enum check_coll {
    CHECK_BARRIER,
    CHECK_BCAST,
    CHECK_REDUCE,
    CHECK_ALLREDUCE,
    CHECK_REDUCE_SCATTER_BLOCK,
    CHECK_REDUCE_SCATTER,
    CHECK_SCAN,
    CHECK_EXSCAN,
    CHECK_ALLGATHER,
    CHECK_ALLGATHERV,
    CHECK_GATHER,
    CHECK_GATHERV,
    CHECK_SCATTER,
    CHECK_SCATTERV,
    CHECK_ALLTOALL,
    CHECK_ALLTOALLV,
    CHECK_COLL_COUNT
} check_coll_t;

extern int check_rank, check_size; /* in MPI_COMM_WORLD */

/* The collective's name as the statistics lines print it ("reduce_scatter_block"). */
const char *check_coll_name(check_coll_t coll);

/* MPI_Init, rank/size, the interposition check. */
void check_init(int *argc, char ***argv);
/* The same through MPI_Init_thread; returns the thread level provided. */
int check_init_thread(int *argc, char ***argv, int required);

/* Whether MPI_Allreduce resolves into libshmcoll and its version is exported (each failure
 * counted and printed as CHECK does); check_init makes this check with
 * SHMCOLL_TEST_EXPECT_ACTIVE=1, programs that do not call it make it themselves. */
int check_interposed(void);

#define CHECK(cond, ...) ((cond) ? 1 : check_fail(__FILE__, __LINE__, __VA_ARGS__))
int check_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Tallies one call of `coll` on `comm` that the library is expected to handle (or not), moving
 * `count` elements of `datatype` (payload = count * type size; barrier: pass 0, MPI_BYTE). */
void check_expect(check_coll_t coll, MPI_Comm comm, int handled, MPI_Count count,
                  MPI_Datatype datatype);

/* The same with the payload in bytes, for the collectives whose payload is not count * type size
 * (see src/mpi/stats.h): tallied by the counting rank. */
void check_expect_bytes(check_coll_t coll, MPI_Comm comm, int handled, uint64_t bytes);

/* gatherv, scatterv, alltoallv: every rank passes its own share of the payload (what it sends);
 * the call itself is tallied by the counting rank. */
void check_expect_share(check_coll_t coll, MPI_Comm comm, int handled, uint64_t share);

/* Tallies (on the counting rank of `comm`) one operation that must take the shared-heap path
 * (`taken`) or must not; a test that calls this prints "expect: heap calls=N", which run_mpi.py
 * compares with the library's heap line. */
void check_expect_heap(MPI_Comm comm, int taken);

/* Agrees on failures, prints the expectations and PASS/FAIL at rank 0, calls MPI_Finalize;
 * returns the process exit status. */
int check_finish(const char *test_name);

/* Deterministic pseudo-random 32-bit value of (rank, index, salt). */
uint32_t check_hash(int rank, size_t index, int salt);

/* malloc that aborts on failure (and accepts 0). */
void *check_alloc(size_t bytes);

/* A guard zone of CHECK_GUARD bytes after a buffer, which collectives must not write. */
#define CHECK_GUARD 64
void check_guard_set(void *end);
int check_guard_intact(const void *end);

/* Whether call k of a series uses the large-count twin (every other call, under MPI-4). */
int check_use_large(size_t k);

/* This rank's DAV on MPI_COMM_WORLD so far (shmcoll_stats_dav, looked up in the process: 0 and a
 * failure where the library does not export it): shmcoll's ways move bytes through shared
 * memory, the MPI library's none, so a call that made it grow took one of shmcoll's. */
unsigned long long check_dav(void);
/* The same on `comm`. */
unsigned long long check_dav_on(MPI_Comm comm);

/* Every rank took the same way as this one on each of its `calls` calls (ours[i]: 1 for one of
 * shmcoll's ways; 2: not compared), every rank alike; returns this rank's calls on shmcoll's
 * ways. */
int check_same_ways(const char *ours, int calls);

/* Whether the run has SHMCOLL_DISABLE=1: the MPI library itself serves every call, so a test
 * leaves out the shapes the library cannot do (its bugs, its refusals). */
int check_disabled(void);

#endif
