/* Reductions whose result is written with streaming (non-temporal) stores.
 *
 * The last reduction step of an allreduce or reduce writes a result that is not read again
 * during the collective; when the working set exceeds the cache, writing it with streaming
 * stores saves the read-for-ownership of every line and keeps the inputs in cache (YHCCL
 * section 4). Rather than a second set of vector kernels, each call runs the ordinary kernel
 * shmcoll_kernel_reduce(dtype, op) on a block of elements into a small buffer that stays in L1,
 * then streams the block to `out` (copy_isa.h). The element arithmetic is therefore the very
 * same code as the temporal kernel's — the results are identical bit for bit by construction —
 * and the extra L1 round trip is free next to the memory traffic this path is meant for.
 *
 * `out` is first brought to a cache-line boundary with elements computed in place, so every
 * block but the last starts and ends on a line boundary and lines are never half streamed.
 * Bytes between elements are written by the block copy, so only types without padding have an
 * NT kernel: the integer types, bool, byte, float, double and their complex forms (exactly the
 * types the vector kernels handle). Elements not aligned to their size cannot reach a line
 * boundary; such calls, and calls too short to fill a line, run the temporal kernel. */
#include "kernels/copy_isa.h"
#include "kernels/kernels.h"

#include <stdint.h>
#include <xmmintrin.h>

/* BLOCK: 512 bytes measured fastest on a Cascade Lake (1 KiB within noise, 2 KiB 10% slower than
 * 512, presumably from 4K-aliasing between the block and the streamed operands). */
enum { LINE = 64, BLOCK = 512 };

static void reduce_nt_run(shmcoll_dtype_t dtype, shmcoll_opcode_t op, const void *a, const void *b,
                          void *out, size_t n) {
    shmcoll_reduce_fn fn = shmcoll_kernel_reduce(dtype, op);
    shmcoll_copy_fn stream = shmcoll_kernel_copy_stream();
    const size_t extent = shmcoll_dtype_extent(dtype);
    const unsigned char *pa = a, *pb = b;
    unsigned char *po = out;
    if (n * extent < 2 * LINE || (uintptr_t)po % extent) {
        fn(a, b, out, n);
        return;
    }
    size_t head = (size_t)(-(uintptr_t)po & (LINE - 1)) / extent;
    fn(pa, pb, po, head);
    _Alignas(LINE) unsigned char block[BLOCK];
    const size_t per_block = BLOCK / extent;
    for (size_t i = head; i < n; i += per_block) {
        size_t m = n - i < per_block ? n - i : per_block;
        size_t at = i * extent;
        /* The whole block is read before any of it is written, so out == a or out == b works. */
        fn(pa + at, pb + at, block, m);
        stream(po + at, block, m * extent);
    }
    /* As in copy_nt.c: a flag published after this call must not overtake the result. */
    _mm_sfence();
}

/* One wrapper per (type, op) that has a kernel signature of its own. */
#define NT_WRAPPER(DT, OP)                                                                         \
    static void reduce_nt_##DT##_##OP(const void *a, const void *b, void *out, size_t n) {         \
        reduce_nt_run(SHMCOLL_DT_##DT, SHMCOLL_OP_##OP, a, b, out, n);                             \
    }
#define NT_ENTRY(DT, OP) [SHMCOLL_DT_##DT][SHMCOLL_OP_##OP] = reduce_nt_##DT##_##OP,

/* The types without padding, times every op but MAXLOC/MINLOC (pair types only). Pairs MPI
 * does not define get a wrapper too; the lookup hands them out only if a temporal kernel
 * exists. */
#define NT_TYPES(X, OP)                                                                            \
    X(INT8, OP)                                                                                    \
    X(UINT8, OP)                                                                                   \
    X(INT16, OP)                                                                                   \
    X(UINT16, OP)                                                                                  \
    X(INT32, OP)                                                                                   \
    X(UINT32, OP)                                                                                  \
    X(INT64, OP)                                                                                   \
    X(UINT64, OP)                                                                                  \
    X(BOOL, OP)                                                                                    \
    X(FLOAT, OP)                                                                                   \
    X(DOUBLE, OP)                                                                                  \
    X(FLOAT_COMPLEX, OP)                                                                           \
    X(DOUBLE_COMPLEX, OP)                                                                          \
    X(BYTE, OP)
#define NT_OPS(X) X(SUM) X(PROD) X(MIN) X(MAX) X(LAND) X(LOR) X(LXOR) X(BAND) X(BOR) X(BXOR)

#define NT_WRAPPERS_FOR_OP(OP) NT_TYPES(NT_WRAPPER, OP)
#define NT_ENTRIES_FOR_OP(OP)  NT_TYPES(NT_ENTRY, OP)

NT_OPS(NT_WRAPPERS_FOR_OP)

static const shmcoll_reduce_fn nt_table[SHMCOLL_DT_COUNT][SHMCOLL_OP_COUNT] = {
    NT_OPS(NT_ENTRIES_FOR_OP)};

shmcoll_reduce_fn shmcoll_kernel_reduce_nt(shmcoll_dtype_t dtype, shmcoll_opcode_t op) {
    if ((unsigned)dtype >= SHMCOLL_DT_COUNT || (unsigned)op >= SHMCOLL_OP_COUNT) return NULL;
    if (!shmcoll_kernel_copy_stream() || !shmcoll_kernel_reduce(dtype, op)) return NULL;
    return nt_table[dtype][op];
}
