/* MPI datatypes as shmcoll sees them.
 *
 * Predefined types map to a shmcoll_dtype_t, found by comparing handles at run time (in Open MPI
 * they are addresses, in MPICH integers). For derived types only the layout matters: reduce and
 * allreduce take any contiguous layout (through the user-function path), bcast takes any layout
 * (packing what is not dense). */
#ifndef SHMCOLL_MPI_DATATYPE_H
#define SHMCOLL_MPI_DATATYPE_H

#include "core/status.h"
#include "kernels/kernels.h"

#include <mpi.h>

typedef struct shmcoll_mpi_layout {
    int predefined;        /* a predefined type with a shmcoll_dtype_t */
    shmcoll_dtype_t dtype; /* valid when predefined */
    int index;             /* row in the predefined table (for names), -1 otherwise */
    int contiguous;        /* element i's data is exactly [i * size, (i + 1) * size) */
    MPI_Count size;        /* bytes of data in one element (MPI_Type_size) */
    MPI_Count extent;      /* bytes between consecutive elements */
    MPI_Count span;        /* bytes from an element's start to the end of its last data byte */
} shmcoll_mpi_layout_t;

/* Builds the table of predefined types (part of the one-time setup, after MPI_Init). */
void shmcoll_mpi_datatype_init(void);

/* Layout of `datatype`; SHMCOLL_ERR_INVALID for MPI_DATATYPE_NULL or a query that fails. */
shmcoll_status_t shmcoll_mpi_datatype_layout(MPI_Datatype datatype, shmcoll_mpi_layout_t *layout);

/* Whether `count` elements of `datatype` are their type signature's bytes, in signature order,
 * contiguous from the buffer address: then bcast moves the buffer itself, else it packs. */
shmcoll_status_t shmcoll_mpi_datatype_dense(MPI_Datatype datatype, int *dense);

/* MPI name of a predefined table row, e.g. "MPI_DOUBLE". */
const char *shmcoll_mpi_datatype_name(int index);

/* Rows in the predefined table (for tables indexed by row). */
#define SHMCOLL_MPI_DATATYPE_MAX 64

#endif
