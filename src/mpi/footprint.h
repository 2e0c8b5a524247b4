/* SHMCOLL_STATS=1: the memory the teams held, as the budget counted it (core/budget.h), printed by
 * rank 0 of MPI_COMM_WORLD at MPI_Finalize after the statistics lines. See footprint.c. */
#ifndef SHMCOLL_MPI_FOOTPRINT_H
#define SHMCOLL_MPI_FOOTPRINT_H

/* Collective over MPI_COMM_WORLD. */
void shmcoll_mpi_footprint_report(void);

#endif
