/* Packing through PMPI_Pack / PMPI_Unpack. See pack.h.
 *
 * MPICH (4.0.2) refuses MPI_BOTTOM, a NULL address, in MPI_Pack and MPI_Unpack, although MPI
 * allows it for types of absolute addresses. Such a buffer is described instead from the address
 * of its first data byte, with a type shifted back by that address (the same bytes, in the same
 * order), which every MPI library takes. */
#include "mpi/pack.h"

#include "base/log.h"

#include <limits.h>

/* The elements to (un)pack: the caller's, or the shifted description of an MPI_BOTTOM buffer. */
typedef struct elements {
    char *buf;
    MPI_Count count;
    MPI_Datatype datatype;
    MPI_Datatype shifted; /* to free, or MPI_DATATYPE_NULL */
} elements_t;

static shmcoll_status_t elements_of(void *buf, MPI_Count count, MPI_Datatype datatype,
                                    elements_t *e) {
    *e = (elements_t){buf, count, datatype, MPI_DATATYPE_NULL};
    if (buf != MPI_BOTTOM || count == 0) return SHMCOLL_OK;
    MPI_Aint anchor = 0, true_extent = 0; /* anchor: the first data byte's address */
    if (count > INT_MAX ||
        PMPI_Type_get_true_extent(datatype, &anchor, &true_extent) != MPI_SUCCESS)
        return SHMCOLL_ERR_INVALID;
    int blocklength = (int)count;
    MPI_Aint displacement = -anchor;
    if (PMPI_Type_create_hindexed(1, &blocklength, &displacement, datatype, &e->shifted) !=
            MPI_SUCCESS ||
        PMPI_Type_commit(&e->shifted) != MPI_SUCCESS)
        return SHMCOLL_ERR_INVALID;
    *e = (elements_t){(char *)MPI_BOTTOM + anchor, 1, e->shifted, e->shifted};
    return SHMCOLL_OK;
}

static void elements_free(elements_t *e) {
    if (e->shifted != MPI_DATATYPE_NULL) PMPI_Type_free(&e->shifted);
}

#if MPI_VERSION >= 4

/* Packs (pack = 1) or unpacks in one call. */
static shmcoll_status_t pack_all(int pack, const elements_t *e, char *packed, size_t bytes,
                                 MPI_Comm comm) {
    MPI_Count position = 0;
    int rc =
        pack ? PMPI_Pack_c(e->buf, e->count, e->datatype, packed, (MPI_Count)bytes, &position, comm)
             : PMPI_Unpack_c(packed, (MPI_Count)bytes, &position, e->buf, e->count, e->datatype,
                             comm);
    if (rc == MPI_SUCCESS && position == (MPI_Count)bytes) return SHMCOLL_OK;
    shmcoll_log_error("MPI_%s_c of %lld elements: %lld of %zu bytes (error %d)",
                      pack ? "Pack" : "Unpack", (long long)e->count, (long long)position, bytes,
                      rc);
    return SHMCOLL_ERR_INVALID;
}

#else

/* Elements per piece so that a piece's packed bytes and its element count fit an int; 0 when a
 * single element does not. */
static MPI_Count piece_elements(MPI_Datatype datatype, MPI_Count *extent) {
    MPI_Count size = 0, lb = 0;
    if (PMPI_Type_size_x(datatype, &size) != MPI_SUCCESS ||
        PMPI_Type_get_extent_x(datatype, &lb, extent) != MPI_SUCCESS || size > INT_MAX)
        return 0;
    return size ? INT_MAX / size : INT_MAX;
}

/* Packs (pack = 1) or unpacks the elements piece by piece; each piece starts a new position. */
static shmcoll_status_t pack_all(int pack, const elements_t *e, char *packed, size_t bytes,
                                 MPI_Comm comm) {
    char *typed = e->buf;
    const MPI_Count count = e->count;
    const MPI_Datatype datatype = e->datatype;
    MPI_Count extent = 0, per = piece_elements(datatype, &extent);
    size_t done = 0;
    int rc = MPI_SUCCESS;
    if (per == 0) {
        shmcoll_log_error("cannot pack an element of more than INT_MAX bytes with MPI %d.%d",
                          MPI_VERSION, MPI_SUBVERSION);
        return SHMCOLL_ERR_INVALID;
    }
    for (MPI_Count first = 0; first < count && rc == MPI_SUCCESS; first += per) {
        const int n = (int)(count - first < per ? count - first : per);
        const size_t left = bytes - done;
        const int room = left > INT_MAX ? INT_MAX : (int)left;
        int position = 0;
        char *elements = typed + first * extent;
        if (pack)
            rc = PMPI_Pack(elements, n, datatype, packed + done, room, &position, comm);
        else
            rc = PMPI_Unpack(packed + done, room, &position, elements, n, datatype, comm);
        done += (size_t)position;
    }
    if (rc == MPI_SUCCESS && done == bytes) return SHMCOLL_OK;
    shmcoll_log_error("MPI_%s of %lld elements: %zu of %zu bytes (error %d)",
                      pack ? "Pack" : "Unpack", (long long)count, done, bytes, rc);
    return SHMCOLL_ERR_INVALID;
}

#endif

shmcoll_status_t shmcoll_mpi_pack(const void *buf, MPI_Count count, MPI_Datatype datatype,
                                  void *out, size_t bytes, MPI_Comm comm) {
    elements_t e;
    shmcoll_status_t status = elements_of((void *)buf, count, datatype, &e);
    if (status == SHMCOLL_OK) status = pack_all(1, &e, out, bytes, comm);
    elements_free(&e);
    return status;
}

shmcoll_status_t shmcoll_mpi_unpack(const void *in, size_t bytes, void *buf, MPI_Count count,
                                    MPI_Datatype datatype, MPI_Comm comm) {
    elements_t e;
    shmcoll_status_t status = elements_of(buf, count, datatype, &e);
    if (status == SHMCOLL_OK) status = pack_all(0, &e, (char *)in, bytes, comm);
    elements_free(&e);
    return status;
}
