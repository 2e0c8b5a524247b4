/* Every persistent collective (MPI_*_init) started again and again, each start with new values,
 * every result checked, and freed: on one node the group serves the starts; across nodes with
 * blocking network steps (the default) the group declines them at init and every start is the
 * MPI library's non-blocking collective on the request's own communicator. Not the MPI library's
 * persistent collective: MPICH 4.0's return wrong results (gather, scatter, allgather on 2
 * ranks) or fail in MPI_Wait ("Invalid communicator", 3 ranks or more), which this test catches
 * wherever they would serve.
 *
 * With --blocking-first N, N blocking calls of the same kind and arguments come before each init,
 * so that the band has a measured verdict the request follows (request.c): run under
 * SHMCOLL_CALIBRATE_MARGIN=-100000 every request is then the MPI library's at every start, its
 * non-blocking collective on the request's own communicator. */
#include "mpi_check.h"
#include "persistent_names.h"

#include <stdlib.h>
#include <string.h>

#define N      4 /* elements per block */
#define STARTS 3

enum kind {
    BCAST,
    REDUCE,
    ALLREDUCE,
    GATHER,
    GATHERV,
    SCATTER,
    SCATTERV,
    ALLGATHER,
    ALLGATHERV,
    ALLTOALL,
    ALLTOALLV,
    SCAN,
    EXSCAN,
    REDUCE_SCATTER_BLOCK,
    KINDS
};
static const char *const names[KINDS] = {"bcast",      "reduce",
                                         "allreduce",  "gather",
                                         "gatherv",    "scatter",
                                         "scatterv",   "allgather",
                                         "allgatherv", "alltoall",
                                         "alltoallv",  "scan",
                                         "exscan",     "reduce_scatter_block"};

/* Element i of rank r's send buffer at start s. */
static double val(int s, int r, int i) {
    return 1000.0 * s + 100.0 * r + i;
}

