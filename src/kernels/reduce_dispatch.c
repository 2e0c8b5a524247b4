/* Run-time choice of the reduction kernels.
 *
 * Once per process (pthread_once, so concurrent first calls are safe) CPUID decides the best
 * ISA the CPU and the OS support: AVX-512 (F, BW, DQ, VL, as reduce_avx512.c is compiled for),
 * then AVX2 with FMA, then scalar. SHMCOLL_ISA=scalar|avx2|avx512 caps the choice, to compare
 * ISAs or to rule out frequency drops from 512-bit code. The kernel for every (type, op) is
 * resolved into one table then, falling back from the chosen ISA to lower ones for types it
 * does not vectorise, so a lookup on the hot path is a single load. */
#include "base/log.h"
#include "base/config.h"
#include "kernels/kernels.h"
#include "kernels/reduce_isa.h"

#include <pthread.h>
#include <stdlib.h>
#include <strings.h>

typedef enum isa { ISA_SCALAR, ISA_AVX2, ISA_AVX512, ISA_COUNT } isa_t;

static const struct isa_info {
    const char *name;
    shmcoll_reduce_fn (*lookup)(shmcoll_dtype_t dtype, shmcoll_opcode_t op);
} isa_table[ISA_COUNT] = {
    [ISA_SCALAR] = {"scalar", shmcoll_kernel_reduce_lookup_scalar},
    [ISA_AVX2] = {"avx2", shmcoll_kernel_reduce_lookup_avx2},
    [ISA_AVX512] = {"avx512", shmcoll_kernel_reduce_lookup_avx512},
};

static pthread_once_t dispatch_once = PTHREAD_ONCE_INIT;
static int isa_supported[ISA_COUNT];
static isa_t chosen_isa;
static shmcoll_reduce_fn chosen_kernels[SHMCOLL_DT_COUNT][SHMCOLL_OP_COUNT];

static int isa_parse(const char *name, isa_t *isa) {
    for (int i = 0; i < ISA_COUNT; i++) {
        if (!strcasecmp(name, isa_table[i].name)) {
            *isa = (isa_t)i;
            return 1;
        }
    }
    return 0;
}

/* __builtin_cpu_supports also checks that the OS saves the wider registers (XGETBV). */
static void detect_isas(void) {
    __builtin_cpu_init();
    isa_supported[ISA_SCALAR] = 1;
    isa_supported[ISA_AVX2] = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    isa_supported[ISA_AVX512] = isa_supported[ISA_AVX2] && __builtin_cpu_supports("avx512f") &&
                                __builtin_cpu_supports("avx512bw") &&
                                __builtin_cpu_supports("avx512dq") &&
                                __builtin_cpu_supports("avx512vl");
}

static void dispatch_init(void) {
    detect_isas();
    chosen_isa = ISA_SCALAR;
    for (int i = ISA_COUNT - 1; i > ISA_SCALAR; i--) {
        if (isa_supported[i]) {
            chosen_isa = (isa_t)i;
            break;
        }
    }
    /* A malformed cap is reported and ignored: it must not silently change behaviour. */
    const char *cap_text = shmcoll_config()->isa;
    isa_t cap;
    if (cap_text && *cap_text) {
        if (!isa_parse(cap_text, &cap))
            shmcoll_log_warn("SHMCOLL_ISA=%s is not scalar, avx2 or avx512; ignored", cap_text);
        else if (cap < chosen_isa)
            chosen_isa = cap;
    }
    for (int dt = 0; dt < SHMCOLL_DT_COUNT; dt++) {
        for (int op = 0; op < SHMCOLL_OP_COUNT; op++) {
            shmcoll_reduce_fn fn = NULL;
            for (int i = chosen_isa; i >= ISA_SCALAR && !fn; i--)
                fn = isa_table[i].lookup((shmcoll_dtype_t)dt, (shmcoll_opcode_t)op);
            chosen_kernels[dt][op] = fn;
        }
    }
    shmcoll_log_verbose("reduction kernels: %s", isa_table[chosen_isa].name);
}

shmcoll_reduce_fn shmcoll_kernel_reduce(shmcoll_dtype_t dtype, shmcoll_opcode_t op) {
    pthread_once(&dispatch_once, dispatch_init);
    if ((unsigned)dtype >= SHMCOLL_DT_COUNT || (unsigned)op >= SHMCOLL_OP_COUNT) return NULL;
    return chosen_kernels[dtype][op];
}

shmcoll_reduce_fn shmcoll_kernel_reduce_scalar(shmcoll_dtype_t dtype, shmcoll_opcode_t op) {
    return shmcoll_kernel_reduce_lookup_scalar(dtype, op);
}

shmcoll_reduce_fn shmcoll_kernel_reduce_isa(shmcoll_dtype_t dtype, shmcoll_opcode_t op,
                                            const char *isa_name) {
    isa_t isa;
    pthread_once(&dispatch_once, dispatch_init);
    if (!isa_name || !isa_parse(isa_name, &isa) || !isa_supported[isa]) return NULL;
    return isa_table[isa].lookup(dtype, op);
}

const char *shmcoll_kernel_isa(void) {
    pthread_once(&dispatch_once, dispatch_init);
    return isa_table[chosen_isa].name;
}
