/* One collective call on its way through shmcoll, the same way for every collective:
 *
 *     begin     is the communicator handled? (its group, or why not)
 *     payload   the statistics' bytes of the call (stats.h)
 *     prepare   the collective's own part: check the MPI arguments, translate datatype and op,
 *               lay out (or pack) the buffers as bytes, and describe the call to the group
 *               (call->args); or serve it at once without the group (one process, nothing to
 *               move), or reject it (NOT_SUPPORTED, with a reason)
 *     run       the group's one entry (group/group.h), with every member
 *     finish    unpack what was received into the user's layout
 *     end       count it, or raise the failure through the communicator's error handler
 *   or fallback the MPI library's own collective (PMPI_*), counted as such.
 * A collective is a descriptor (its name, prepare, payload and fallback) and a struct of its MPI
 * arguments. prepare may reject a call only from arguments every rank shares, before anything is
 * communicated, so that all ranks take the same path. */
#ifndef SHMCOLL_MPI_CALL_H
#define SHMCOLL_MPI_CALL_H

#include "mpi/blocks.h"
#include "mpi/comm_state.h"
#include "mpi/op.h"
#include "mpi/stats.h"

#include "core/coll_args.h"

#include <mpi.h>
#include <stdint.h>

typedef struct shmcoll_mpi_call {
    MPI_Comm comm;
    shmcoll_mpi_coll_t coll;
    const char *function;      /* "MPI_Allgather_c", for messages */
    shmcoll_mpi_comm_t *state; /* NULL when unknown (MPI_COMM_NULL, MPI not initialised) */
    shmcoll_group_t *group;    /* the group serving the call; NULL on one process */
    const char *reason;        /* why the call goes to the MPI library */
    const char *algo;          /* set when served without the group: done at once */
    uint64_t bytes;            /* payload, counted by the counting rank (stats.h) */
    uint64_t share;            /* this rank's share of a payload no rank knows whole */
    uint64_t dav;              /* DAV of copies made without the group (one process) */
    uint64_t team_dav;         /* the node team's DAV when the call began */
    uint64_t net_bytes;        /* the group's network bytes when the call began */

    /* The call as the group runs it, filled by prepare. */
    shmcoll_coll_args_t args;
    shmcoll_reduce_op_t rop;     /* reductions: the op as the kernels see it */
    shmcoll_mpi_op_ctx_t op_ctx; /* ... and what its trampoline needs */
    shmcoll_mpi_blocks_t send;   /* the send side as bytes */
    shmcoll_mpi_blocks_t recv;   /* the receive side as bytes, unpacked by finish */
    int unpack;                  /* finish unpacks recv ... */
    int unpack_skip;             /* ... but its block unpack_skip (-1: none) */
    size_t *sizes;               /* 4 x size of scratch for per-block bytes and offsets */
} shmcoll_mpi_call_t;

/* A collective of the MPI layer. */
typedef struct shmcoll_mpi_coll_desc {
    shmcoll_mpi_coll_t coll;
    const char *names[2]; /* the C name and the large-count one */
    shmcoll_status_t (*prepare)(shmcoll_mpi_call_t *call, const void *margs);
    /* The statistics' bytes of the call (stats.h); called only when they are counted. */
    void (*payload)(shmcoll_mpi_call_t *call, const void *margs);
    int (*fallback)(const void *margs, MPI_Comm comm, int large);
} shmcoll_mpi_coll_desc_t;

/* The whole sequence for a blocking collective with MPI arguments `margs`; returns the MPI code.
 */
int shmcoll_mpi_coll_run(const shmcoll_mpi_coll_desc_t *desc, const void *margs, MPI_Comm comm,
                         int large);

/* ---- For prepare ------------------------------------------------------------------------- */

/* Sends the call to the MPI library for `reason`: returns SHMCOLL_ERR_NOT_SUPPORTED. */
shmcoll_status_t shmcoll_mpi_call_reject(shmcoll_mpi_call_t *call, const char *reason);

/* The call is served without the group (one process, or nothing to move), under the name `algo`:
 * returns SHMCOLL_OK. */
shmcoll_status_t shmcoll_mpi_call_local(shmcoll_mpi_call_t *call, const char *algo);

/* The core's send buffer: NULL means in place there, so a user's NULL send buffer (valid with
 * nothing to send) becomes a pointer to nothing instead; a rank sending nothing is then not
 * read as one whose blocks are in its receive buffer. */
const void *shmcoll_mpi_call_sendbuf(int in_place, const void *sendbuf);

/* A copy made without the group (one process); counted in the DAV like the kernels' copies. */
void shmcoll_mpi_call_copy(shmcoll_mpi_call_t *call, void *dst, const void *src, size_t bytes);

/* Translates (datatype, op) into call->rop (call->args.op and net_op point at it); NOT_SUPPORTED
 * with the reason when shmcoll cannot reduce them. */
shmcoll_status_t shmcoll_mpi_call_op(shmcoll_mpi_call_t *call, MPI_Datatype datatype, MPI_Op op);

/* Whether statistics want this call's payload (stats on and the communicator's state known). */
int shmcoll_mpi_call_counted(const shmcoll_mpi_call_t *call);

/* Bytes of count elements of datatype for statistics; 0 when statistics are off or the type is
 * invalid (the MPI library will say so). */
uint64_t shmcoll_mpi_call_bytes(MPI_Datatype datatype, MPI_Count count);

/* The same for the sum of n counts (int, or MPI_Count when wide). */
uint64_t shmcoll_mpi_call_bytes_sum(MPI_Datatype datatype, const void *counts, int wide, int n);

#endif
