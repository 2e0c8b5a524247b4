/* The express path of a run ahead on the MPI library's way (repeat.h, run_ahead in repeat.c).
 *
 * A run ahead sends every call with the same arguments straight to the MPI library, but it still
 * went through shmcoll's layers: the record of the arguments built, the communicator's state
 * looked up, the record compared with the kept one, the MPI library's function called from it. On
 * a collective the MPI library serves in a quarter of a microsecond that cost 40-60 ns a call
 * (Open MPI 4.1, p = 2, a loop of 64-byte MPI_Gather on the MPI library's way: 0.80-0.86x of
 * PMPI_Gather's time), most of it in the stores of building the record, which wait behind the MPI
 * library's own stores to its peer's shared memory (a wrapper that only compares the arguments
 * with kept ones, no stores, cost nothing measurable; one that builds the record on its stack and
 * compares it, 0.91x).
 *
 * So each blocking entry point keeps, per thread, the arguments of its last call that was granted
 * a run ahead, as words, and the run (its repeat entry's count of calls left, and the run's
 * serial). A call whose arguments are those words, while the run is the entry's and has calls
 * left and no communicator's state was deleted since (a freed communicator's handle may come back
 * for another), takes one and calls the MPI library's function at once: a compare per argument,
 * no store but the count's. Every rank still
 * counts every call of the run alike (the count was reserved from its band, calibrate.h); a call
 * with other arguments takes the usual path, which gives the run's rest back first.
 *
 * What is left: an entry point of more than six parameters (scatterv, gatherv, alltoallv, gather,
 * scatter, the others with a root or two types) gets the ones past the sixth on the stack, and
 * GCC 12 loads them into callee-saved registers to compare them, then pushes and pops those
 * registers and writes the values back to their stack slots before the tail call: six stores
 * more than a call of six parameters. They are not what the path costs: an x86-64 assembly entry
 * point of MPI_Gatherv that compares in the scratch registers, reads the stack's arguments in
 * place and stores nothing but the count measured as this one does (Open MPI 4.1, p = 2, a loop
 * of 200000 8-byte gathervs at the root, about 80 ns a call, every verdict the MPI library's
 * with SHMCOLL_CALIBRATE_MARGIN=-100000, alternated four times: 0.90-0.93x of PMPI_Gatherv's time
 * in C, 0.85-0.92x in assembly, 0.96-1.04x with SHMCOLL_DISABLE=1), so it was not kept. The cost
 * is the compares themselves, a chain of loads (the thread's records, the entry's slot, the run,
 * its serial) and a compare per argument: some 5 ns a call; gatherv, scatterv and alltoallv pay
 * their shared key's agreements besides (calibrate.c, share_key). */
#ifndef SHMCOLL_MPI_EXPRESS_H
#define SHMCOLL_MPI_EXPRESS_H

#include "mpi/comm_state.h"
#include "shm/wait.h"

#include <stdatomic.h>
#include <stdint.h>

#define SHMCOLL_MPI_EXPRESS_WORDS 9  /* the most parameters of a collective (alltoallv) */
#define SHMCOLL_MPI_EXPRESS_SLOTS 48 /* blocking entry points, large-count twins too */

/* A repeat entry's run ahead (repeat.c), or the loop check's stretch of the MPI library's calls
 * (calibrate.c, check_grant): calls on the express path, unstamped (`left`) or each stamped with
 * its start (`stamped`). */
typedef struct shmcoll_mpi_express_run {
    uint32_t left;    /* calls of the run not taken yet */
    uint32_t serial;  /* changes with every run the entry begins */
    uint32_t stamped; /* stamped calls of the run not taken yet ... */
    uint32_t nstamps; /* ... and those taken, whose starts are in stamps */
    double *stamps;   /* room for every stamped call's */
} shmcoll_mpi_express_run_t;

typedef struct shmcoll_mpi_express {
    shmcoll_mpi_express_run_t *run; /* the run recorded (its entry's); NULL: none */
    uint32_t serial;  /* its serial then: the entry's next run, for other arguments perhaps (of
                       * another thread, or of the large-count twin), is not this one's */
    unsigned deleted; /* shmcoll_mpi_comm_states_deleted then */
    uintptr_t words[SHMCOLL_MPI_EXPRESS_WORDS]; /* the arguments of the run's calls */
} shmcoll_mpi_express_t;

/* Set during a blocking call that was granted a run ahead (repeat.c): the run; the entry point
 * clears it before the call and records the call's arguments after. */
extern __thread shmcoll_mpi_express_run_t *shmcoll_mpi_express_grant
    __attribute__((tls_model("initial-exec")));

/* This thread's records, one per entry point's slot (NULL before its first run is recorded). A
 * thread-local pointer of the initial-exec model is read without calling __tls_get_addr, a call
 * that would make the express path save the arguments' registers first. */
extern __thread shmcoll_mpi_express_t *shmcoll_mpi_express_records
    __attribute__((tls_model("initial-exec")));

/* Set at MPI_Init where shmcoll_mpi_straight_through (agree.h): every blocking entry point calls
 * the MPI library's function at once. Every MPI_Init spelling reaches shmcoll_mpi_init_done (the
 * Fortran ones too, fortran_init.c) and every blocking call an entry point (the Fortran ones
 * call the C ones), so the usual path need not check it again. */
extern int shmcoll_mpi_express_straight;

/* The record for the entry point of `slot` (its slot given on first use), in this thread's
 * records (made on first use, freed when the thread exits); NULL without memory or slots. */
shmcoll_mpi_express_t *shmcoll_mpi_express_record(atomic_int *slot);