/* Kind k's persistent request in *req, or with req NULL its blocking call. */
#define FORM(name, ...)                                                                            \
    (req ? MPI_##name##_init(__VA_ARGS__, MPI_INFO_NULL, req) : MPI_##name(__VA_ARGS__))

static void init(enum kind k, double *snd, double *rcv, const int *cnt, const int *dsp,
                 MPI_Request *req) {
    const MPI_Comm w = MPI_COMM_WORLD;
    switch (k) {
    case BCAST:
        FORM(Bcast, snd, N, MPI_DOUBLE, 0, w);
        break;
    case REDUCE:
        FORM(Reduce, snd, rcv, N, MPI_DOUBLE, MPI_SUM, 0, w);
        break;
    case ALLREDUCE:
        FORM(Allreduce, snd, rcv, N, MPI_DOUBLE, MPI_SUM, w);
        break;
    case GATHER:
        FORM(Gather, snd, N, MPI_DOUBLE, rcv, N, MPI_DOUBLE, 0, w);
        break;
    case GATHERV:
        FORM(Gatherv, snd, N, MPI_DOUBLE, rcv, cnt, dsp, MPI_DOUBLE, 0, w);
        break;
    case SCATTER:
        FORM(Scatter, snd, N, MPI_DOUBLE, rcv, N, MPI_DOUBLE, 0, w);
        break;
    case SCATTERV:
        FORM(Scatterv, snd, cnt, dsp, MPI_DOUBLE, rcv, N, MPI_DOUBLE, 0, w);
        break;
    case ALLGATHER:
        FORM(Allgather, snd, N, MPI_DOUBLE, rcv, N, MPI_DOUBLE, w);
        break;
    case ALLGATHERV:
        FORM(Allgatherv, snd, N, MPI_DOUBLE, rcv, cnt, dsp, MPI_DOUBLE, w);
        break;
    case ALLTOALL:
        FORM(Alltoall, snd, N, MPI_DOUBLE, rcv, N, MPI_DOUBLE, w);
        break;
    case ALLTOALLV:
        FORM(Alltoallv, snd, cnt, dsp, MPI_DOUBLE, rcv, cnt, dsp, MPI_DOUBLE, w);
        break;
    case SCAN:
        FORM(Scan, snd, rcv, N, MPI_DOUBLE, MPI_SUM, w);
        break;
    case EXSCAN:
        FORM(Exscan, snd, rcv, N, MPI_DOUBLE, MPI_SUM, w);
        break;
    default:
        FORM(Reduce_scatter_block, snd, rcv, N, MPI_DOUBLE, MPI_SUM, w);
    }
}

/* The sum over ranks [from, to) of element i at start s. */
static double sum(int s, int from, int to, int i) {
    double total = 0;
    for (int r = from; r < to; r++) total += val(s, r, i);
    return total;
}

/* Checks this rank's result of kind k at start s; 0 on the first wrong element. */
static int check(enum kind k, int s, const double *snd, const double *rcv) {
    const int me = check_rank, p = check_size;
    for (int b = 0; b < p; b++)
        for (int i = 0; i < N; i++) {
            const int at = b * N + i; /* the element of block b */
            double want;
            switch (k) {
            case BCAST:
                if (b) return 1;
                if (!CHECK(snd[i] == val(s, 0, i), "bcast start %d [%d]: %g", s, i, snd[i]))
                    return 0;
                continue;
            case REDUCE:
            case ALLREDUCE:
                if (b || (k == REDUCE && me)) return 1;
                want = sum(s, 0, p, i);
                break;
            case GATHER:
            case GATHERV:
                if (me) return 1;
                want = val(s, b, i); /* block b from rank b */
                break;
            case SCATTER:
            case SCATTERV:
            case REDUCE_SCATTER_BLOCK:
                if (b) return 1;
                want = k == REDUCE_SCATTER_BLOCK ? sum(s, 0, p, me * N + i) : val(s, 0, me * N + i);
                break;
            case ALLGATHER:
            case ALLGATHERV:
                want = val(s, b, i);
                break;
            case ALLTOALL:
            case ALLTOALLV:
                want = val(s, b, me * N + i);
                break;
            case SCAN:
            case EXSCAN:
                if (b || (k == EXSCAN && me == 0)) return 1;
                want = sum(s, 0, k == SCAN ? me + 1 : me, i);
                break;
            default:
                return 1;
            }
            if (!CHECK(rcv[at] == want, "%s start %d, block %d [%d]: %g, expected %g", names[k], s,
                       b, i, rcv[at], want))
                return 0;
        }
    return 1;
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    const int p = check_size;
    const int first = argc > 2 && !strcmp(argv[1], "--blocking-first") ? atoi(argv[2]) : 0;
    double *snd = malloc((size_t)p * N * sizeof *snd), *rcv = malloc((size_t)p * N * sizeof *rcv);
    int *cnt = malloc((size_t)p * sizeof *cnt), *dsp = malloc((size_t)p * sizeof *dsp);
    if (!CHECK(snd && rcv && cnt && dsp, "no memory")) return check_finish("test_persistent_kinds");
    for (int r = 0; r < p; r++) cnt[r] = N, dsp[r] = N * r;
    for (int k = 0; k < KINDS; k++) {
        MPI_Request req;
        for (int i = 0; i < p * N; i++) snd[i] = val(0, check_rank, i);
        for (int c = 0; c < first; c++) init((enum kind)k, snd, rcv, cnt, dsp, NULL);
        init((enum kind)k, snd, rcv, cnt, dsp, &req);
        for (int s = 1; s <= STARTS; s++) {
            for (int i = 0; i < p * N; i++) {
                snd[i] = k == BCAST && check_rank ? -1 : val(s, check_rank, i);
                rcv[i] = -7;
            }
            MPI_Start(&req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            check((enum kind)k, s, snd, rcv); /* every start on every rank, checked or not */
        }
        MPI_Request_free(&req);
    }
    free(snd);
    free(rcv);
    free(cnt);
    free(dsp);
    return check_finish("test_persistent_kinds");
}
