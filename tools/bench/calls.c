/* One call of a case's collective, to the MPI library (PMPI_*) or to shmcoll (MPI_*, which
 * resolves to libshmcoll because it is linked before the MPI library), in any of its forms. */
#include "bench.h"

/* Open MPI 4 has the persistent collectives as an extension, named MPIX_*_init. */
#if MPI_VERSION < 4 && defined(OPEN_MPI)
#include <mpi-ext.h>
#define PERSISTENT(Name) MPIX_##Name##_init
#else
#define PERSISTENT(Name) MPI_##Name##_init
#endif

/* Both implementations and all three forms get the very same argument list: the macro writes it
 * once, so the calls cannot drift apart. `Name` and `IName` are the blocking and non-blocking
 * names without MPI_; P##... are the PMPI_ twins. */
#define ONE(fn, ...)          (lib ? P##fn(__VA_ARGS__) : fn(__VA_ARGS__))
#define ONE_EXPANDED(fn, ...) ONE(fn, __VA_ARGS__)
#define CALL(Name, IName, ...)                                                                     \
    (form == SHMCOLL_BENCH_FORM_NONBLOCKING ? ONE(MPI_##IName, __VA_ARGS__, request)               \
     : form == SHMCOLL_BENCH_FORM_PERSISTENT                                                       \
         ? ONE_EXPANDED(PERSISTENT(Name), __VA_ARGS__, MPI_INFO_NULL, request)                     \
         : ONE(MPI_##Name, __VA_ARGS__))

int shmcoll_bench_call_wait(const shmcoll_bench_case_t *c, shmcoll_bench_impl_t impl,
                            MPI_Request *request) {
    const int lib = impl == SHMCOLL_BENCH_IMPL_MPI;
    MPI_Status status[1]; /* not MPI_STATUSES_IGNORE: compilers take MPICH's for an array */
    return c->waitall ? ONE(MPI_Waitall, 1, request, status) : ONE(MPI_Wait, request, status);
}

int shmcoll_bench_call_run(const shmcoll_bench_case_t *c, shmcoll_bench_impl_t impl) {
    MPI_Request request;
    int rc;
    switch (c->form) {
    case SHMCOLL_BENCH_FORM_NONBLOCKING:
        rc = shmcoll_bench_call_post(c, impl, c->form, &request);
        return rc == MPI_SUCCESS ? shmcoll_bench_call_wait(c, impl, &request) : rc;
    case SHMCOLL_BENCH_FORM_PERSISTENT:
        request = c->persistent[impl];
        rc = impl == SHMCOLL_BENCH_IMPL_MPI ? PMPI_Start(&request) : MPI_Start(&request);
        return rc == MPI_SUCCESS ? shmcoll_bench_call_wait(c, impl, &request) : rc;
    default:
        return shmcoll_bench_call_post(c, impl, c->form, NULL);
    }
}

int shmcoll_bench_call_post(const shmcoll_bench_case_t *c, shmcoll_bench_impl_t impl,
                            shmcoll_bench_form_t form, MPI_Request *request) {
    const int lib = impl == SHMCOLL_BENCH_IMPL_MPI;
    MPI_Datatype t = shmcoll_bench_data_mpi_type(c->type, c->coll);
    const int n = (int)c->count, me = c->rank, root = c->root;
    void *sbuf = c->sendbuf, *rbuf = c->recvbuf;
    MPI_Comm comm = c->comm;
    switch (c->coll) {
    case SHMCOLL_BENCH_BARRIER:
        return CALL(Barrier, Ibarrier, comm);
    case SHMCOLL_BENCH_BCAST:
        return CALL(Bcast, Ibcast, sbuf, n, t, root, comm);
    case SHMCOLL_BENCH_REDUCE:
        return CALL(Reduce, Ireduce, sbuf, rbuf, n, t, MPI_SUM, root, comm);
    case SHMCOLL_BENCH_ALLREDUCE:
        return CALL(Allreduce, Iallreduce, sbuf, rbuf, n, t, MPI_SUM, comm);
    case SHMCOLL_BENCH_REDUCE_SCATTER_BLOCK:
        return CALL(Reduce_scatter_block, Ireduce_scatter_block, sbuf, rbuf, n, t, MPI_SUM, comm);
    case SHMCOLL_BENCH_REDUCE_SCATTER:
        return CALL(Reduce_scatter, Ireduce_scatter, sbuf, rbuf, c->recvcounts, t, MPI_SUM, comm);
    case SHMCOLL_BENCH_SCAN:
        return CALL(Scan, Iscan, sbuf, rbuf, n, t, MPI_SUM, comm);
    case SHMCOLL_BENCH_EXSCAN:
        return CALL(Exscan, Iexscan, sbuf, rbuf, n, t, MPI_SUM, comm);
    case SHMCOLL_BENCH_ALLGATHER:
        return CALL(Allgather, Iallgather, sbuf, n, t, rbuf, n, t, comm);
    case SHMCOLL_BENCH_ALLGATHERV:
        return CALL(Allgatherv, Iallgatherv, sbuf, c->shares[me], t, rbuf, c->recvcounts,
                    c->rdispls, t, comm);
    case SHMCOLL_BENCH_GATHER:
        return CALL(Gather, Igather, sbuf, n, t, rbuf, n, t, root, comm);
    case SHMCOLL_BENCH_GATHERV:
        return CALL(Gatherv, Igatherv, sbuf, c->shares[me], t, rbuf, c->recvcounts, c->rdispls, t,
                    root, comm);
    case SHMCOLL_BENCH_SCATTER:
        return CALL(Scatter, Iscatter, sbuf, n, t, rbuf, n, t, root, comm);
    case SHMCOLL_BENCH_SCATTERV:
        return CALL(Scatterv, Iscatterv, sbuf, c->sendcounts, c->sdispls, t, rbuf, c->shares[me], t,
                    root, comm);
    case SHMCOLL_BENCH_ALLTOALL:
        return CALL(Alltoall, Ialltoall, sbuf, n, t, rbuf, n, t, comm);
    case SHMCOLL_BENCH_ALLTOALLV:
        return CALL(Alltoallv, Ialltoallv, sbuf, c->sendcounts, c->sdispls, t, rbuf, c->recvcounts,
                    c->rdispls, t, comm);
    default:
        return MPI_ERR_ARG;
    }
}
