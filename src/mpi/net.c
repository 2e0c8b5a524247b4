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

static shmcoll_status_t start(void *ctx, const shmcoll_net_coll_t *coll, void **out) {
    shmcoll_mpi_net_t *net = ctx;
    const shmcoll_coll_args_t *a = &coll->args;
    if (coll->channel != net->channel || net->comm == MPI_COMM_NULL)
        return SHMCOLL_ERR_INVALID; /* only a channel's leader starts its steps */
    const int n = net->nodes;
    net_request_t *r = calloc(1, sizeof *r);
    if (!r) return SHMCOLL_ERR_NO_MEMORY;
    const shmcoll_mpi_op_ctx_t *op = a->net_op;
    const int count = (int)a->count;
    MPI_Comm comm = net->comm;
    MPI_Request *req = &r->request;
    int rc;
    if (a->kind == SHMCOLL_KIND_ALLGATHERV || a->kind == SHMCOLL_KIND_GATHERV ||
        a->kind == SHMCOLL_KIND_SCATTERV || a->kind == SHMCOLL_KIND_ALLTOALLV ||
        a->kind == SHMCOLL_KIND_REDUCE_SCATTER) {
        r->ints = malloc(4 * (size_t)n * sizeof *r->ints);
        if (!r->ints) {
            free(r);
            return SHMCOLL_ERR_NO_MEMORY;
        }
        to_int(a->sendcounts, n, r->ints);
        to_int(a->sdispls, n, r->ints + n);
        to_int(a->recvcounts, n, r->ints + 2 * n);
        to_int(a->rdispls, n, r->ints + 3 * n);
    }
    int *sc = r->ints, *sd = r->ints ? r->ints + n : NULL;
    int *rcn = r->ints ? r->ints + 2 * n : NULL, *rd = r->ints ? r->ints + 3 * n : NULL;
    switch (a->kind) {
    case SHMCOLL_KIND_BARRIER:
        rc = PMPI_Ibarrier(comm, req);
        break;
    case SHMCOLL_KIND_BCAST:
        rc = PMPI_Ibcast(a->recvbuf, count, MPI_BYTE, a->root, comm, req);
        break;
    case SHMCOLL_KIND_REDUCE:
        rc = PMPI_Ireduce(in_place_or(a->sendbuf), a->recvbuf, count, op->datatype, op->op, a->root,
                          comm, req);
        break;
    case SHMCOLL_KIND_ALLREDUCE:
        rc = PMPI_Iallreduce(in_place_or(a->sendbuf), a->recvbuf, count, op->datatype, op->op, comm,
                             req);
        break;
    case SHMCOLL_KIND_REDUCE_SCATTER:
        rc = PMPI_Ireduce_scatter(in_place_or(a->sendbuf), a->recvbuf, rcn, op->datatype, op->op,
                                  comm, req);
        break;
    case SHMCOLL_KIND_EXSCAN:
        rc = PMPI_Iexscan(in_place_or(a->sendbuf), a->recvbuf, count, op->datatype, op->op, comm,
                          req);
        break;
    case SHMCOLL_KIND_ALLGATHERV:
        rc = PMPI_Iallgatherv(in_place_or(a->sendbuf), (int)a->sendbytes, MPI_BYTE, a->recvbuf, rcn,
                              rd, MPI_BYTE, comm, req);
        break;
    case SHMCOLL_KIND_GATHERV:
        rc = PMPI_Igatherv(in_place_or(a->sendbuf), (int)a->sendbytes, MPI_BYTE, a->recvbuf, rcn,
                           rd, MPI_BYTE, a->root, comm, req);
        break;
    case SHMCOLL_KIND_SCATTERV:
        rc = PMPI_Iscatterv(a->sendbuf, sc, sd, MPI_BYTE, a->recvbuf ? a->recvbuf : MPI_IN_PLACE,
                            (int)a->recvbytes, MPI_BYTE, a->root, comm, req);
        break;
    case SHMCOLL_KIND_ALLTOALLV:
        rc = PMPI_Ialltoallv(a->sendbuf ? a->sendbuf : MPI_IN_PLACE, sc, sd, MPI_BYTE, a->recvbuf,
                             rcn, rd, MPI_BYTE, comm, req);
        break;
    default:
        free(r->ints);
        free(r);
        return SHMCOLL_ERR_NOT_SUPPORTED;
    }
    if (rc != MPI_SUCCESS) {
        free(r->ints);
        free(r);
        return SHMCOLL_ERR_SYSTEM;
    }
    *out = r;
    return SHMCOLL_OK;
}

static shmcoll_status_t test(void *ctx, void *request, char *error, size_t error_len) {
    net_request_t *r = request;
    int done = 0, rc = PMPI_Test(&r->request, &done, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && !done) return SHMCOLL_IN_PROGRESS;
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        PMPI_Error_string(rc, text, &len);
        snprintf(error, error_len, "network step failed in the MPI library: %.*s", len, text);
    }
    free(r->ints);
    free(r);
    return rc == MPI_SUCCESS ? SHMCOLL_OK : SHMCOLL_ERR_PEER_DEAD;
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

shmcoll_net_t shmcoll_mpi_net_interface(shmcoll_mpi_net_t *net, int channels) {
    return (shmcoll_net_t){.nchannels = channels, .start = start, .test = test, .ctx = net};
}
