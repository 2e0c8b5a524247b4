/* Dynamic processes: a job that spawns more processes and merges with them (MPI_Comm_spawn,
 * MPI_Intercomm_merge), as coupled codes and task farms do. The merged communicator holds the
 * processes of two MPI_COMM_WORLDs, started by two launches, on one node: shmcoll sets it up as
 * any other (its node split, its team's shared memory) while the parents' and the children's
 * worlds have teams of their own. The intercommunicator's collectives are the MPI library's.
 *
 * The parents (this program as launched) spawn CHILDREN copies of it, which get "--child" first
 * in their arguments. On the merged communicator (parents first) every rank runs RUN calls of
 * allreduce, bcast (the root moving), allgather and alltoall at sizes of 8 B to 1 MiB, enough for
 * a communicator's first calls, the measurement's turns and the verdict at the shipped defaults;
 * on each world the same before the spawn, and on the intercommunicator an allreduce and a bcast.
 * Every result is checked against values computed locally. The children's failures travel to the
 * parents over the merged communicator; the parents' rank 0 prints the outcome.
 *
 * --expect-served: shmcoll must have served the merged communicator (its data-access volume is
 * not 0; a run without calibration, where every call it can serve is served). */
#include "mpi_check.h"

#include <stdlib.h>
#include <string.h>

#define CHILDREN 2
#define RUN      12 /* calls of each collective at each size */

static const int counts[] = {1, 64, 4096, 131072}; /* doubles */
#define NCOUNTS ((int)(sizeof counts / sizeof *counts))

static double value(int rank, int i, int salt) {
    return (double)(check_hash(rank, (size_t)i, salt) % 4096);
}

/* RUN calls of each collective at each size on the intracommunicator comm; the failures. */
static int exercise(MPI_Comm comm, const char *name) {
    int me, p, bad = 0;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    const int most = counts[NCOUNTS - 1];
    double *send = check_alloc(sizeof(double) * (size_t)most * p);
    double *recv = check_alloc(sizeof(double) * (size_t)most * p);
    /* every rank makes every call, whatever it found wrong: the others wait in them */
    for (int c = 0; c < NCOUNTS; c++) {
        const int n = counts[c];
        for (int call = 0; call < RUN; call++) {
            const int salt = c * RUN + call, root = call % p;
            for (int i = 0; i < n; i++) send[i] = value(me, i, salt);
            MPI_Allreduce(send, recv, n, MPI_DOUBLE, MPI_SUM, comm);
            for (int i = 0; i < n && !bad; i++) {
                double want = 0;
                for (int r = 0; r < p; r++) want += value(r, i, salt);
                bad += !CHECK(recv[i] == want, "%s: allreduce of %d, call %d: [%d] = %g, not %g",
                              name, n, call, i, recv[i], want);
            }
            for (int i = 0; i < n; i++) recv[i] = me == root ? value(root, i, salt) : -1;
            MPI_Bcast(recv, n, MPI_DOUBLE, root, comm);
            for (int i = 0; i < n && !bad; i++)
                bad += !CHECK(recv[i] == value(root, i, salt), "%s: bcast of %d from %d: [%d] = %g",
                              name, n, root, i, recv[i]);
            MPI_Allgather(send, n, MPI_DOUBLE, recv, n, MPI_DOUBLE, comm);
            for (int r = 0; r < p && !bad; r++)
                for (int i = 0; i < n && !bad; i++)
                    bad += !CHECK(recv[(size_t)r * n + i] == value(r, i, salt),
                                  "%s: allgather of %d, call %d: block %d [%d] = %g", name, n, call,
                                  r, i, recv[(size_t)r * n + i]);
            /* alltoall: block j of rank r is r's values of salt + j */
            for (int j = 0; j < p; j++)
                for (int i = 0; i < n; i++) send[(size_t)j * n + i] = value(me, i, salt + j);
            MPI_Alltoall(send, n, MPI_DOUBLE, recv, n, MPI_DOUBLE, comm);
            for (int r = 0; r < p && !bad; r++)
                for (int i = 0; i < n && !bad; i++)
                    bad += !CHECK(recv[(size_t)r * n + i] == value(r, i, salt + me),
                                  "%s: alltoall of %d, call %d: block %d [%d] = %g", name, n, call,
                                  r, i, recv[(size_t)r * n + i]);
        }
    }
    free(send);
    free(recv);
    return bad;
}

/* An allreduce and a bcast over the intercommunicator: each group gets the other's sum, and the
 * parents' rank 0 broadcasts to the children. */
static int across(MPI_Comm inter, int child) {
    int me, theirs, bad = 0;
    MPI_Comm_rank(inter, &me);
    MPI_Comm_remote_size(inter, &theirs);
    const int sent = 1 + me + (child ? 100 : 0);
    int sum = -1;
    MPI_Allreduce(&sent, &sum, 1, MPI_INT, MPI_SUM, inter);
    int want = theirs * (theirs + 1) / 2 + (child ? 0 : 100 * theirs); /* the other group's */
    bad += !CHECK(sum == want, "intercommunicator allreduce: %d, not %d", sum, want);
    int word = child ? -1 : 4242;
    const int root = child ? 0 : me == 0 ? MPI_ROOT : MPI_PROC_NULL;
    MPI_Bcast(&word, 1, MPI_INT, root, inter);
    if (child) bad += !CHECK(word == 4242, "intercommunicator bcast: %d", word);
    return bad;
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    const int child = argc > 1 && !strcmp(argv[1], "--child");
    int expect_served = 0;
    for (int i = 1; i < argc; i++) expect_served |= !strcmp(argv[i], "--expect-served");

    int bad = exercise(MPI_COMM_WORLD, child ? "children's world" : "parents' world");
    MPI_Comm inter, merged;
    if (child) {
        MPI_Comm_get_parent(&inter);
    } else {
        char *args[] = {"--child", expect_served ? "--expect-served" : NULL, NULL};
        int errors[CHILDREN];
        MPI_Comm_spawn(argv[0], args, CHILDREN, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errors);
        for (int i = 0; i < CHILDREN; i++)
            bad += !CHECK(errors[i] == MPI_SUCCESS, "child %d not spawned: %d", i, errors[i]);
    }
    MPI_Intercomm_merge(inter, child, &merged);
    bad += across(inter, child);
    bad += exercise(merged, "merged");
    if (expect_served)
        bad += !CHECK(check_dav_on(merged) > 0, "the merged communicator was not served");

    /* The children's failures to the parents, which count them as their own. */
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, merged);
    const int mine = child ? 0 : bad;
    int parents_bad = 0;
    MPI_Allreduce(&mine, &parents_bad, 1, MPI_INT, MPI_SUM, merged);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
    if (child) {
        MPI_Finalize();
        return 0;
    }
    if (check_rank == 0)
        CHECK(all == parents_bad, "%d failure(s) in the children", all - parents_bad);
    return check_finish("spawn");
}
