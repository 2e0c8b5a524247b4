/* MPI_Alloc_mem and MPI_Free_mem served from shmcoll's shared heap (alloc_mem.c). */
#ifndef SHMCOLL_MPI_ALLOC_MEM_H
#define SHMCOLL_MPI_ALLOC_MEM_H

#include <stddef.h>
#include <stdint.h>

/* A block of the shared heap, and its release, with the heap's re-entry guard set (heap_malloc.c):
 * whatever the heap allocates for itself meanwhile comes from the C library, never from the heap
 * again (under SHMCOLL_HEAP=malloc, which interposes malloc). */
void *shmcoll_mpi_heap_alloc(size_t bytes);
void shmcoll_mpi_heap_free(void *p);

/* MPI_Alloc_mem calls this process served from its heap and passed to the MPI library. */
void shmcoll_mpi_alloc_mem_counts(uint64_t *from_heap, uint64_t *from_library);

#endif
