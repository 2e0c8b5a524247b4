/* shmcoll's operations in flight move inside the MPI library's own progress loop.
 *
 * MPI requires that an operation a rank started completes while that rank is blocked in any MPI
 * call (MPI_Recv, MPI_Ssend, a wait on its own requests, a collective): a peer may wait for it.
 * The MPI library keeps that promise for its own operations by polling its progress engine in
 * every blocking call; shmcoll hooks its engine's quiet pass (core/task.h: the node teams' lanes,
 * no MPI call) into that loop:
 *   Open MPI   opal_progress_register, found with dlsym, called by opal_progress;
 *   MPICH      over UCX (Debian's ch4:ucx), ucp_worker_progress, which MPICH's progress loop calls
 *              on every poll: libshmcoll defines it, calls the pass and then UCX's own (the next
 *              definition in the link order).
 * A pass costs one load while nothing is in flight. With another MPICH device nothing is hooked:
 * operations then move only inside shmcoll's calls (and the progress thread, when on). */
#ifndef SHMCOLL_MPI_LIBRARY_PROGRESS_H
#define SHMCOLL_MPI_LIBRARY_PROGRESS_H

/* Hooks the pass into the MPI library (part of the one-time setup, after MPI_Init). */
void shmcoll_mpi_library_progress_install(void);

/* Unhooks it (MPI_Finalize, before the MPI library finalises). */
void shmcoll_mpi_library_progress_remove(void);

#endif
