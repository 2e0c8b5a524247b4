/* The MPI-4 sessions model: a program that makes its communicators from a session's process set
 * (MPI_Session_init, MPI_Group_from_session_pset, MPI_Comm_create_from_group) instead of
 * MPI_COMM_WORLD, as libraries that initialise MPI on their own do.
 *
 * Without MPI_Init the world model is not initialised, and shmcoll, whose job-wide setup and
 * agreement run over MPI_COMM_WORLD, hands every call on such communicators to the MPI library:
 * the calls must be right and must not hang. With --world the program calls MPI_Init first, as a
 * program whose own part uses the world model while a library in it uses a session; then shmcoll
 * sets the session's communicators up as any other, and --expect-served requires that it served
 * one (its data-access volume grew).
 *
 * On the session's communicator, its duplicate and the halves of its split, every rank runs RUN
 * calls each of allreduce (blocking, non-blocking and persistent), bcast (the root moving),
 * allgather and alltoall at 8 B to 512 KiB, every result checked against values computed locally;
 * the outcome is agreed over the session's communicator and rank 0 prints it. MPI 4 only (MPICH 4
 * has sessions, Open MPI 4.1 does not): elsewhere the program says so and fails. */
#include "mpi_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if MPI_VERSION >= 4

#define RUN 12 /* calls of each collective at each size */

static const int counts[] = {1, 64, 4096, 65536}; /* doubles */
#define NCOUNTS ((int)(sizeof counts / sizeof *counts))

static int failed; /* this rank's failed checks (check_fail counts its own, for its output) */

#define EXPECT(cond, ...) (void)((cond) || (failed++, check_fail(__FILE__, __LINE__, __VA_ARGS__)))

static double value(int rank, int i, int salt) {
    return (double)(check_hash(rank, (size_t)i, salt) % 4096);
}

/* The first wrong element of n (or -1) where recv[i] must be want(i). */
#define FIRST_WRONG(n, want_expr)                                                                  \
    ({                                                                                             \
        int wrong_ = -1;                                                                           \
        for (int i = 0; i < (n) && wrong_ < 0; i++)                                                \
            if (recv[i] != (want_expr)) wrong_ = i;                                                \
        wrong_;                                                                                    \
    })

static double sum_over(int p, int i, int salt) {
    double want = 0;
    for (int r = 0; r < p; r++) want += value(r, i, salt);
    return want;
}

/* RUN calls of each collective at each size on comm, into send and recv (room for the largest
 * count from every rank); every rank makes every call, whatever it found wrong (the others wait
 * in them). */
