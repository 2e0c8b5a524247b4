/* MPI datatypes as shmcoll sees them.
 *
 * Predefined types map to a shmcoll_dtype_t, found by comparing handles at run time (in Open MPI
 * they are addresses, in MPICH integers). For derived types the layout matters: a dense layout is
 * moved as it lies, any other is packed (pack.h). Reductions take contiguous layouts only (op.h).
 */
#ifndef SHMCOLL_MPI_DATATYPE_H
#define SHMCOLL_MPI_DATATYPE_H

#include "base/status.h"
#include "kernels/kernels.h"

#include <mpi.h>

typedef struct shmcoll_mpi_layout {
    int predefined;        /* a predefined type with a shmcoll_dtype_t */
    shmcoll_dtype_t dtype; /* valid when predefined */
    int index;             /* row in the predefined table (for names), -1 otherwise */
    int contiguous;        /* element i's data is exactly [i * size, (i + 1) * size) */
    int dense;             /* contiguous, and those bytes are in type-signature order: count
                            * elements are their packed form, so they move without packing */
    MPI_Count size;        /* bytes of data in one element (MPI_Type_size) */
    MPI_Count extent;      /* bytes between consecutive elements */
    MPI_Count span;        /* bytes from an element's start to the end of its last data byte */
} shmcoll_mpi_layout_t;

/* Builds the table of predefined types (part of the one-time setup, after MPI_Init). */
void shmcoll_mpi_datatype_init(void);

/* Layout of `datatype`; SHMCOLL_ERR_INVALID for MPI_DATATYPE_NULL or a query that fails. */
shmcoll_status_t shmcoll_mpi_datatype_layout(MPI_Datatype datatype, shmcoll_mpi_layout_t *layout);

/* The walk behind layout.dense for a derived type (datatype_walk.c); 0 when unsure. */
int shmcoll_mpi_datatype_dense(MPI_Datatype datatype);

/* Whether `datatype` is predefined in MPI's sense: named, or a parameterised Fortran type
 * (MPI_Type_create_f90_*). Derived types, even MPI_Type_dup of a named one, are not. */
int shmcoll_mpi_datatype_predefined(MPI_Datatype datatype);

/* Whether `datatype` is in the predefined table: a compare of handles, no call into the MPI
 * library, so any handle may be asked (one a rank passes where MPI ignores it, too). A handle in
 * the table is named: no derived type can ever take it. */
int shmcoll_mpi_datatype_known(MPI_Datatype datatype);

/* MPI name of a predefined table row, e.g. "MPI_DOUBLE". */
const char *shmcoll_mpi_datatype_name(int index);

/* Rows in the predefined table (for tables indexed by row). */
#define SHMCOLL_MPI_DATATYPE_MAX 64

#endif
