/* What the collectives that move blocks without reducing them share: MPI_Allgather,
 * MPI_Gather, MPI_Scatter and MPI_Alltoall and their v-variants (coll_allgather.c,
 * coll_gather.c, coll_scatter.c, coll_alltoall.c). Their MPI arguments are all of one form, a send
 * side and a receive side, each a buffer of blocks of a datatype; MPI gives allgather and
 * alltoall the very same parameters, and gather and scatter the same with a root. So they share
 * one struct of arguments, one entry, one fallback to the MPI library and the layout of a side,
 * and gather and scatter, one the other's mirror, share their prepare and their check; the rest
 * of each (its statistics' payload, allgather's and alltoall's prepare and check) stays in its
 * own file. */
#ifndef SHMCOLL_MPI_MOVE_H
#define SHMCOLL_MPI_MOVE_H

#include "mpi/call.h"
#include "mpi/check.h"

#include <mpi.h>

/* One side in MPI's terms: `count` elements per block, or on the varying side of a v-variant
 * `counts` and `displs` per block (int, or MPI_Count and MPI_Aint for a large-count twin). */
typedef struct shmcoll_mpi_side {
    void *buf; /* a send side's is only read */
    MPI_Count count;
    const void *counts, *displs;
    MPI_Datatype datatype;
} shmcoll_mpi_side_t;

typedef struct shmcoll_mpi_move_args {
    shmcoll_mpi_coll_t coll; /* which collective: the fallback's */
    shmcoll_mpi_side_t send, recv;
    int root;    /* gather and scatter */
    int varying; /* the v-variant */
    int wide;    /* a large-count twin */
} shmcoll_mpi_move_args_t;

/* Any form (how, as shmcoll_mpi_coll_call) of descs[varying]: a collective, or its v-variant. */
int shmcoll_mpi_move_call(const shmcoll_mpi_coll_desc_t descs[2], const void *sendbuf,
                          MPI_Count sendcount, const void *sendcounts, const void *sdispls,
                          MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                          const void *recvcounts, const void *rdispls, MPI_Datatype recvtype,
                          int root, int varying, MPI_Comm comm, int large,
                          const shmcoll_mpi_how_t *how);

/* The datatype fields of the arguments (call.h): the send side's, then the receive side's. */
MPI_Datatype *shmcoll_mpi_move_types(void *margs, int i);

/* The count and displacement arrays of the arguments significant at `rank` (call.h): the send
 * side's counts and displacements, then the receive side's. */
const void **shmcoll_mpi_move_arrays(void *margs, int i, int rank, int size, size_t *bytes);

/* The MPI library's own collective (a->coll) with the same arguments: every descriptor's
 * fallback. */
int shmcoll_mpi_move_fallback(const void *margs, MPI_Comm comm, int large,
                              const shmcoll_mpi_how_t *how);

/* The n blocks of a side (blocks.h: `bytes` and `offsets` are the caller's arrays of n when it
 * varies); a derived datatype marks the call (call->derived). */
shmcoll_status_t shmcoll_mpi_move_blocks(shmcoll_mpi_call_t *call, const shmcoll_mpi_move_args_t *a,
                                         const shmcoll_mpi_side_t *side, int n,
                                         shmcoll_mpi_blocks_t *b, size_t *bytes, size_t *offsets);

/* The bytes of one block, alike on every rank, of the collectives without a v: this rank's own
 * block (gather's, allgather's and alltoall's send side, scatter's receive side), or the other
 * side's block where the own one is MPI_IN_PLACE (the descriptors' key, call.h). */
size_t shmcoll_mpi_move_key(const void *margs, const shmcoll_mpi_comm_t *state);

/* The key (call.h) of the v-variants: allgatherv's longest block, which every rank knows; for
 * gatherv, scatterv and alltoallv, whose sizes only some ranks know, this rank's share (key_local):
 * its own block (gatherv's send side, scatterv's receive side; an in-place root's block of the
 * other side), alltoallv's mean block sent; the ranks' mean of it is then gatherv's and scatterv's
 * mean block and alltoallv's (calibrate.h agrees on it). */
