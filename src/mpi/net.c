/* The network between a group's nodes, over the MPI library (group/net.h).
 *
 * Channel c is a communicator of the members whose node rank is c, one per node, ranked by node
 * (PMPI_Comm_split at group setup). A network step is the MPI library's own non-blocking
 * collective on that communicator (PMPI_Iallreduce, PMPI_Ibcast, ...): the library's tuned
 * inter-node algorithms and transport (UCX, libfabric, TCP) do the network part, and testing the
 * request with PMPI_Test progresses it. Byte movement is MPI_BYTE; reductions use the caller's
 * datatype and op (args.net_op: the MPI layer's op context). Counts travel as int: a composition
 * checks at its start that its steps fit (shmcoll_net_fits). Errors of the channel communicators
 * return to us (MPI_ERRORS_RETURN) and end the collective with the library's message. */
#include "mpi/net.h"
#include "mpi/op.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One step in flight: its request, and the int arrays of the v-collectives (live until done). */
typedef struct net_request {
    MPI_Request request;
    int *ints; /* 4 x nodes */
} net_request_t;

static void *in_place_or(const void *buf) {
    return buf ? (void *)buf : MPI_IN_PLACE;
}

/* The counts and displacements of nodes blocks as int (checked to fit by the composition). */
static void to_int(const size_t *from, int n, int *to) {
    for (int i = 0; i < n; i++) to[i] = from ? (int)from[i] : 0;
}

/* Hands `coll` to the MPI library: its non-blocking collective into r->request, or with r NULL
 * its blocking one. The int arrays of the v-collectives live in `ints` until the call is done.
 * Returns the MPI code (MPI_ERR_OTHER for a kind that has no network step). */
static int call(const shmcoll_mpi_net_t *net, const shmcoll_coll_args_t *a, const int *ints,
                MPI_Request *req) {
    const int n = net->nodes, count = (int)a->count;
    const shmcoll_mpi_op_ctx_t *op = a->net_op;
    MPI_Comm comm = net->comm;
    const int *sc = ints, *sd = ints ? ints + n : NULL;
    const int *rcn = ints ? ints + 2 * n : NULL, *rd = ints ? ints + 3 * n : NULL;
    switch (a->kind) {
    case SHMCOLL_KIND_BARRIER:
        return req ? PMPI_Ibarrier(comm, req) : PMPI_Barrier(comm);
    case SHMCOLL_KIND_BCAST:
        return req ? PMPI_Ibcast(a->recvbuf, count, MPI_BYTE, a->root, comm, req)
                   : PMPI_Bcast(a->recvbuf, count, MPI_BYTE, a->root, comm);
    case SHMCOLL_KIND_REDUCE:
        return req ? PMPI_Ireduce(in_place_or(a->sendbuf), a->recvbuf, count, op->datatype, op->op,
                                  a->root, comm, req)
                   : PMPI_Reduce(in_place_or(a->sendbuf), a->recvbuf, count, op->datatype, op->op,
                                 a->root, comm);
    case SHMCOLL_KIND_ALLREDUCE:
        return req ? PMPI_Iallreduce(in_place_or(a->sendbuf), a->recvbuf, count, op->datatype,
                                     op->op, comm, req)
                   : PMPI_Allreduce(in_place_or(a->sendbuf), a->recvbuf, count, op->datatype,
                                    op->op, comm);
    case SHMCOLL_KIND_REDUCE_SCATTER:
        return req ? PMPI_Ireduce_scatter(in_place_or(a->sendbuf), a->recvbuf, rcn, op->datatype,
                                          op->op, comm, req)
                   : PMPI_Reduce_scatter(in_place_or(a->sendbuf), a->recvbuf, rcn, op->datatype,
                                         op->op, comm);
    case SHMCOLL_KIND_EXSCAN:
        return req ? PMPI_Iexscan(in_place_or(a->sendbuf), a->recvbuf, count, op->datatype, op->op,
                                  comm, req)
                   : PMPI_Exscan(in_place_or(a->sendbuf), a->recvbuf, count, op->datatype, op->op,
                                 comm);
    case SHMCOLL_KIND_ALLGATHERV:
        return req ? PMPI_Iallgatherv(in_place_or(a->sendbuf), (int)a->sendbytes, MPI_BYTE,
                                      a->recvbuf, rcn, rd, MPI_BYTE, comm, req)
                   : PMPI_Allgatherv(in_place_or(a->sendbuf), (int)a->sendbytes, MPI_BYTE,
                                     a->recvbuf, rcn, rd, MPI_BYTE, comm);
    case SHMCOLL_KIND_GATHERV:
        return req ? PMPI_Igatherv(in_place_or(a->sendbuf), (int)a->sendbytes, MPI_BYTE, a->recvbuf,
                                   rcn, rd, MPI_BYTE, a->root, comm, req)
                   : PMPI_Gatherv(in_place_or(a->sendbuf), (int)a->sendbytes, MPI_BYTE, a->recvbuf,
                                  rcn, rd, MPI_BYTE, a->root, comm);
    case SHMCOLL_KIND_SCATTERV:
        return req ? PMPI_Iscatterv(a->sendbuf, sc, sd, MPI_BYTE, in_place_or(a->recvbuf),
                                    (int)a->recvbytes, MPI_BYTE, a->root, comm, req)
                   : PMPI_Scatterv(a->sendbuf, sc, sd, MPI_BYTE, in_place_or(a->recvbuf),
                                   (int)a->recvbytes, MPI_BYTE, a->root, comm);
    case SHMCOLL_KIND_ALLTOALLV:
        return req ? PMPI_Ialltoallv(in_place_or(a->sendbuf), sc, sd, MPI_BYTE, a->recvbuf, rcn, rd,
                                     MPI_BYTE, comm, req)
                   : PMPI_Alltoallv(in_place_or(a->sendbuf), sc, sd, MPI_BYTE, a->recvbuf, rcn, rd,
                                    MPI_BYTE, comm);
    default:
        return MPI_ERR_OTHER;
    }
}

