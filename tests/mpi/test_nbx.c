/* The non-blocking consensus of dynamic sparse data exchange (NBX, as PETSc's and other codes'
 * exchanges run it): each rank sends to targets only it knows, with synchronous sends, then
 * receives whatever arrives (MPI_Iprobe, MPI_Recv) until its sends are matched, then enters an
 * MPI_Ibarrier and goes on receiving and testing the barrier until it completes. The barrier's
 * completion is the proof that every message was received, so a barrier that completed early
 * loses messages, one that does not advance while its rank probes and receives hangs, and a test
 * that blocks starves the other ranks' sends.
 *
 * ROUNDS rounds on MPI_COMM_WORLD, each rank sending to the ranks it draws for the round (about
 * a third) a message of a length drawn for the round; tags alternate with the round's parity
 * (a rank that left round k may send for round k + 1 while another still receives for k). Every
 * ALLREDUCE_EVERY rounds a blocking allreduce of the messages received (after which the
 * communicator is set up at the shipped defaults, so the barriers after it are shmcoll's) must
 * give all the messages sent. Every message's contents and every round's count of messages are
 * checked. */
#include "mpi_check.h"

#include <stdlib.h>

#define ROUNDS          300
#define ALLREDUCE_EVERY 10
#define MAX_LEN         1000 /* ints */

/* Whether `from` sends to `to` in `round`. */
static int sends(int from, int to, int round) {
    return from != to && check_hash(from, (size_t)to, round) % 3 == 0;
}

static int element(int from, int round, int e) {
    return from * 100000 + round + e;
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    const int me = check_rank, p = check_size;
    int *out = check_alloc(sizeof(int) * (size_t)p * MAX_LEN),
        *in = check_alloc(sizeof(int) * MAX_LEN);
    MPI_Request *requests = check_alloc(sizeof(MPI_Request) * (size_t)p);
    MPI_Status *statuses = check_alloc(sizeof(MPI_Status) * (size_t)p);
    long received = 0, sent = 0; /* by this rank; by all ranks */
    for (int round = 0; round < ROUNDS; round++) {
        const int tag = 1 + round % 2, len = 1 + (int)(check_hash(round, 0, -1) % MAX_LEN);
        int n = 0, expected = 0;
        for (int to = 0; to < p; to++) {
            if (!sends(me, to, round)) continue;
            int *message = out + (size_t)n * MAX_LEN;
            for (int e = 0; e < len; e++) message[e] = element(me, round, e);
            MPI_Issend(message, len, MPI_INT, to, tag, MPI_COMM_WORLD, &requests[n++]);
        }
        for (int from = 0; from < p; from++) expected += sends(from, me, round);
        int got = 0, barrier_started = 0, done = 0;
        MPI_Request barrier = MPI_REQUEST_NULL;
        while (!done) {
            int arrived;
            MPI_Status status;
            MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &arrived, &status);
            if (arrived) {
                const int from = status.MPI_SOURCE;
                int count;
                MPI_Recv(in, MAX_LEN, MPI_INT, from, tag, MPI_COMM_WORLD, &status);
                MPI_Get_count(&status, MPI_INT, &count);
                got++;
                CHECK(sends(from, me, round) && count == len && in[0] == element(from, round, 0) &&
                          in[len - 1] == element(from, round, len - 1),
                      "round %d: a message of %d ints from rank %d is not the one it sent", round,
                      count, from);
            }
            if (!barrier_started) {
                int all_matched;
                MPI_Testall(n, requests, &all_matched, statuses);
                if (all_matched) {
                    MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
                    barrier_started = 1;
                }
            } else {
                MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
            }
        }
        CHECK(got == expected, "round %d: %d messages received, %d sent to this rank", round, got,
              expected);
        received += got;
        for (int from = 0; from < p; from++)
            for (int to = 0; to < p; to++) sent += sends(from, to, round);
        if (round % ALLREDUCE_EVERY == ALLREDUCE_EVERY - 1) {
            long all = -1;
            MPI_Allreduce(&received, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            CHECK(all == sent, "after round %d: %ld messages received in all, %ld sent", round, all,
                  sent);
        }
    }
    free(out);
    free(in);
    free(requests);
    free(statuses);
    return check_finish("nbx");
}
