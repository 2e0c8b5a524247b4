/* The per-ISA kernel tables, private to kernels/: each returns its kernel for (dtype, op) or
 * NULL when it has none. Only the dispatcher calls the vector ones, and only after CPUID said
 * the CPU (and the OS) supports that ISA. */
#ifndef SHMCOLL_KERNELS_REDUCE_ISA_H
#define SHMCOLL_KERNELS_REDUCE_ISA_H

#include "kernels/kernels.h"

shmcoll_reduce_fn shmcoll_kernel_reduce_lookup_scalar(shmcoll_dtype_t dtype, shmcoll_opcode_t op);
shmcoll_reduce_fn shmcoll_kernel_reduce_lookup_avx2(shmcoll_dtype_t dtype, shmcoll_opcode_t op);
shmcoll_reduce_fn shmcoll_kernel_reduce_lookup_avx512(shmcoll_dtype_t dtype, shmcoll_opcode_t op);

#endif
