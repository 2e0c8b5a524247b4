/* The copies that keep the MPI library's own faults away from the calls shmcoll hands it. See
 * library_faults.h. */
#include "mpi/library_faults.h"

#include "mpi/express.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *shmcoll_mpi_in_place_copy(const void **sendbuf, const void *recvbuf, MPI_Count count,
                                MPI_Datatype datatype) {
    MPI_Count lb, extent, true_lb, true_extent;
    if (count <= 0 || PMPI_Type_get_extent_x(datatype, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent_x(datatype, &true_lb, &true_extent) != MPI_SUCCESS ||
        extent < 0 || true_extent <= 0)
        return NULL;
    const size_t span = (size_t)((count - 1) * extent + true_extent);
    unsigned char *copy = malloc(span);
    if (!copy) return NULL;
    memcpy(copy, (const unsigned char *)recvbuf + true_lb, span);
    *sendbuf = (const void *)((uintptr_t)copy - (uintptr_t)true_lb); /* element 0's address */
    return copy;
}

void shmcoll_mpi_in_place_done(void *copy) {
    if (!copy) return;
    free(copy);
    shmcoll_mpi_express_grant = NULL; /* the entry's arguments say in place (express.h) */
}
