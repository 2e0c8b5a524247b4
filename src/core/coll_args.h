/* A collective call as the algorithms see it: its kind and its arguments, MPI-free, in bytes for
 * data movement and in elements (with a reduction descriptor) for reductions.
 *
 * Every member of a team passes its own arguments; those MPI requires to be equal on all ranks
 * (kind, root, counts of the non-v collectives, op, in-place use) are equal here too, and they
 * are the only input of any decision that changes the protocol. */
#ifndef SHMCOLL_CORE_COLL_ARGS_H
#define SHMCOLL_CORE_COLL_ARGS_H

#include "kernels/reduce_op.h"

#include <stddef.h>

typedef enum shmcoll_coll_kind {
    SHMCOLL_KIND_BARRIER,
    SHMCOLL_KIND_BCAST,
    SHMCOLL_KIND_REDUCE,
    SHMCOLL_KIND_ALLREDUCE,
    SHMCOLL_KIND_REDUCE_SCATTER,
    SHMCOLL_KIND_REDUCE_SCATTER_BLOCK,
    SHMCOLL_KIND_SCAN,
    SHMCOLL_KIND_EXSCAN,
    SHMCOLL_KIND_ALLGATHER,
    SHMCOLL_KIND_ALLGATHERV,
    SHMCOLL_KIND_GATHER,
    SHMCOLL_KIND_GATHERV,
    SHMCOLL_KIND_SCATTER,
    SHMCOLL_KIND_SCATTERV,
    SHMCOLL_KIND_ALLTOALL,
    SHMCOLL_KIND_ALLTOALLV,
    SHMCOLL_KIND_COUNT
} shmcoll_coll_kind_t;

/* The bit of `kind` in a set of kinds (a registry row serves such a set). */
#define SHMCOLL_KIND_BIT(kind) (1u << (kind))

/* What each kind is, for the code that handles every kind alike. */
typedef struct shmcoll_coll_kind_info {
    const char *name;      /* "barrier", "bcast", ... */
    unsigned reduces : 1;  /* has an op, counts elements */
    unsigned rooted : 1;   /* has a root */
    unsigned in_place : 1; /* MPI_IN_PLACE is all or nothing (not at a root only) */
    unsigned varying : 1;  /* per-member counts (the v-variants, reduce_scatter) */
} shmcoll_coll_kind_info_t;

extern const shmcoll_coll_kind_info_t shmcoll_coll_kinds[SHMCOLL_KIND_COUNT];

/* "barrier", "bcast", ...; NULL past the end. */
static inline const char *shmcoll_coll_kind_name(shmcoll_coll_kind_t kind) {
    return (unsigned)kind < SHMCOLL_KIND_COUNT ? shmcoll_coll_kinds[kind].name : NULL;
}
/* The kind named `name`, or -1. */
int shmcoll_coll_kind_parse(const char *name);

/* Which arguments a kind reads:
 *   barrier                 nothing
 *   bcast                   recvbuf (the buffer), count bytes, root
 *   reduce, allreduce       sendbuf, recvbuf, count elements, op (+ root for reduce)
 *   reduce_scatter_block    sendbuf (p blocks), recvbuf, count elements per block, op
 *   reduce_scatter          the same with recvcounts[p] elements per block
 *   scan, exscan            sendbuf, recvbuf, count elements, op
 *   allgather, gather       sendbuf, recvbuf, count bytes per block (+ root)
 *   scatter                 sendbuf, recvbuf, count bytes per block, root
 *   alltoall                sendbuf, recvbuf, count bytes per block
 *   allgatherv              sendbuf, recvbuf, recvcounts[p] / rdispls[p] bytes (all members)
 *   gatherv                 sendbuf, sendbytes (own block), recvbuf, recvcounts / rdispls (root)
 *   scatterv                sendbuf, sendcounts / sdispls (root), recvbuf, recvbytes, root
 *   alltoallv               sendbuf, sendcounts / sdispls, recvbuf, recvcounts / rdispls
 * sendbuf NULL means in place, with MPI's meaning for each kind (for scatter(v), recvbuf NULL at
 * the root). */
typedef struct shmcoll_coll_args {
    shmcoll_coll_kind_t kind;
    const void *sendbuf;
    void *recvbuf;
    size_t count;
    const shmcoll_reduce_op_t *op;
    int root;
    const size_t *sendcounts, *sdispls;
    const size_t *recvcounts, *rdispls;
    size_t sendbytes, recvbytes;
    /* Reductions across nodes: what the network needs to reduce with op (the MPI layer's
     * datatype and op), opaque below the MPI layer. */
    const void *net_op;
    /* A registry row asked for by name (the candidates the MPI layer measures, mpi/calibrate.h),
     * used where it serves the call; NULL, or a row that does not serve: the selector's choice.
     * The same on every member. */
    const char *row;
} shmcoll_coll_args_t;

#endif
