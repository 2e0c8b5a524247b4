/* Inputs and element checks of shmcoll-bench.
 *
 * Element i of rank r's send buffer in a loop with tag t is (r + 1) + (i + t) mod 61: small
 * integers, so every sum over ranks is exact in double and int (and wraps modulo 256, as MPI_SUM
 * on unsigned char does, for bytes). Every result element is then base + scale * ((i + t) mod 61)
 * for a base and scale that depend on the collective and the block's origin only (expect.c): a
 * check costs one pass over the buffer whatever the number of ranks, needs no reference
 * collective, and a block from the wrong rank or the wrong offset shows as a wrong value. */
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
        /* MPI_SUM is defined on unsigned char but not on MPI_BYTE; the others move plain bytes. */
        return shmcoll_bench_coll_reduces(coll) ? MPI_UNSIGNED_CHAR : MPI_BYTE;
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

size_t shmcoll_bench_data_check(shmcoll_bench_type_t type, const void *buf, size_t count,
                                size_t first, long long base, long long scale, unsigned long tag,
                                double *got, double *want) {
    unsigned long phase = (unsigned long)((first + tag % 61) % 61);
    for (size_t i = 0; i < count; i++) {
        long long v = base + scale * (long long)phase;
        if (++phase == 61) phase = 0;
        double g, w;
        switch (type) {
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
