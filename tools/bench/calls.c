/* One call of a case's collective, to the MPI library (PMPI_*) or to shmcoll (MPI_*, which
 * resolves to libshmcoll because it is linked before the MPI library). */
#include "bench.h"

/* Both implementations get the very same argument list: the macro writes it once, so the two
 * calls cannot drift apart. `fn` is the MPI_ name; P##fn is its PMPI_ twin. */
#define CALL(fn, ...) (lib ? P##fn(__VA_ARGS__) : fn(__VA_ARGS__))

int shmcoll_bench_call_run(const shmcoll_bench_case_t *c, shmcoll_bench_impl_t impl) {
    const int lib = impl == SHMCOLL_BENCH_IMPL_MPI;
    MPI_Datatype t = shmcoll_bench_data_mpi_type(c->type, c->coll);
    const int n = (int)c->count, me = c->rank, root = c->root;
    void *sbuf = c->sendbuf, *rbuf = c->recvbuf;
    MPI_Comm comm = c->comm;
    switch (c->coll) {
    case SHMCOLL_BENCH_BARRIER:
        return CALL(MPI_Barrier, comm);
    case SHMCOLL_BENCH_BCAST:
        return CALL(MPI_Bcast, sbuf, n, t, root, comm);
    case SHMCOLL_BENCH_REDUCE:
        return CALL(MPI_Reduce, sbuf, rbuf, n, t, MPI_SUM, root, comm);
    case SHMCOLL_BENCH_ALLREDUCE:
        return CALL(MPI_Allreduce, sbuf, rbuf, n, t, MPI_SUM, comm);
    case SHMCOLL_BENCH_REDUCE_SCATTER_BLOCK:
        return CALL(MPI_Reduce_scatter_block, sbuf, rbuf, n, t, MPI_SUM, comm);
    case SHMCOLL_BENCH_REDUCE_SCATTER:
        return CALL(MPI_Reduce_scatter, sbuf, rbuf, c->recvcounts, t, MPI_SUM, comm);
    case SHMCOLL_BENCH_SCAN:
        return CALL(MPI_Scan, sbuf, rbuf, n, t, MPI_SUM, comm);
    case SHMCOLL_BENCH_EXSCAN:
        return CALL(MPI_Exscan, sbuf, rbuf, n, t, MPI_SUM, comm);
    case SHMCOLL_BENCH_ALLGATHER:
        return CALL(MPI_Allgather, sbuf, n, t, rbuf, n, t, comm);
    case SHMCOLL_BENCH_ALLGATHERV:
        return CALL(MPI_Allgatherv, sbuf, c->shares[me], t, rbuf, c->recvcounts, c->rdispls, t,
                    comm);
    case SHMCOLL_BENCH_GATHER:
        return CALL(MPI_Gather, sbuf, n, t, rbuf, n, t, root, comm);
    case SHMCOLL_BENCH_GATHERV:
        return CALL(MPI_Gatherv, sbuf, c->shares[me], t, rbuf, c->recvcounts, c->rdispls, t, root,
                    comm);
    case SHMCOLL_BENCH_SCATTER:
        return CALL(MPI_Scatter, sbuf, n, t, rbuf, n, t, root, comm);
    case SHMCOLL_BENCH_SCATTERV:
        return CALL(MPI_Scatterv, sbuf, c->sendcounts, c->sdispls, t, rbuf, c->shares[me], t, root,
                    comm);
    case SHMCOLL_BENCH_ALLTOALL:
        return CALL(MPI_Alltoall, sbuf, n, t, rbuf, n, t, comm);
    case SHMCOLL_BENCH_ALLTOALLV:
        return CALL(MPI_Alltoallv, sbuf, c->sendcounts, c->sdispls, t, rbuf, c->recvcounts,
                    c->rdispls, t, comm);
    default:
        return MPI_ERR_ARG;
    }
}
