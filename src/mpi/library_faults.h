/* Where the MPI library's own collective fails on arguments MPI allows, the calls shmcoll hands it
 * are given arguments it serves: the same call in other words (docs/ARCHITECTURE.md, "Where the
 * MPI library's own collective fails").
 *
 * - MPICH before 4.1.2 crashes (SIGSEGV) in its own blocking MPI_Reduce with MPI_IN_PLACE at a
 *   root other than 0 (pmodels/mpich#6540; 4.0.2: from 512 doubles on, p = 2-5; its
 *   MPI_Ireduce and MPI_Reduce_init are right).
 * - MPICH 4.0.2 aborts ("memcpy argument memory ranges overlap") in its own MPI_Reduce_scatter
 *   with MPI_IN_PLACE and uneven blocks from some 800 KB on (p = 2 and 3; blocking, non-blocking
 *   and persistent alike; MPI_Reduce_scatter_block is right). No fixed release is known here, so
 *   every MPICH is given the copy.
 *
 * shmcoll hands blocking calls to the MPI library on many of its paths (a communicator's first
 * calls, the measurement's turns, the MPI library's verdicts, the express path), so such a call
 * failed the job on some calls and not on others. For the blocking forms the input in recvbuf is
 * copied and passed as the send buffer, to shmcoll's ways and the MPI library's alike; the entry
 * point records no express run for such a call, whose arguments would send the next one to the
 * MPI library in place. The non-blocking and persistent forms of MPI_Reduce_scatter are left:
 * the copy would have to live as long as the MPI library's request, which shmcoll does not see. */
#ifndef SHMCOLL_MPI_LIBRARY_FAULTS_H
#define SHMCOLL_MPI_LIBRARY_FAULTS_H

#include <mpi.h>

#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40102000
#define SHMCOLL_MPI_REDUCE_IN_PLACE_FAULT 1
#else
#define SHMCOLL_MPI_REDUCE_IN_PLACE_FAULT 0
#endif
#if defined(MPICH_NUMVERSION)
#define SHMCOLL_MPI_REDUCE_SCATTER_IN_PLACE_FAULT 1
#else
#define SHMCOLL_MPI_REDUCE_SCATTER_IN_PLACE_FAULT 0
#endif

/* For a call whose *sendbuf is MPI_IN_PLACE: a copy of the `count` elements of `datatype` at
 * recvbuf, which *sendbuf then points to as to the elements' buffer; returns the copy to free
 * after the call, or NULL where none was made (the call goes as it came: no elements, a type of
 * negative extent, no memory). */
void *shmcoll_mpi_in_place_copy(const void **sendbuf, const void *recvbuf, MPI_Count count,
                                MPI_Datatype datatype);

/* After the call that was given the copy: frees it, and keeps the entry point from recording an
 * express run for the call's arguments. */
void shmcoll_mpi_in_place_done(void *copy);

#endif