/* The int arrays of a v-collective (4 x nodes: send counts and displacements, receive counts
 * and displacements), or NULL for the others; *failed when there is no memory for them. */
static int *ints_of(const shmcoll_mpi_net_t *net, const shmcoll_coll_args_t *a, int *failed) {
    *failed = 0;
    if (a->kind != SHMCOLL_KIND_ALLGATHERV && a->kind != SHMCOLL_KIND_GATHERV &&
        a->kind != SHMCOLL_KIND_SCATTERV && a->kind != SHMCOLL_KIND_ALLTOALLV &&
        a->kind != SHMCOLL_KIND_REDUCE_SCATTER)
        return NULL;
    const int n = net->nodes;
    int *ints = malloc(4 * (size_t)n * sizeof *ints);
    if (!ints) {
        *failed = 1;
        return NULL;
    }
    to_int(a->sendcounts, n, ints);
    to_int(a->sdispls, n, ints + n);
    to_int(a->recvcounts, n, ints + 2 * n);
    to_int(a->rdispls, n, ints + 3 * n);
    return ints;
}

/* The message of a failed MPI call, into `error`. */
static shmcoll_status_t failed(int rc, char *error, size_t error_len) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    PMPI_Error_string(rc, text, &len);
    snprintf(error, error_len, "network step failed in the MPI library: %.*s", len, text);
    return SHMCOLL_ERR_PEER_DEAD;
}

static int known_kind(shmcoll_coll_kind_t kind) {
    switch (kind) {
    case SHMCOLL_KIND_BARRIER:
    case SHMCOLL_KIND_BCAST:
    case SHMCOLL_KIND_REDUCE:
    case SHMCOLL_KIND_ALLREDUCE:
    case SHMCOLL_KIND_REDUCE_SCATTER:
    case SHMCOLL_KIND_EXSCAN:
    case SHMCOLL_KIND_ALLGATHERV:
    case SHMCOLL_KIND_GATHERV:
    case SHMCOLL_KIND_SCATTERV:
    case SHMCOLL_KIND_ALLTOALLV:
        return 1;
    default:
        return 0;
    }
}

