/* Copy and reduction kernels.
 *
 * A reduction kernel computes out[i] = a[i] op b[i] for n elements; out may alias a or b (exactly,
 * not partially). `a` is the left operand: the contribution of the lower rank. For every predefined
 * MPI type and op there is a scalar kernel (the test oracle) and, where it pays, vectorised kernels
 * (AVX2, AVX-512) chosen once at run time from CPUID. Elements are laid out with stride
 * shmcoll_dtype_extent(); the pair types (MPI_DOUBLE_INT, ...) have padding between elements,
 * which the kernels never read or write. */
#ifndef SHMCOLL_KERNELS_KERNELS_H
#define SHMCOLL_KERNELS_KERNELS_H

#include <stddef.h>
#include <stdint.h>

typedef enum shmcoll_dtype {
    SHMCOLL_DT_INT8,
    SHMCOLL_DT_UINT8,
    SHMCOLL_DT_INT16,
    SHMCOLL_DT_UINT16,
    SHMCOLL_DT_INT32,
    SHMCOLL_DT_UINT32,
    SHMCOLL_DT_INT64,
    SHMCOLL_DT_UINT64,
    SHMCOLL_DT_BOOL, /* C _Bool */
    SHMCOLL_DT_FLOAT,
    SHMCOLL_DT_DOUBLE,
    SHMCOLL_DT_LONG_DOUBLE,
    SHMCOLL_DT_FLOAT_COMPLEX,
    SHMCOLL_DT_DOUBLE_COMPLEX,
    SHMCOLL_DT_LONG_DOUBLE_COMPLEX,
    SHMCOLL_DT_FLOAT_INT,       /* struct { float v; int i; } */
    SHMCOLL_DT_DOUBLE_INT,      /* struct { double v; int i; }: size 12, extent 16 */
    SHMCOLL_DT_LONG_INT,        /* struct { long v; int i; }: size 12, extent 16 */
    SHMCOLL_DT_2INT,            /* struct { int v; int i; } */
    SHMCOLL_DT_SHORT_INT,       /* struct { short v; int i; }: size 6, extent 8 */
    SHMCOLL_DT_LONG_DOUBLE_INT, /* struct { long double v; int i; } */
    SHMCOLL_DT_BYTE,            /* raw bytes: copy and bitwise ops only */
    SHMCOLL_DT_COUNT
} shmcoll_dtype_t;

typedef enum shmcoll_opcode {
    SHMCOLL_OP_SUM,
    SHMCOLL_OP_PROD,
    SHMCOLL_OP_MIN,
    SHMCOLL_OP_MAX,
    SHMCOLL_OP_LAND,
    SHMCOLL_OP_LOR,
    SHMCOLL_OP_LXOR,
    SHMCOLL_OP_BAND,
    SHMCOLL_OP_BOR,
    SHMCOLL_OP_BXOR,
    SHMCOLL_OP_MAXLOC,
    SHMCOLL_OP_MINLOC,
    SHMCOLL_OP_COUNT
} shmcoll_opcode_t;

/* out[i] = a[i] op b[i], i < n. */
typedef void (*shmcoll_reduce_fn)(const void *a, const void *b, void *out, size_t n);

const char *shmcoll_dtype_name(shmcoll_dtype_t dtype);
const char *shmcoll_opcode_name(shmcoll_opcode_t op);
/* Bytes of data in one element (e.g. 12 for DOUBLE_INT). */
size_t shmcoll_dtype_size(shmcoll_dtype_t dtype);
/* Stride between consecutive elements in memory (e.g. 16 for DOUBLE_INT). */
size_t shmcoll_dtype_extent(shmcoll_dtype_t dtype);
/* Offset just past an element's last data byte (MPI's true extent): 8 for SHORT_INT, whose int
 * follows two bytes of padding, 12 for DOUBLE_INT, the size for plain types. */
size_t shmcoll_dtype_data_end(shmcoll_dtype_t dtype);

/* The fastest kernel for (dtype, op) on this CPU, or NULL when MPI does not define the op for
 * the type (e.g. MIN on complex, SUM on a pair type): the caller then falls back. */
shmcoll_reduce_fn shmcoll_kernel_reduce(shmcoll_dtype_t dtype, shmcoll_opcode_t op);

/* The scalar reference kernel (the test oracle), or NULL as above. */
shmcoll_reduce_fn shmcoll_kernel_reduce_scalar(shmcoll_dtype_t dtype, shmcoll_opcode_t op);

/* The kernel for an explicit ISA ("scalar", "avx2", "avx512"), or NULL when that ISA has none for
 * (dtype, op) or the CPU lacks the ISA. For tests that compare every ISA with the oracle. */
