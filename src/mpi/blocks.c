/* Typed blocks as bytes for coll/. See blocks.h. */
#include "mpi/blocks.h"
#include "mpi/pack.h"

#include "base/log.h"

#include <stdlib.h>

static MPI_Count block_count(const shmcoll_mpi_blocks_t *b, int j) {
    return b->counts ? shmcoll_mpi_count_at(b->counts, b->wide, j) : b->count;
}

static MPI_Aint block_displ(const shmcoll_mpi_blocks_t *b, int j) {
    if (!b->counts) return (MPI_Aint)j * (MPI_Aint)b->count;
    return b->wide ? ((const MPI_Aint *)b->displs)[j] : ((const int *)b->displs)[j];
}

/* Where block j starts in the user's buffer. */
static char *user_block(const shmcoll_mpi_blocks_t *b, int j) {
    return b->buf + block_displ(b, j) * b->layout.extent;
}

shmcoll_status_t shmcoll_mpi_blocks_init(shmcoll_mpi_blocks_t *b, const void *buf, MPI_Count count,
                                         const void *counts, const void *displs, int wide,
                                         MPI_Datatype datatype, int n, size_t *bytes,
                                         size_t *offsets) {
    *b = (shmcoll_mpi_blocks_t){.buf = (char *)buf,
                                .datatype = datatype,
                                .n = n,
                                .count = count,
                                .counts = counts,
                                .displs = displs,
                                .wide = wide,
                                .bytes = bytes,
                                .offsets = offsets};
    if (shmcoll_mpi_datatype_layout(datatype, &b->layout) != SHMCOLL_OK || (counts && !displs) ||
        (!counts && count < 0))
        return SHMCOLL_ERR_INVALID;
    const size_t size = (size_t)b->layout.size;
    if (!counts) {
        b->block = (size_t)count * size;
        b->total = b->block * (size_t)n;
        return SHMCOLL_OK;
    }
    for (int j = 0; j < n; j++) {
        MPI_Count c = block_count(b, j);
        if (c < 0) return SHMCOLL_ERR_INVALID;
        bytes[j] = (size_t)c * size;
        b->total += bytes[j];
    }
    return SHMCOLL_OK;
}

void shmcoll_mpi_blocks_init_one(shmcoll_mpi_blocks_t *b, const void *buf, MPI_Count count,
                                 MPI_Datatype datatype, const shmcoll_mpi_layout_t *layout) {
    *b = (shmcoll_mpi_blocks_t){.buf = (char *)buf,
                                .datatype = datatype,
                                .layout = *layout,
                                .n = 1,
                                .count = count,
                                .block = (size_t)count * (size_t)layout->size,
                                .total = (size_t)count * (size_t)layout->size};
}

size_t shmcoll_mpi_blocks_bytes(const shmcoll_mpi_blocks_t *b, int j) {
    return b->counts ? b->bytes[j] : b->block;
}

char *shmcoll_mpi_blocks_at(const shmcoll_mpi_blocks_t *b, int j) {
    return b->base + (b->counts ? b->offsets[j] : (size_t)j * b->block);
}

/* Dense per-block blocks: offsets from the lowest displacement of a block with data (those of
 * empty blocks are arbitrary and never used). */
static void map_in_place(shmcoll_mpi_blocks_t *b) {
    MPI_Aint lowest = 0;
    int any = 0;
    for (int j = 0; j < b->n; j++) {
        MPI_Aint at = block_displ(b, j) * b->layout.extent;
        if (b->bytes[j] && (!any || at < lowest)) lowest = at, any = 1;
    }
    for (int j = 0; j < b->n; j++)
        b->offsets[j] = b->bytes[j] ? (size_t)(block_displ(b, j) * b->layout.extent - lowest) : 0;
    b->base = b->buf + lowest;
}

shmcoll_status_t shmcoll_mpi_blocks_map(shmcoll_mpi_blocks_t *b) {
    if (b->layout.dense) {
        if (b->counts)
            map_in_place(b);
        else
            b->base = b->buf;
        return SHMCOLL_OK;
    }
    b->temp = malloc(b->total ? b->total : 1);
    if (!b->temp) {
        shmcoll_log_error("no memory to pack %zu bytes", b->total);
        return SHMCOLL_ERR_NO_MEMORY;
    }
    b->base = b->temp;
    size_t at = 0;
    for (int j = 0; b->counts && j < b->n; j++) { /* packed back to back */
        b->offsets[j] = at;
        at += b->bytes[j];
    }
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_mpi_blocks_pack_one(shmcoll_mpi_blocks_t *b, int only, MPI_Comm comm) {
    if (!b->temp) return SHMCOLL_OK;
    return shmcoll_mpi_pack(user_block(b, only), block_count(b, only), b->datatype,
                            shmcoll_mpi_blocks_at(b, only), shmcoll_mpi_blocks_bytes(b, only),
                            comm);
}

shmcoll_status_t shmcoll_mpi_blocks_pack(shmcoll_mpi_blocks_t *b, int skip, MPI_Comm comm) {
    if (!b->temp) return SHMCOLL_OK;
    /* Uniform blocks are consecutive elements: one call packs them all. */
    if (!b->counts && skip < 0)
        return shmcoll_mpi_pack(b->buf, b->count * b->n, b->datatype, b->temp, b->total, comm);
    for (int j = 0; j < b->n; j++) {
        if (j == skip) continue;
        shmcoll_status_t status = shmcoll_mpi_blocks_pack_one(b, j, comm);
        if (status != SHMCOLL_OK) return status;
    }
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_mpi_blocks_unpack(shmcoll_mpi_blocks_t *b, int skip, MPI_Comm comm) {
    if (!b->temp) return SHMCOLL_OK;
    if (!b->counts && skip < 0)
        return shmcoll_mpi_unpack(b->temp, b->total, b->buf, b->count * b->n, b->datatype, comm);
    for (int j = 0; j < b->n; j++) {
        if (j == skip) continue;
        shmcoll_status_t status =
            shmcoll_mpi_unpack(shmcoll_mpi_blocks_at(b, j), shmcoll_mpi_blocks_bytes(b, j),
                               user_block(b, j), block_count(b, j), b->datatype, comm);
        if (status != SHMCOLL_OK) return status;
    }
    return SHMCOLL_OK;
}

void shmcoll_mpi_blocks_free(shmcoll_mpi_blocks_t *b) {
    if (!b->temp) return; /* free(NULL) is not free here: the shared heap's free is asked */
    free(b->temp);
    b->temp = NULL;
}
