/* The shared heap's line of SHMCOLL_STATS (heap_report.c). */
#ifndef SHMCOLL_MPI_HEAP_REPORT_H
#define SHMCOLL_MPI_HEAP_REPORT_H

/* Collective over MPI_COMM_WORLD: rank 0 prints the heap's line (README.md, "Reading the stats
 * line"). */
void shmcoll_mpi_heap_report(void);

#endif
