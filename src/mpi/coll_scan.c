/* MPI_Scan and MPI_Exscan (and their MPI-4 large-count twins) over shared memory.
 *
 * Like allreduce: count, datatype and op, the same on all ranks, decide. Rank r receives the
 * reduction over ranks 0..r (scan) or 0..r-1 (exscan: rank 0's recvbuf is left untouched); the
 * core combines in rank order, as MPI requires for non-commutative ops. MPI_IN_PLACE (the input
 * in recvbuf) is allowed for both. */
#include "mpi/call.h"
#include "mpi/reduction.h"

#include "coll/coll.h"
#include "shmcoll.h"

static shmcoll_status_t run_scan(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                 size_t count, const shmcoll_reduce_op_t *op, int root) {
    return shmcoll_scan(team, sendbuf, recvbuf, count, op);
}

static shmcoll_status_t run_exscan(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                   size_t count, const shmcoll_reduce_op_t *op, int root) {
    return shmcoll_exscan(team, sendbuf, recvbuf, count, op);
}

static int scan_any(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, int exclusive, int large) {
    static const char *const names[2][2] = {{"MPI_Scan", "MPI_Scan_c"},
                                            {"MPI_Exscan", "MPI_Exscan_c"}};
    shmcoll_mpi_call_t call;
    shmcoll_status_t status = shmcoll_mpi_call_begin(
        &call, comm, exclusive ? SHMCOLL_MPI_EXSCAN : SHMCOLL_MPI_SCAN, names[exclusive][large]);
    if (shmcoll_mpi_call_counted(&call) && !call.state->inter)
        call.bytes = shmcoll_mpi_call_bytes(datatype, count);
    if (status == SHMCOLL_OK)
        status =
            shmcoll_mpi_reduction_serve(&call, exclusive ? run_exscan : run_scan, sendbuf, recvbuf,
                                        count, datatype, op, 0, !exclusive || call.state->rank > 0);
    if (status != SHMCOLL_ERR_NOT_SUPPORTED) return shmcoll_mpi_call_end(&call, status);
    shmcoll_mpi_call_fallback(&call);
#if MPI_VERSION >= 4
    if (large && exclusive) return PMPI_Exscan_c(sendbuf, recvbuf, count, datatype, op, comm);
    if (large) return PMPI_Scan_c(sendbuf, recvbuf, count, datatype, op, comm);
#endif
    if (exclusive) return PMPI_Exscan(sendbuf, recvbuf, (int)count, datatype, op, comm);
    return PMPI_Scan(sendbuf, recvbuf, (int)count, datatype, op, comm);
}

SHMCOLL_API int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm) {
    return scan_any(sendbuf, recvbuf, count, datatype, op, comm, 0, 0);
}

SHMCOLL_API int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm) {
    return scan_any(sendbuf, recvbuf, count, datatype, op, comm, 1, 0);
}

#if MPI_VERSION >= 4
SHMCOLL_API int MPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return scan_any(sendbuf, recvbuf, count, datatype, op, comm, 0, 1);
}

SHMCOLL_API int MPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return scan_any(sendbuf, recvbuf, count, datatype, op, comm, 1, 1);
}
#endif