static shmcoll_status_t start(void *ctx, const shmcoll_net_coll_t *coll, void **out) {
    shmcoll_mpi_net_t *net = ctx;
    if (coll->channel != net->channel || net->comm == MPI_COMM_NULL)
        return SHMCOLL_ERR_INVALID; /* only a channel's leader starts its steps */
    if (!known_kind(coll->args.kind)) return SHMCOLL_ERR_NOT_SUPPORTED;
    net_request_t *r = calloc(1, sizeof *r);
    int no_memory = !r;
    if (r) r->ints = ints_of(net, &coll->args, &no_memory);
    if (no_memory) {
        free(r);
        return SHMCOLL_ERR_NO_MEMORY;
    }
    if (call(net, &coll->args, r->ints, &r->request) != MPI_SUCCESS) {
        free(r->ints);
        free(r);
        return SHMCOLL_ERR_SYSTEM;
    }
    *out = r;
    return SHMCOLL_OK;
}

static shmcoll_status_t run(void *ctx, const shmcoll_net_coll_t *coll, char *error,
                            size_t error_len) {
    shmcoll_mpi_net_t *net = ctx;
    if (coll->channel != net->channel || net->comm == MPI_COMM_NULL) return SHMCOLL_ERR_INVALID;
    if (!known_kind(coll->args.kind)) return SHMCOLL_ERR_NOT_SUPPORTED;
    int no_memory;
    int *ints = ints_of(net, &coll->args, &no_memory);
    if (no_memory) return SHMCOLL_ERR_NO_MEMORY;
    const int rc = call(net, &coll->args, ints, NULL);
    free(ints);
    return rc == MPI_SUCCESS ? SHMCOLL_OK : failed(rc, error, error_len);
}

static shmcoll_status_t test(void *ctx, void *request, char *error, size_t error_len) {
    net_request_t *r = request;
    int done = 0, rc = PMPI_Test(&r->request, &done, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && !done) return SHMCOLL_IN_PROGRESS;
    free(r->ints);
    free(r);
    return rc == MPI_SUCCESS ? SHMCOLL_OK : failed(rc, error, error_len);
}

shmcoll_status_t shmcoll_mpi_net_init(shmcoll_mpi_net_t *net, MPI_Comm comm, int node,
                                      int node_rank, int nodes, int channels) {
    memset(net, 0, sizeof *net);
    net->comm = MPI_COMM_NULL;
    net->channel = node_rank < channels ? node_rank : -1;
    net->nodes = nodes;
    /* Collective over comm: every member calls it once, at the same point. */
    if (PMPI_Comm_split(comm, net->channel >= 0 ? net->channel : MPI_UNDEFINED, node, &net->comm) !=
        MPI_SUCCESS)
        return SHMCOLL_ERR_SYSTEM;
    if (net->comm != MPI_COMM_NULL) PMPI_Comm_set_errhandler(net->comm, MPI_ERRORS_RETURN);
    return SHMCOLL_OK;
}

void shmcoll_mpi_net_fini(shmcoll_mpi_net_t *net) {
    if (net->comm != MPI_COMM_NULL) PMPI_Comm_free(&net->comm);
}

/* The blocking form is the MPI library's fast one: Open MPI's blocking collectives are two to
 * three times faster than its non-blocking ones (8 B 11 against 19 us, 1 MiB 0.3 against 0.85 ms,
 * two nodes over TCP), and MPICH's small ones (8 B-4 KiB between two nodes of two ranks) took 20
 * to 40% less time blocking than non-blocking and tested (measured side by side in the simulated
 * cluster). MPICH's large ones are the other way round: calls of 2 nodes x 2 ranks moving 1 MiB
 * and more took up to three times longer with blocking steps (allgather of 4 x 16 MiB 114 ms
 * against 36; bcast of 2 MiB 0.99 against 1.19 ms... 16 MiB 9.5 against 10.0 with the MPI
 * library's own at 11.3 and 14.7 in the same runs), those of 256 KiB and less less: MPICH's steps
 * block up to calls of 512 KiB. With blocking steps, non-blocking collectives across nodes go to
 * the MPI library (group/compose.c). */
#if defined(OPEN_MPI)
#define NET_BLOCK_MAX SIZE_MAX
#else
#define NET_BLOCK_MAX ((size_t)512 << 10)
#endif

shmcoll_net_t shmcoll_mpi_net_interface(shmcoll_mpi_net_t *net, int channels) {
    return (shmcoll_net_t){.nchannels = channels,
                           .start = start,
                           .test = test,
                           .run = run,
                           .ctx = net,
                           .block_max = NET_BLOCK_MAX};
}
