/* MPI_Alloc_mem and MPI_Free_mem served from shmcoll's shared heap (alloc_mem.c). */
#ifndef SHMCOLL_MPI_ALLOC_MEM_H
#define SHMCOLL_MPI_ALLOC_MEM_H

#include <stdint.h>

/* MPI_Alloc_mem calls this process served from its heap and passed to the MPI library. */
void shmcoll_mpi_alloc_mem_counts(uint64_t *from_heap, uint64_t *from_library);

#endif
