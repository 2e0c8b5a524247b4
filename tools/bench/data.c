/* Inputs and result checks of shmcoll-bench.
 *
 * Element i of rank r's input in a loop with tag t is (r + 1) + (i + t) mod 61: small integers,
 * so every sum over ranks is exact in double and int (and wraps modulo 256, as MPI_SUM on
 * unsigned char does, for bytes). The expected results have a closed form, so a check costs one
 * pass over the buffer whatever the number of ranks, and needs no reference collective. */
#include "bench.h"

#include <string.h>

size_t shmcoll_bench_data_elem_size(shmcoll_bench_type_t type) {
    switch (type) {
    case SHMCOLL_BENCH_DOUBLE:
        return sizeof(double);
    case SHMCOLL_BENCH_INT:
        return sizeof(int);
    case SHMCOLL_BENCH_BYTE:
        return 1;
    }
    return 1;
}

MPI_Datatype shmcoll_bench_data_mpi_type(shmcoll_bench_type_t type, shmcoll_bench_coll_t coll) {
    switch (type) {
    case SHMCOLL_BENCH_DOUBLE:
        return MPI_DOUBLE;
    case SHMCOLL_BENCH_INT:
        return MPI_INT;
    case SHMCOLL_BENCH_BYTE:
        /* MPI_SUM is defined on unsigned char but not on MPI_BYTE; bcast moves plain bytes. */
        return coll == SHMCOLL_BENCH_BCAST ? MPI_BYTE : MPI_UNSIGNED_CHAR;
    }
    return MPI_BYTE;
}

/* One loop per type, so the compiler sees a plain store loop (with cache-bust this runs before
 * every iteration, over up to the largest message). */
#define FILL(ctype)                                                                                \
    do {                                                                                           \
        ctype *out = buf;                                                                          \
        for (size_t i = 0; i < count; i++) {                                                       \
            out[i] = (ctype)(base + phase);                                                        \
            if (++phase == 61) phase = 0;                                                          \
        }                                                                                          \
    } while (0)

void shmcoll_bench_data_fill(shmcoll_bench_type_t type, void *buf, size_t count, int rank,
                             unsigned long tag) {
    long base = (long)rank + 1;
    long phase = (long)(tag % 61); /* (i + tag) mod 61, advanced without a division */
    switch (type) {
    case SHMCOLL_BENCH_DOUBLE:
        FILL(double);
        break;
    case SHMCOLL_BENCH_INT:
        FILL(int);
        break;
    case SHMCOLL_BENCH_BYTE:
        FILL(unsigned char);
        break;
    }
}

#undef FILL

/* A pattern no correct result of a loop equals in every element, written before each loop so a
 * collective that writes nothing cannot pass the check with the previous loop's result. */
void shmcoll_bench_data_poison(void *buf, size_t bytes) {
    memset(buf, 0xa5, bytes);
}

size_t shmcoll_bench_data_check(const shmcoll_bench_case_t *c, const void *buf, unsigned long tag,
                                double *got, double *want) {
    /* result[i] = base + scale * ((i + tag) mod 61) */
    long long base, scale;
    if (c->coll == SHMCOLL_BENCH_BCAST) {
        base = (long long)c->root + 1;
        scale = 1;
    } else {
        base = (long long)c->nprocs * (c->nprocs + 1) / 2;
        scale = c->nprocs;
    }
    unsigned long phase = tag % 61;
    for (size_t i = 0; i < c->count; i++) {
        long long v = base + scale * (long long)phase;
        if (++phase == 61) phase = 0;
        double g, w;
        switch (c->type) {
        case SHMCOLL_BENCH_DOUBLE:
            g = ((const double *)buf)[i];
            w = (double)v;
            break;
        case SHMCOLL_BENCH_INT:
            g = ((const int *)buf)[i];
            w = (int)v;
            break;
        default:
            g = ((const unsigned char *)buf)[i];
            w = (unsigned char)v;
            break;
        }
        if (g != w) {
            *got = g;
            *want = w;
            return i;
        }
    }
    return (size_t)-1;
}