/* m(i, x) for each argument x at index i (up to SHMCOLL_MPI_EXPRESS_WORDS). */
#define SHMCOLL_MPI_EACH(m, ...)                                                                   \
    SHMCOLL_MPI_EACH_N(__VA_ARGS__, 9, 8, 7, 6, 5, 4, 3, 2, 1)(m, 0, __VA_ARGS__)
#define SHMCOLL_MPI_EACH_N(a1, a2, a3, a4, a5, a6, a7, a8, a9, n, ...) SHMCOLL_MPI_EACH_##n
#define SHMCOLL_MPI_EACH_1(m, i, x)                                    m(i, x)
#define SHMCOLL_MPI_EACH_2(m, i, x, ...)                               m(i, x) SHMCOLL_MPI_EACH_1(m, i + 1, __VA_ARGS__)
#define SHMCOLL_MPI_EACH_3(m, i, x, ...)                               m(i, x) SHMCOLL_MPI_EACH_2(m, i + 1, __VA_ARGS__)
#define SHMCOLL_MPI_EACH_4(m, i, x, ...)                               m(i, x) SHMCOLL_MPI_EACH_3(m, i + 1, __VA_ARGS__)
#define SHMCOLL_MPI_EACH_5(m, i, x, ...)                               m(i, x) SHMCOLL_MPI_EACH_4(m, i + 1, __VA_ARGS__)
#define SHMCOLL_MPI_EACH_6(m, i, x, ...)                               m(i, x) SHMCOLL_MPI_EACH_5(m, i + 1, __VA_ARGS__)
#define SHMCOLL_MPI_EACH_7(m, i, x, ...)                               m(i, x) SHMCOLL_MPI_EACH_6(m, i + 1, __VA_ARGS__)
#define SHMCOLL_MPI_EACH_8(m, i, x, ...)                               m(i, x) SHMCOLL_MPI_EACH_7(m, i + 1, __VA_ARGS__)
#define SHMCOLL_MPI_EACH_9(m, i, x, ...)                               m(i, x) SHMCOLL_MPI_EACH_8(m, i + 1, __VA_ARGS__)

#define SHMCOLL_MPI_EXPRESS_SAME(i, x)   &&express->words[i] == (uintptr_t)(x)
#define SHMCOLL_MPI_EXPRESS_RECORD(i, x) express->words[i] = (uintptr_t)(x);

/* The blocking entry point `Blocking` with the parameters `plist` (in parentheses; `names` their
 * names): the MPI library's `PBlocking` serves the call at once where it is the next call of the
 * thread's recorded run (stamped with its start where the run's calls are, in a function of its
 * own too); otherwise `usual` (a function of `plist`: the usual path), and a run it was granted
 * is recorded. The usual path is a function of its own, so that the express path saves no
 * registers and builds no frame: a compare per argument, a load and a store of the count, and a
 * jump to the MPI library. */
#define SHMCOLL_MPI_EXPRESS_DEFINE(Blocking, PBlocking, plist, names, usual)                       \
    static atomic_int Blocking##_slot = -1;                                                        \
    __attribute__((noinline)) static int Blocking##_usual(SHMCOLL_MPI_UNPAREN plist) {             \
        shmcoll_mpi_express_grant = NULL;                                                          \
        const int rc = usual;                                                                      \
        shmcoll_mpi_express_t *express;                                                            \
        if (shmcoll_mpi_express_grant &&                                                           \
            (express = shmcoll_mpi_express_record(&Blocking##_slot))) {                            \
            SHMCOLL_MPI_EACH(SHMCOLL_MPI_EXPRESS_RECORD, SHMCOLL_MPI_UNPAREN names)                \
            express->run = shmcoll_mpi_express_grant;                                              \
            express->serial = express->run->serial;                                                \
            express->deleted =                                                                     \
                atomic_load_explicit(&shmcoll_mpi_comm_states_deleted, memory_order_relaxed);      \
        }                                                                                          \
        return rc;                                                                                 \
    }                                                                                              \
    __attribute__((noinline)) static int Blocking##_stamped(SHMCOLL_MPI_UNPAREN plist) {           \
        shmcoll_mpi_express_run_t *const run = shmcoll_mpi_express_records[Blocking##_slot].run;   \
        run->stamped--;                                                                            \
        run->stamps[run->nstamps++] = shmcoll_shm_now();                                           \
        return PBlocking(SHMCOLL_MPI_UNPAREN names);                                               \
    }                                                                                              \
    SHMCOLL_API int Blocking(SHMCOLL_MPI_UNPAREN plist) {                                          \
        if (__builtin_expect(shmcoll_mpi_express_straight, 0))                                     \
            return PBlocking(SHMCOLL_MPI_UNPAREN names);                                           \
        shmcoll_mpi_express_t *const records = shmcoll_mpi_express_records;                        \
        const int slot = atomic_load_explicit(&Blocking##_slot, memory_order_relaxed);             \
        const shmcoll_mpi_express_t *const express = records && slot >= 0 ? &records[slot] : NULL; \
        if (express && express->run &&                                                             \
            express->deleted ==                                                                    \
                atomic_load_explicit(&shmcoll_mpi_comm_states_deleted, memory_order_relaxed) &&    \
            express->serial == express->run->serial SHMCOLL_MPI_EACH(SHMCOLL_MPI_EXPRESS_SAME,     \
                                                                     SHMCOLL_MPI_UNPAREN names)) { \
            if (express->run->left) {                                                              \
                express->run->left--;                                                              \
                return PBlocking(SHMCOLL_MPI_UNPAREN names);                                       \
            }                                                                                      \
            if (express->run->stamped) return Blocking##_stamped(SHMCOLL_MPI_UNPAREN names);       \
        }                                                                                          \
        return Blocking##_usual(SHMCOLL_MPI_UNPAREN names);                                        \
    }

#endif