size_t shmcoll_mpi_move_key_v(const void *margs, const shmcoll_mpi_comm_t *state);

/* Statistics' bytes (stats.h) of a side's n blocks: its counts' sum on the varying side. */
uint64_t shmcoll_mpi_move_bytes(const shmcoll_mpi_move_args_t *a, const shmcoll_mpi_side_t *side,
                                int n);

/* The prepare (call.h) of gather and scatter, one the other's mirror (scatter: 1). Every member
 * has its own block (gather's send side, scatter's receive side; none at an in-place root) and
 * the root the p blocks of the other side; the send side is packed before the collective, the
 * receive side unpacked after it. */
shmcoll_status_t shmcoll_mpi_move_rooted_prepare(shmcoll_mpi_call_t *call,
                                                 const shmcoll_mpi_move_args_t *a, int scatter);

/* The checks (check.h) of gather and scatter, one the other's mirror: the root; every member's
 * own block (gather's send side, scatter's receive side) against the root's side of p blocks
 * (one size for all; for the v-variant the root's counts[j] against member j's block). */
void shmcoll_mpi_move_check_rooted(const shmcoll_mpi_move_args_t *a, int scatter, int rank,
                                   shmcoll_mpi_check_t *check);

/* The descriptors (call.h) of a collective, descs[0], and of its v-variant, descs[1]: the one
 * prepare and the one payload of its file serve both, shmcoll_mpi_move_fallback falls back. */
#define SHMCOLL_MPI_MOVE_DESCS(prepare, payload, coll, Name, IName, coll_v, Name_v, IName_v)       \
    {                                                                                              \
        SHMCOLL_MPI_MOVE_DESC(prepare, payload, coll, Name, IName, shmcoll_mpi_move_key),          \
            SHMCOLL_MPI_MOVE_DESC(prepare, payload, coll_v, Name_v, IName_v,                       \
                                  shmcoll_mpi_move_key_v)                                          \
    }
#define SHMCOLL_MPI_MOVE_DESC(prepare, payload, coll, Name, IName, key)                            \
    {                                                                                              \
        coll, SHMCOLL_MPI_NAMES(Name, IName), prepare, payload, shmcoll_mpi_move_fallback,         \
            sizeof(shmcoll_mpi_move_args_t), key, shmcoll_mpi_move_types, shmcoll_mpi_move_arrays, \
            (coll) == SHMCOLL_MPI_GATHERV || (coll) == SHMCOLL_MPI_SCATTERV ||                     \
                (coll) == SHMCOLL_MPI_ALLTOALLV                                                    \
    }

/* The parameters of the collectives without a v (allgather and alltoall; gather and scatter with
 * their root), with the count type of their form (call.h). */
#define SHMCOLL_MPI_MOVE_PARAMS(Count, Displ)                                                      \
    (const void *sendbuf, Count sendcount, MPI_Datatype sendtype, void *recvbuf, Count recvcount,  \
     MPI_Datatype recvtype, MPI_Comm comm)
#define SHMCOLL_MPI_MOVE_ROOTED_PARAMS(Count, Displ)                                               \
    (const void *sendbuf, Count sendcount, MPI_Datatype sendtype, void *recvbuf, Count recvcount,  \
     MPI_Datatype recvtype, int root, MPI_Comm comm)
/* Their names. */
#define SHMCOLL_MPI_MOVE_NAMES (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)
#define SHMCOLL_MPI_MOVE_ROOTED_NAMES                                                              \
    (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)

/* The entry points of the collective MPI_<Name> (no v) of descs[0]: `params` one of the above,
 * `root` the root's parameter (or 0). */
#define SHMCOLL_MPI_MOVE_ENTRIES(Name, IName, params, names, descs, root)                          \
    SHMCOLL_MPI_ENTRIES(Name, IName, params, names, shmcoll_mpi_move_call,                         \
                        (descs, sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount,      \
                         NULL, NULL, recvtype, root, 0, comm))

#endif
