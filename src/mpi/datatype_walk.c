/* The constructor tree of derived datatypes (MPI_Type_get_envelope / get_contents).
 *
 * Dense: a type is dense when its data fills [0, size) of each element in type-signature order
 * and the extent equals the size. Contiguity alone is not enough for collectives whose ranks may
 * use different layouts of one signature: a struct {double at 8, double at 0} is contiguous but
 * its bytes are not in signature order. So only named types and DUP / CONTIGUOUS / RESIZED of
 * dense types count as dense; everything else is packed, which is always right.
 *
 * get_contents returns new handles for derived inner types, which the walker frees. Types with
 * more parts than a small fixed bound are not followed (the answer is then "not dense", decided
 * by the type alone), so the walk never allocates. */
#include "mpi/datatype.h"

#define MAX_PARTS 64
#define MAX_DEPTH 16

typedef struct contents {
    int combiner;
    int ntypes;
    MPI_Datatype types[MAX_PARTS];
} contents_t;

/* Predefined handles (named ones, and the parameterised Fortran types, which MPI also counts as
 * predefined) must not be freed. */
static int is_predefined(MPI_Datatype datatype) {
    int nints, naddrs, ntypes, combiner;
    return PMPI_Type_get_envelope(datatype, &nints, &naddrs, &ntypes, &combiner) == MPI_SUCCESS &&
           (combiner == MPI_COMBINER_NAMED || combiner == MPI_COMBINER_F90_REAL ||
            combiner == MPI_COMBINER_F90_COMPLEX || combiner == MPI_COMBINER_F90_INTEGER);
}

/* The combiner and inner types of `datatype`; 0 when the query fails or the type is too large to
 * follow. For a named type only the combiner is set. */
static int contents_get(MPI_Datatype datatype, contents_t *c) {
    int nints, naddrs;
    c->ntypes = 0;
    if (PMPI_Type_get_envelope(datatype, &nints, &naddrs, &c->ntypes, &c->combiner) != MPI_SUCCESS)
        return 0;
    if (c->combiner == MPI_COMBINER_NAMED) {
        c->ntypes = 0;
        return 1;
    }
    if (nints > MAX_PARTS || naddrs > MAX_PARTS || c->ntypes > MAX_PARTS) {
        c->ntypes = 0;
        return 0;
    }
    int ints[MAX_PARTS];
    MPI_Aint addrs[MAX_PARTS];
    if (PMPI_Type_get_contents(datatype, nints, naddrs, c->ntypes, ints, addrs, c->types) !=
        MPI_SUCCESS) {
        c->ntypes = 0;
        return 0;
    }
    return 1;
}

static void contents_free(contents_t *c) {
    for (int i = 0; i < c->ntypes; i++)
        if (!is_predefined(c->types[i])) PMPI_Type_free(&c->types[i]);
    c->ntypes = 0;
}

static int fills_elements(MPI_Datatype datatype) {
    MPI_Count size, lb, extent, true_lb, true_extent;
    return PMPI_Type_size_x(datatype, &size) == MPI_SUCCESS &&
           PMPI_Type_get_extent_x(datatype, &lb, &extent) == MPI_SUCCESS &&
           PMPI_Type_get_true_extent_x(datatype, &true_lb, &true_extent) == MPI_SUCCESS &&
           size == extent && true_lb == 0 && true_extent == size;
}

static int dense_of(MPI_Datatype datatype, int depth) {
    contents_t c;
    if (depth > MAX_DEPTH || !fills_elements(datatype) || !contents_get(datatype, &c)) return 0;
    int dense = c.combiner == MPI_COMBINER_NAMED;
    if ((c.combiner == MPI_COMBINER_DUP || c.combiner == MPI_COMBINER_CONTIGUOUS ||
         c.combiner == MPI_COMBINER_RESIZED) &&
        c.ntypes == 1)
        dense = dense_of(c.types[0], depth + 1);
    contents_free(&c);
    return dense;
}

int shmcoll_mpi_datatype_dense(MPI_Datatype datatype) {
    return datatype != MPI_DATATYPE_NULL && dense_of(datatype, 0);
}

int shmcoll_mpi_datatype_predefined(MPI_Datatype datatype) {
    return datatype != MPI_DATATYPE_NULL && is_predefined(datatype);
}