static void exercise(MPI_Comm comm, const char *name, double *send, double *recv) {
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    for (int salt = 0; salt < NCOUNTS * RUN; salt++) {
        const int n = counts[salt / RUN], call = salt % RUN, root = call % p;
        for (int i = 0; i < n; i++) send[i] = value(me, i, salt);
        MPI_Allreduce(send, recv, n, MPI_DOUBLE, MPI_SUM, comm);
        int at = FIRST_WRONG(n, sum_over(p, i, salt));
        EXPECT(at < 0, "%s: allreduce of %d, call %d: [%d] wrong", name, n, call, at);

        MPI_Request request;
        MPI_Iallreduce(send, recv, n, MPI_DOUBLE, MPI_SUM, comm, &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        at = FIRST_WRONG(n, sum_over(p, i, salt));
        EXPECT(at < 0, "%s: iallreduce of %d, call %d: [%d] wrong", name, n, call, at);

        MPI_Allreduce_init(send, recv, n, MPI_DOUBLE, MPI_SUM, comm, MPI_INFO_NULL, &request);
        for (int start = 0; start < 2; start++) {
            memset(recv, 0, sizeof(double) * (size_t)n);
            MPI_Start(&request);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
            at = FIRST_WRONG(n, sum_over(p, i, salt));
            EXPECT(at < 0, "%s: persistent allreduce of %d, call %d, start %d: [%d] wrong", name, n,
                   call, start, at);
        }
        MPI_Request_free(&request);

        for (int i = 0; i < n; i++) recv[i] = me == root ? value(root, i, salt) : -1;
        MPI_Bcast(recv, n, MPI_DOUBLE, root, comm);
        at = FIRST_WRONG(n, value(root, i, salt));
        EXPECT(at < 0, "%s: bcast of %d from %d, call %d: [%d] wrong", name, n, root, call, at);

        MPI_Allgather(send, n, MPI_DOUBLE, recv, n, MPI_DOUBLE, comm);
        at = FIRST_WRONG(n * p, value(i / n, i % n, salt));
        EXPECT(at < 0, "%s: allgather of %d, call %d: [%d] wrong", name, n, call, at);

        const int block = n / p ? n / p : 1; /* block j of rank r: value(r, j * block + i) */
        for (int i = 0; i < block * p; i++) send[i] = value(me, i, salt);
        MPI_Alltoall(send, block, MPI_DOUBLE, recv, block, MPI_DOUBLE, comm);
        at = FIRST_WRONG(block * p, value(i / block, me * block + i % block, salt));
        EXPECT(at < 0, "%s: alltoall of %d, call %d: [%d] wrong", name, block, call, at);
    }
}

int main(int argc, char **argv) {
    int world = 0, expect_served = 0;
    for (int a = 1; a < argc; a++) {
        world |= !strcmp(argv[a], "--world");
        expect_served |= !strcmp(argv[a], "--expect-served");
    }
    if (world) MPI_Init(&argc, &argv);
    MPI_Session session;
    MPI_Group group;
    MPI_Comm comm;
    if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &session) != MPI_SUCCESS ||
        MPI_Group_from_session_pset(session, "mpi://WORLD", &group) != MPI_SUCCESS ||
        MPI_Comm_create_from_group(group, "org.shmcoll.test.sessions", MPI_INFO_NULL,
                                   MPI_ERRORS_ARE_FATAL, &comm) != MPI_SUCCESS) {
        fprintf(stderr, "FAIL: no communicator from the session's process set\n");
        return 1;
    }
    MPI_Comm_rank(comm, &check_rank);
    MPI_Comm_size(comm, &check_size);
    const char *active = getenv("SHMCOLL_TEST_EXPECT_ACTIVE");
    if (active && !strcmp(active, "1"))
        EXPECT(check_interposed(), "MPI_Allreduce does not resolve into libshmcoll");

    const size_t room = sizeof(double) * (size_t)counts[NCOUNTS - 1] * (size_t)check_size;
    double *send = check_alloc(room), *recv = check_alloc(room);
    exercise(comm, "session", send, recv);
    MPI_Comm dup, half;
    MPI_Comm_dup(comm, &dup);
    exercise(dup, "duplicate", send, recv);
    MPI_Comm_split(comm, check_rank % 2, check_rank, &half);
    exercise(half, "half", send, recv);
    free(send);
    free(recv);
    if (expect_served)
        EXPECT(check_dav_on(comm) > 0, "the session's communicator was not served (DAV 0)");
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);

    int failures = 0; /* agreed by the MPI library itself, whatever shmcoll did */
    PMPI_Allreduce(&failed, &failures, 1, MPI_INT, MPI_SUM, comm);
    if (check_rank == 0)
        printf("%s sessions%s: %d failure(s) on %d ranks\n", failures ? "FAIL" : "PASS",
               world ? " (with the world model)" : "", failures, check_size);
    MPI_Comm_free(&comm);
    MPI_Group_free(&group);
    MPI_Session_finalize(&session);
    if (world) MPI_Finalize();
    return failures != 0;
}

#else

int main(void) {
    fprintf(stderr, "FAIL: this MPI library has no sessions (MPI %d.%d)\n", MPI_VERSION,
            MPI_SUBVERSION);
    return 1;
}

#endif
