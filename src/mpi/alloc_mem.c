/* MPI_Alloc_mem and MPI_Free_mem: memory suited to communication, from shmcoll's shared heap.
 *
 * MPI_Alloc_mem is the MPI standard's own way to ask for such memory (mpi4py: MPI.Alloc_mem).
 * shmcoll serves it from the process's shared heap (heap/heap.h), whose arenas the other ranks of
 * the node can map: collectives whose buffers all come from there move each block once
 * (docs/HEAP.md). SHMCOLL_HEAP=off, SHMCOLL_DISABLE=1, or a heap that cannot serve the request
 * (no address space left) hand the call to the MPI library; MPI_Free_mem gives each pointer back
 * to whichever allocated it (one comparison tells). The Fortran bindings are in
 * fortran_alloc_mem.c. */
#include "mpi/alloc_mem.h"

#include "base/config.h"
#include "heap/heap.h"
#include "shmcoll.h"

#include <mpi.h>
#include <stdatomic.h>

static _Atomic uint64_t served, passed;

SHMCOLL_API int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr) {
    if (size >= 0 && !shmcoll_config()->disable && shmcoll_heap_mode() != SHMCOLL_HEAP_OFF) {
        void *p = shmcoll_mpi_heap_alloc((size_t)size);
        if (p) {
            *(void **)baseptr = p;
            atomic_fetch_add_explicit(&served, 1, memory_order_relaxed);
            return MPI_SUCCESS;
        }
    }
    atomic_fetch_add_explicit(&passed, 1, memory_order_relaxed);
    return PMPI_Alloc_mem(size, info, baseptr);
}

SHMCOLL_API int MPI_Free_mem(void *base) {
    if (!shmcoll_heap_owns(base)) return PMPI_Free_mem(base);
    shmcoll_mpi_heap_free(base);
    return MPI_SUCCESS;
}

void shmcoll_mpi_alloc_mem_counts(uint64_t *from_heap, uint64_t *from_library) {
    *from_heap = atomic_load_explicit(&served, memory_order_relaxed);
    *from_library = atomic_load_explicit(&passed, memory_order_relaxed);
}
