/* Erroneous arguments that the MPI library refuses on the calling rank, which shmcoll therefore
 * hands it as they came, before anything else (docs/ARCHITECTURE.md, "Arguments the MPI library
 * refuses").
 *
 * MPI leaves an erroneous call's outcome to the implementation. The MPI libraries check some
 * arguments on each rank and return an error there at once, without communicating, while ranks
 * whose own arguments are right go on into the collective: MPICH's own tests then make a correct
 * call on the ranks that got the error, which meets the others' (errors/coll/noalias). A program
 * preloaded with shmcoll must get the same: the error, from the MPI library, on the same ranks, and
 * the call not counted by shmcoll (its calls on a communicator are counted alike on every rank, and
 * the correct call that follows is the one that matches the other ranks'). Where the MPI library
 * accepts the arguments, shmcoll serves them itself, with the meaning the call has in place.
 *
 * The checks are those of the MPI library shmcoll is built against, as its releases here make
 * them (MPICH 4.0 with its default error checking; Open MPI 4.1 with its parameter check):
 *
 * - MPICH: a send buffer that is the receive buffer, or the rank's own block of it, in every
 *   collective that has both (MPI_ERR_BUFFER, "Buffers must not be aliased"; the rules of each are
 *   in library_checks.c), unless MPIR_CVAR_COLL_ALIAS_CHECK=0 or MPIR_CVAR_ERROR_CHECKING=0 turn
 *   them off; a receive buffer MPI_IN_PLACE in allreduce and at a reduce's root.
 * - Open MPI: sendbuf == recvbuf in allreduce (more than one element) and at a reduce's root; a
 *   receive buffer MPI_IN_PLACE there; MPI_IN_PLACE as a reduce's send buffer off the root. Unless
 *   OMPI_MCA_mpi_param_check=0 turns them off.
 *
 * Each returns the reason (for SHMCOLL_VERBOSE), or NULL where the library accepts the arguments.
 * A call compares a few pointers; where the buffers may alias, the rank comes from the
 * communicator's state (comm_state.h), looked up without counting the call. */
#ifndef SHMCOLL_MPI_LIBRARY_CHECKS_H
#define SHMCOLL_MPI_LIBRARY_CHECKS_H

#include "core/coll_args.h"
#include "mpi/stats.h"

#include <mpi.h>

/* Reduce (at `root`), allreduce, scan and exscan. */
const char *shmcoll_mpi_refused_reduction(shmcoll_coll_kind_t kind, const void *sendbuf,
                                          const void *recvbuf, MPI_Count count, int root,
                                          MPI_Comm comm);

#if defined(MPICH_NUMVERSION)
/* Gather, scatter, allgather, alltoall and their v-variants (`coll`), with their MPI arguments
 * (counts and displs: int, or MPI_Count and MPI_Aint when wide; those of the v-variants' varying
 * sides, else NULL). */
const char *shmcoll_mpi_refused_move(shmcoll_mpi_coll_t coll, const void *sendbuf,
                                     MPI_Count sendcount, const void *sendcounts,
                                     const void *sdispls, MPI_Datatype sendtype,
                                     const void *recvbuf, MPI_Count recvcount,
                                     const void *recvcounts, const void *rdispls,
                                     MPI_Datatype recvtype, int root, int wide, MPI_Comm comm);

/* Reduce_scatter (`recvcounts`, int or MPI_Count when wide) and reduce_scatter_block (`count`). */
const char *shmcoll_mpi_refused_reduce_scatter(const void *sendbuf, const void *recvbuf,
                                               const void *recvcounts, MPI_Count count, int wide,
                                               MPI_Comm comm);
#else
/* Open MPI 4.1 accepts them all: nothing is asked, and the calls' path pays nothing (a call of
 * fourteen arguments stores six of them on the stack). */
#define shmcoll_mpi_refused_move(...)           ((const char *)NULL)
#define shmcoll_mpi_refused_reduce_scatter(...) ((const char *)NULL)
#endif

#endif
