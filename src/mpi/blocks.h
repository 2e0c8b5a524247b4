/* One side of a collective at one rank — what it sends, or what it receives — as the bytes the
 * shared-memory algorithms move.
 *
 * In MPI's terms a side is one or more blocks of a typed buffer: block j is count(j) elements of
 * the datatype at buf + displ(j) * extent, with a uniform count (blocks back to back) or per-block
 * counts and displacements (the v-variants; int arrays, or MPI_Count / MPI_Aint arrays for the
 * large-count twins). coll/ sees block j as bytes(j) bytes at base + offset(j). When the layout
 * is dense (datatype.h) the blocks are used where they lie; otherwise they live packed, back to
 * back, in a temporary that is filled by packing before the collective (a send side) or unpacked
 * after it (a receive side). Either way the byte counts are the signature's, which all ranks agree
 * on whatever their layouts. Packing is local, so whether a rank packs never changes the protocol.
 */
#ifndef SHMCOLL_MPI_BLOCKS_H
#define SHMCOLL_MPI_BLOCKS_H

#include "base/status.h"
#include "mpi/datatype.h"

#include <mpi.h>
#include <stddef.h>

typedef struct shmcoll_mpi_blocks {
    /* MPI's view */
    char *buf;
    MPI_Datatype datatype;
    shmcoll_mpi_layout_t layout;
    int n;                       /* number of blocks */
    MPI_Count count;             /* uniform blocks: elements each (counts == NULL) */
    const void *counts, *displs; /* per-block elements and displacements (in extents) */
    int wide;                    /* counts are MPI_Count and displs MPI_Aint, not int */
    /* coll/'s view */
    size_t block;            /* uniform blocks: bytes each, block j at base + j * block */
    size_t *bytes, *offsets; /* per-block blocks: the caller's arrays of n */
    size_t total;            /* bytes of all blocks */
    char *base;
    void *temp; /* the packed blocks, when not dense */
} shmcoll_mpi_blocks_t;

/* Element j of an MPI count array: int, or MPI_Count when wide. */
static inline MPI_Count shmcoll_mpi_count_at(const void *counts, int wide, int j) {
    return wide ? ((const MPI_Count *)counts)[j] : ((const int *)counts)[j];
}

/* Describes n blocks of buf: `counts` and `displs` per block, or when counts is NULL `count`
 * elements each, back to back; `bytes` and `offsets` are the caller's arrays of n for the former.
 * SHMCOLL_ERR_INVALID for an invalid datatype, a negative count or a missing array. */
shmcoll_status_t shmcoll_mpi_blocks_init(shmcoll_mpi_blocks_t *b, const void *buf, MPI_Count count,
                                         const void *counts, const void *displs, int wide,
                                         MPI_Datatype datatype, int n, size_t *bytes,
                                         size_t *offsets);

/* One block of count elements of a datatype whose layout the caller already has. */
void shmcoll_mpi_blocks_init_one(shmcoll_mpi_blocks_t *b, const void *buf, MPI_Count count,
                                 MPI_Datatype datatype, const shmcoll_mpi_layout_t *layout);

/* Lays the blocks out for coll/: where they lie when dense, else in a temporary (allocated here).
 * A dense side with negative displacements gets a base below buf, so offsets are never negative.
 */
shmcoll_status_t shmcoll_mpi_blocks_map(shmcoll_mpi_blocks_t *b);

/* With a temporary: packs every block but `skip` (-1: none) into it, or only block `only`. */
shmcoll_status_t shmcoll_mpi_blocks_pack(shmcoll_mpi_blocks_t *b, int skip, MPI_Comm comm);
shmcoll_status_t shmcoll_mpi_blocks_pack_one(shmcoll_mpi_blocks_t *b, int only, MPI_Comm comm);

/* With a temporary: unpacks every block but `skip` (-1: none) into the user's buffer. */
shmcoll_status_t shmcoll_mpi_blocks_unpack(shmcoll_mpi_blocks_t *b, int skip, MPI_Comm comm);

/* Bytes of block j, and (after map) where coll/ finds it. */
size_t shmcoll_mpi_blocks_bytes(const shmcoll_mpi_blocks_t *b, int j);
char *shmcoll_mpi_blocks_at(const shmcoll_mpi_blocks_t *b, int j);

/* Frees the temporary, if any. */
void shmcoll_mpi_blocks_free(shmcoll_mpi_blocks_t *b);

#endif
