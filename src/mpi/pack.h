/* Packing typed buffers into their signature's bytes, and back, through the MPI library.
 *
 * MPI only requires type *signatures* to match across ranks, so a collective's ranks may
 * describe the same data with different layouts. Shared memory moves bytes; the bytes every rank
 * agrees on are the packed form (the signature's bytes, in signature order, in the native
 * representation: this node's ranks are homogeneous). A rank whose layout is not already that
 * form packs into, or unpacks from, a temporary. MPI-4 packs any size in one call (MPI_Pack_c);
 * before MPI-4, whose positions are int, the elements are packed in pieces of at most INT_MAX
 * bytes, which only fails for a single element larger than that. */
#ifndef SHMCOLL_MPI_PACK_H
#define SHMCOLL_MPI_PACK_H

#include "base/status.h"

#include <mpi.h>
#include <stddef.h>

/* count elements of datatype at buf into exactly `bytes` bytes at out. SHMCOLL_ERR_INVALID when
 * the MPI library refuses or the packed size differs from `bytes` (logged). */
shmcoll_status_t shmcoll_mpi_pack(const void *buf, MPI_Count count, MPI_Datatype datatype,
                                  void *out, size_t bytes, MPI_Comm comm);

/* The reverse: `bytes` packed bytes at in into count elements of datatype at buf. */
shmcoll_status_t shmcoll_mpi_unpack(const void *in, size_t bytes, void *buf, MPI_Count count,
                                    MPI_Datatype datatype, MPI_Comm comm);

#endif