shmcoll_reduce_fn shmcoll_kernel_reduce_isa(shmcoll_dtype_t dtype, shmcoll_opcode_t op,
                                            const char *isa);

/* Name of the ISA shmcoll_kernel_reduce() uses on this CPU ("avx512", "avx2" or "scalar");
 * SHMCOLL_ISA=scalar|avx2|avx512 caps it. */
const char *shmcoll_kernel_isa(void);

typedef void (*shmcoll_copy_fn)(void *dst, const void *src, size_t bytes);

/* Temporal copy (destination will be read again soon). */
void shmcoll_kernel_copy(void *dst, const void *src, size_t bytes);

/* The largest copy shmcoll_kernel_copy_small serves: an inline slot's (shm/channel.h). */
#define SHMCOLL_KERNEL_COPY_SMALL_MAX 64

/* A copy of at most SHMCOLL_KERNEL_COPY_SMALL_MAX bytes, inline: two fixed-size moves that
 * overlap in the middle (the copy of a tiny collective's block cost 50 instructions as a call
 * into memcpy, a fifth of a non-root's part of an 8-byte gather). */
static inline void shmcoll_kernel_copy_small(void *dst, const void *src, size_t bytes) {
    char *d = dst;
    const char *s = src;
    if (bytes >= 32) {
        __builtin_memcpy(d, s, 32);
        __builtin_memcpy(d + bytes - 32, s + bytes - 32, 32);
    } else if (bytes >= 16) {
        __builtin_memcpy(d, s, 16);
        __builtin_memcpy(d + bytes - 16, s + bytes - 16, 16);
    } else if (bytes >= 8) {
        __builtin_memcpy(d, s, 8);
        __builtin_memcpy(d + bytes - 8, s + bytes - 8, 8);
    } else if (bytes >= 4) {
        __builtin_memcpy(d, s, 4);
        __builtin_memcpy(d + bytes - 4, s + bytes - 4, 4);
    } else {
        for (size_t i = 0; i < bytes; i++) d[i] = s[i];
    }
}

/* The loop shmcoll_kernel_copy uses for large copies in this process: AVX2 (unless the CPU
 * lacks it or SHMCOLL_ISA=scalar) or memcpy. For tests. */
shmcoll_copy_fn shmcoll_kernel_copy_loop(void);
/* Its name: "avx2" or "memcpy". */
const char *shmcoll_kernel_copy_loop_name(void);

/* Temporal copy of buffers that live in memory rather than in the core's own caches: several
 * streams at once and the destination prefetched for writing (copy_avx2.c), which copies memory
 * 15-25% faster than shmcoll_kernel_copy and cached buffers about as much slower. Same results;
 * memcpy where shmcoll_kernel_copy is memcpy. */
void shmcoll_kernel_copy_memory(void *dst, const void *src, size_t bytes);

/* A copy from memory to memory whose destination is not read again soon, with the stores this
 * process measured faster on its first large copies (copy_measured.c): streaming or temporal.
 * Same results as shmcoll_kernel_copy; ends with a store fence when it streamed. */
void shmcoll_kernel_copy_measured(void *dst, const void *src, size_t bytes);

/* What shmcoll_kernel_copy_measured chose: "streaming", "temporal" or "undecided". */
const char *shmcoll_kernel_copy_measured_choice(void);

/* ---- Non-temporal (streaming) stores: YHCCL section 4; nt_policy.h decides when. ---------- */

/* Non-temporal copy, for a destination that will not be read again soon: the whole cache lines
 * of dst are written with streaming stores that bypass the caches (no read-for-ownership, no
 * eviction of useful data), the partial lines at either end with ordinary stores. It ends with
 * a store fence, so a release store made after it (a flag publishing the data) cannot become
 * visible before the data. Plain memcpy when the CPU has no AVX2 or SHMCOLL_ISA=scalar. */
void shmcoll_kernel_copy_nt(void *dst, const void *src, size_t bytes);

/* The non-temporal copy of an explicit ISA ("scalar" is memcpy, "avx2", "avx512"), with its
 * fence, or NULL when the CPU lacks the ISA. For tests and benchmarks. */
shmcoll_copy_fn shmcoll_kernel_copy_nt_isa(const char *isa);

/* A reduction kernel with the same results, bit for bit, as shmcoll_kernel_reduce(dtype, op)
 * (it runs that kernel), whose result goes to `out` with streaming stores and a final store
 * fence; out may alias a or b exactly, as for every kernel. NULL when there is none — the types
 * with padding (long double, pair types) or no streaming ISA in use: the caller then uses the
 * temporal kernel. */
shmcoll_reduce_fn shmcoll_kernel_reduce_nt(shmcoll_dtype_t dtype, shmcoll_opcode_t op);

#endif
