/* Unit test of the non-temporal kernels and of the adaptive non-temporal policy.
 *
 * 1. The non-temporal copy of every ISA the CPU has, the dispatched one, and the temporal copy
 *    (its AVX2 loop, and memcpy under SHMCOLL_ISA=scalar), against the source
 *    byte for byte at every length 0..4099 and several MiB, at destination offsets on and off the
 *    vector alignment and with source and destination misaligned differently; guard bytes on
 *    both sides of the destination stay untouched. A few copies use buffers of exactly the
 *    copied size, so AddressSanitizer sees any read or write past them.
 * 2. The non-temporal reductions: which (type, op) pairs have one, and each against the temporal
 *    kernel (random bits, NaNs included: the same code must give the same bits) and against the
 *    scalar oracle (exact data), out of place and in place, at lengths around the line and block
 *    sizes, aligned and misaligned `out`, with guard bytes.
 * 3. The same under SHMCOLL_ISA=avx2 and =scalar, in forked children (the ISA is chosen once per
 *    process): with scalar there are no streaming kernels and the copy is memcpy.
 * 4. The policy: the usable-cache formula, the decision's truth table, and SHMCOLL_NT. */
#include "check.h"
#include "base/config.h"
#include "kernels/kernels.h"
#include "kernels/nt_policy.h"
#include "test_data.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* This test's own random stream. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static void *xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        perror("malloc");
        exit(2);
    }
    return p;
}

static int cpu_has(const char *isa) {
    __builtin_cpu_init();
    if (!strcmp(isa, "avx2")) return __builtin_cpu_supports("avx2");
    if (!strcmp(isa, "avx512")) return __builtin_cpu_supports("avx512f");
    return 1;
}

/* ---- 1. non-temporal copy --------------------------------------------------------------- */

enum { GUARD = 128, GUARD_BYTE = 0xa5, ALIGN = 64 };

/* An arena with room for GUARD + ALIGN + len + GUARD bytes, 64-byte aligned. */
typedef struct arena {
    unsigned char *base;
    size_t cap;
} arena_t;

static unsigned char *arena_get(arena_t *arena, size_t len) {
    size_t need = 2 * GUARD + ALIGN + len;
    if (need > arena->cap) {
        free(arena->base);
        if (posix_memalign((void **)&arena->base, ALIGN, need)) exit(2);
        arena->cap = need;
    }
    return arena->base;
}

/* The dst region at base + GUARD + off (off < ALIGN) holds exactly src afterwards, and the
 * GUARD bytes on each side still hold GUARD_BYTE. */
static int copied_ok(const unsigned char *base, size_t off, const unsigned char *src, size_t len) {
    const unsigned char *dst = base + GUARD + off;
    if (len && memcmp(dst, src, len)) return 0;
    for (size_t i = 0; i < GUARD + off; i++)
        if (base[i] != GUARD_BYTE) return 0;
    for (size_t i = 0; i < GUARD; i++)
        if (dst[len + i] != GUARD_BYTE) return 0;
    return 1;
}

static void copy_case(shmcoll_copy_fn fn, const char *isa, arena_t *d, const unsigned char *src,
                      size_t len, size_t off) {
    unsigned char *base = arena_get(d, len);
    memset(base, GUARD_BYTE, 2 * GUARD + off + len);
    fn(base + GUARD + off, src, len);
    CHECK(copied_ok(base, off, src, len), "copy_nt isa=%s len=%zu dst offset %zu src offset %zu",
          isa, len, off, (size_t)((uintptr_t)src % ALIGN));
}

/* Every `step`-th length up to 4099 at two destination offsets, 0 and one that walks through
 * every offset mod 64 as the length grows; then the large and the exactly sized cases. */
static void test_copy_isa(shmcoll_copy_fn fn, const char *isa, size_t step) {
    enum { MAX_SMALL = 4099 };
    arena_t d = {0}, s = {0};
    unsigned char *src_base = arena_get(&s, 4u << 20);
    test_data_random_bytes(&rng_state, src_base, 2 * GUARD + ALIGN + (4u << 20));
    fn(NULL, NULL, 0); /* empty buffers may be NULL */
    for (size_t len = 0; len <= MAX_SMALL; len += step) {
        for (size_t k = 0; k < 2; k++) {
            /* The source offset varies differently, so src and dst are misaligned relative to
             * each other in many ways. */
            size_t dst_off = k ? (len * 11 + 1) % ALIGN : 0;
            size_t src_off = (len * 7 + k * 13) % ALIGN;
            copy_case(fn, isa, &d, src_base + GUARD + src_off, len, dst_off);
        }
    }
    static const size_t big[] = {(1u << 20), (3u << 20) + 13, (4u << 20) - 1};
    for (size_t b = 0; b < sizeof big / sizeof big[0]; b++)
        for (size_t off = 0; off < ALIGN; off += 21)
            copy_case(fn, isa, &d, src_base + GUARD + (b * 5 + off) % ALIGN, big[b], off);

    /* Exactly sized heap buffers: an access past either end is an ASan error. */
    static const size_t exact[] = {1, 63, 64, 65, 255, 256, 257, 1000, 4099, 65536 + 3};
    for (size_t e = 0; e < sizeof exact / sizeof exact[0]; e++) {
        unsigned char *src = xmalloc(exact[e]), *dst = xmalloc(exact[e]);
        test_data_random_bytes(&rng_state, src, exact[e]);
        fn(dst, src, exact[e]);
        CHECK(!memcmp(dst, src, exact[e]), "copy_nt isa=%s exact buffers of %zu bytes", isa,
              exact[e]);
        free(src), free(dst);
    }
    free(d.base), free(s.base);
}

static void test_copy(void) {
    static const char *const isas[] = {"scalar", "avx2", "avx512"};
    for (size_t k = 0; k < sizeof isas / sizeof isas[0]; k++) {
        shmcoll_copy_fn fn = shmcoll_kernel_copy_nt_isa(isas[k]);
        CHECK(!fn == !cpu_has(isas[k]), "copy_nt_isa(%s) is %s but the CPU %s it", isas[k],
              fn ? "set" : "NULL", cpu_has(isas[k]) ? "has" : "lacks");
        if (fn)
            test_copy_isa(fn, isas[k], 1);
        else
            printf("kernels_nt: this CPU has no %s; that copy is not tested\n", isas[k]);
    }
    CHECK(!shmcoll_kernel_copy_nt_isa("sse9") && !shmcoll_kernel_copy_nt_isa(NULL),
          "copy_nt_isa accepts an unknown ISA");
    test_copy_isa(shmcoll_kernel_copy_nt, "dispatched", 7);
    test_copy_isa(shmcoll_kernel_copy, "temporal", 1);
    test_copy_isa(shmcoll_kernel_copy_loop(), "temporal loop", 1);
    test_copy_isa(shmcoll_kernel_copy_memory, "memory", 1);
    /* The memory loop walks four parts of whole 512-byte groups side by side and prefetches
     * only inside each part: lengths around multiples of 4 x 512, at every relative offset. */
    arena_t d = {0}, s = {0};
    unsigned char *src_base = arena_get(&s, 1u << 20);
    test_data_random_bytes(&rng_state, src_base, 2 * GUARD + ALIGN + (1u << 20));
    for (size_t len = 4096; len <= (96u << 10); len += 2048 * (len / 8192 + 1) - 1)
        for (size_t off = 0; off < ALIGN; off += 29)
            copy_case(shmcoll_kernel_copy_memory, "memory", &d,
                      src_base + GUARD + (len + off) % ALIGN, len, off);
    free(d.base), free(s.base);
}

/* ---- 2. non-temporal reductions ------------------------------------------------------------ */

/* The types without padding: the ones that must have an NT kernel when streaming is on. */
static int nt_type(shmcoll_dtype_t dt) {
    switch (dt) {
    case SHMCOLL_DT_LONG_DOUBLE:
    case SHMCOLL_DT_LONG_DOUBLE_COMPLEX:
    case SHMCOLL_DT_FLOAT_INT:
    case SHMCOLL_DT_DOUBLE_INT:
    case SHMCOLL_DT_LONG_INT:
    case SHMCOLL_DT_2INT:
    case SHMCOLL_DT_SHORT_INT:
    case SHMCOLL_DT_LONG_DOUBLE_INT:
        return 0;
    default:
        return 1;
    }
}

static void test_nt_table(int streaming) {
    for (int dt = 0; dt < SHMCOLL_DT_COUNT; dt++) {
        for (int op = 0; op < SHMCOLL_OP_COUNT; op++) {
            shmcoll_dtype_t d = (shmcoll_dtype_t)dt;
            shmcoll_opcode_t o = (shmcoll_opcode_t)op;
            int want = streaming && nt_type(d) && shmcoll_kernel_reduce(d, o) != NULL;
            CHECK(!shmcoll_kernel_reduce_nt(d, o) == !want, "reduce_nt(%s, %s) is %s",
                  shmcoll_dtype_name(d), shmcoll_opcode_name(o), want ? "NULL" : "set");
        }
    }
    CHECK(!shmcoll_kernel_reduce_nt(SHMCOLL_DT_COUNT, SHMCOLL_OP_SUM) &&
              !shmcoll_kernel_reduce_nt(SHMCOLL_DT_DOUBLE, SHMCOLL_OP_COUNT),
          "reduce_nt accepts an out-of-range type or op");
}

typedef struct rcase {
    shmcoll_dtype_t dt;
    shmcoll_opcode_t op;
    size_t n, off;
    const char *form;
} rcase_t;

/* Runs nt and want on the same inputs in one form ("out", "out==a", "out==b") and compares the
 * whole result region and the guards around it; out is at obase + GUARD + off, and the in-place
 * forms first copy their operand there. */
static void reduce_form(const rcase_t *c, shmcoll_reduce_fn nt, shmcoll_reduce_fn want,
                        unsigned char *a, unsigned char *b, unsigned char *obase,
                        unsigned char *ref, const char *against) {
    size_t span = c->n * shmcoll_dtype_extent(c->dt);
    size_t total = 2 * GUARD + c->off + span;
    unsigned char *o = obase + GUARD + c->off;
    unsigned char *a0 = xmalloc(span), *b0 = xmalloc(span);
    memcpy(a0, a, span), memcpy(b0, b, span);
    /* The reference: the temporal kernel (or oracle) out of place. */
    want(a, b, ref, c->n);
    memset(obase, GUARD_BYTE, total);
    const unsigned char *x = a, *y = b;
    if (!strcmp(c->form, "out")) {
        nt(a, b, o, c->n);
    } else {
        /* In place: the destination operand is copied into out first. */
        unsigned char *into = o;
        memcpy(into, !strcmp(c->form, "out==a") ? a : b, span);
        if (!strcmp(c->form, "out==a"))
            x = into;
        else
            y = into;
        nt(x, y, into, c->n);
    }
    CHECK(copied_ok(obase, c->off, ref, span),
          "reduce_nt %s/%s n=%zu out offset %zu form %s differs from %s or wrote a guard",
          shmcoll_dtype_name(c->dt), shmcoll_opcode_name(c->op), c->n, c->off, c->form, against);
    CHECK(!memcmp(a, a0, span) && !memcmp(b, b0, span), "reduce_nt %s/%s n=%zu: input modified",
          shmcoll_dtype_name(c->dt), shmcoll_opcode_name(c->op), c->n);
    free(a0), free(b0);
}

/* One length and out offset: against the temporal kernel in all three forms, then, if `oracle`,
 * against the scalar oracle. */
static void reduce_case(shmcoll_dtype_t dt, shmcoll_opcode_t op, size_t n, size_t off, int oracle,
                        arena_t *ar) {
    static const char *const forms[] = {"out", "out==a", "out==b"};
    shmcoll_reduce_fn nt = shmcoll_kernel_reduce_nt(dt, op);
    size_t span = n * shmcoll_dtype_extent(dt);
    unsigned char *a = arena_get(&ar[0], span) + GUARD + (off * 3) % ALIGN;
    unsigned char *b = arena_get(&ar[1], span) + GUARD + (off * 5 + 8) % ALIGN;
    unsigned char *obase = arena_get(&ar[2], span);
    unsigned char *ref = xmalloc(span);
    rcase_t c = {dt, op, n, off, NULL};
    /* Against the temporal kernel: random bits, NaNs and all. */
    test_data_random_bytes(&rng_state, a, span), test_data_random_bytes(&rng_state, b, span);
    if (dt == SHMCOLL_DT_BOOL) /* a C _Bool object holds 0 or 1 */
        for (size_t i = 0; i < span; i++) a[i] &= 1, b[i] &= 1;
    for (size_t f = 0; f < 3; f++) {
        c.form = forms[f];
        reduce_form(&c, nt, shmcoll_kernel_reduce(dt, op), a, b, obase, ref, "the temporal kernel");
    }
    /* Against the oracle: exact data of two ranks. */
    if (oracle) {
        test_data_fill(dt, op, 0, 2, n, a, n);
        test_data_fill(dt, op, 1, 2, n, b, n);
        c.form = "out";
        reduce_form(&c, nt, shmcoll_kernel_reduce_scalar(dt, op), a, b, obase, ref, "the oracle");
    }
    free(ref);
}

static long reduce_cases;

static const struct {
    shmcoll_dtype_t dt;
    shmcoll_opcode_t op;
} hot[] = {{SHMCOLL_DT_DOUBLE, SHMCOLL_OP_SUM},         {SHMCOLL_DT_FLOAT, SHMCOLL_OP_SUM},
           {SHMCOLL_DT_INT32, SHMCOLL_OP_SUM},          {SHMCOLL_DT_INT64, SHMCOLL_OP_SUM},
           {SHMCOLL_DT_DOUBLE_COMPLEX, SHMCOLL_OP_SUM}, {SHMCOLL_DT_UINT8, SHMCOLL_OP_BXOR}};

static int is_hot(shmcoll_dtype_t dt, shmcoll_opcode_t op) {
    for (size_t h = 0; h < sizeof hot / sizeof hot[0]; h++)
        if (hot[h].dt == dt && hot[h].op == op) return 1;
    return 0;
}

/* The hot pairs, which cover every element size, at many lengths and offsets; with `all`, every
 * other (type, op) with an NT kernel at a few lengths (the blocking logic does not depend on the
 * op, but each wrapper must run its own kernel) and the hot ones at over a MiB. */
static void test_reduce(int all) {
    static const size_t lengths[] = {0,  1,   2,   7,   15,  16,  17,  31,  32,  33,  63,   64,
                                     65, 127, 128, 129, 255, 256, 257, 511, 513, 999, 2049, 4099};
    static const size_t few[] = {1, 33, 129, 1000};
    /* out at a line boundary, element-aligned off it, and not even element-aligned (temporal). */
    static const size_t offsets[] = {0, 8, 40, 1, 2}; /* the oracle checks the first two */
    arena_t ar[3] = {{0}};
    for (int dt = 0; dt < SHMCOLL_DT_COUNT; dt++) {
        for (int op = 0; op < SHMCOLL_OP_COUNT; op++) {
            shmcoll_dtype_t d = (shmcoll_dtype_t)dt;
            shmcoll_opcode_t o = (shmcoll_opcode_t)op;
            shmcoll_reduce_fn nt = shmcoll_kernel_reduce_nt(d, o);
            if (!nt) continue;
            nt(NULL, NULL, NULL, 0); /* n == 0 touches nothing */
            if (is_hot(d, o)) {
                for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++)
                    for (size_t f = 0; f < sizeof offsets / sizeof offsets[0]; f++, reduce_cases++)
                        reduce_case(d, o, lengths[l], offsets[f], f < 2, ar);
            } else if (all) {
                for (size_t l = 0; l < sizeof few / sizeof few[0]; l++, reduce_cases += 2) {
                    reduce_case(d, o, few[l], 0, 1, ar);
                    reduce_case(d, o, few[l], 8, 0, ar);
                }
            }
        }
    }
    /* A MiB and more for the hot pairs of 4 bytes and wider (many blocks; a partial last one). */
    for (size_t h = 0; all && h < sizeof hot / sizeof hot[0]; h++) {
        if (shmcoll_dtype_extent(hot[h].dt) < 4 || !shmcoll_kernel_reduce_nt(hot[h].dt, hot[h].op))
            continue;
        size_t n = ((1u << 20) + 4096 + 48) / shmcoll_dtype_extent(hot[h].dt);
        reduce_case(hot[h].dt, hot[h].op, n, 0, 1, ar);
        reduce_case(hot[h].dt, hot[h].op, n + 1, 8, 0, ar);
        reduce_cases += 2;
    }
    for (int i = 0; i < 3; i++) free(ar[i].base);
}

/* ---- 3. other ISAs, in children ------------------------------------------------------------ */

static void run_in_child(const char *isa, int streaming) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("SHMCOLL_ISA", isa, 1);
        CHECK(!strcmp(shmcoll_kernel_isa(), isa), "SHMCOLL_ISA=%s gave %s", isa,
              shmcoll_kernel_isa());
        test_nt_table(streaming);
        test_copy_isa(shmcoll_kernel_copy_nt, isa, 37);
        test_copy_isa(shmcoll_kernel_copy, "temporal", 37);
        const char *loop = shmcoll_kernel_copy_loop_name();
        CHECK(!strcmp(loop, strcmp(isa, "scalar") ? "avx2" : "memcpy"),
              "SHMCOLL_ISA=%s: the temporal copy loop is %s", isa, loop);
        test_reduce(0);
        _exit(check_failures() ? 1 : 0);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0,
          "SHMCOLL_ISA=%s: non-temporal kernels failed in the child (status %d)", isa, status);
}

/* Must run before this process makes its own choice: a child inherits a choice made. */
static void test_other_isas(void) {
    run_in_child("scalar", 0);
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) run_in_child("avx2", 1);
}

/* ---- 4. policy ----------------------------------------------------------------------------- */

static void test_usable_cache(void) {
    const size_t MiB = 1u << 20, KiB = 1u << 10;
    /* The paper's NodeA: non-inclusive 256 MB L3, 0.5 MB L2 per core, 64 cores: 294912 KB. */
    CHECK(shmcoll_kernel_usable_cache(256 * MiB, 512 * KiB, 64, 0) == 294912 * KiB,
          "usable cache of NodeA is %zu", shmcoll_kernel_usable_cache(256 * MiB, 512 * KiB, 64, 0));
    for (int p = 1; p <= 64; p *= 2) {
        size_t llc = (size_t)p * 1375 * KiB, l2 = 2 * MiB;
        CHECK(shmcoll_kernel_usable_cache(llc, l2, p, 0) == llc + (size_t)p * l2,
              "non-inclusive: C = LLC + p * L2 at p=%d", p);
        CHECK(shmcoll_kernel_usable_cache(llc, l2, p, 1) == llc, "inclusive: C = LLC at p=%d", p);
        CHECK(shmcoll_kernel_usable_cache(llc, 0, p, 0) == llc, "no L2: C = LLC at p=%d", p);
        CHECK(shmcoll_kernel_usable_cache(0, l2, p, 0) == 0, "unknown LLC: C = 0 at p=%d", p);
    }
    CHECK(shmcoll_kernel_usable_cache(8 * MiB, MiB, 0, 0) == 8 * MiB,
          "unknown core count: C = LLC");
    /* A guest of 2 vCPUs shown its host's 260 MiB L3: 16 MiB a core of it, plus the L2s. */
    CHECK(shmcoll_kernel_usable_cache(260 * MiB, 2 * MiB, 2, 0) == 36 * MiB,
          "a host's LLC seen by 2 cores: C = %zu",
          shmcoll_kernel_usable_cache(260 * MiB, 2 * MiB, 2, 0));
    CHECK(shmcoll_kernel_usable_cache(260 * MiB, 2 * MiB, 2, 1) == 32 * MiB,
          "a host's inclusive LLC seen by 2 cores: C = 32 MiB");
    /* 12 MiB a core (AMD's stacked cache, 96 MiB for 8 cores) is a real processor's: kept. */
    CHECK(shmcoll_kernel_usable_cache(96 * MiB, MiB, 8, 0) == 104 * MiB,
          "96 MiB for 8 cores: C = LLC + 8 * L2");
}

static void test_decide(void) {
    const size_t C = 40u << 20;
    const size_t sets[] = {0, 1, C - 1, C, C + 1, (size_t)1 << 40};
    for (size_t w = 0; w < sizeof sets / sizeof sets[0]; w++) {
        for (int reused = 0; reused <= 1; reused++) {
            for (int bound = 0; bound <= 1; bound++) {
                size_t W = sets[w];
                CHECK(shmcoll_kernel_nt_decide(SHMCOLL_NT_AUTO, W, reused, C, bound) ==
                          (bound && !reused && W > C),
                      "auto: W=%zu C=%zu reused=%d bandwidth-bound=%d", W, C, reused, bound);
                CHECK(shmcoll_kernel_nt_decide(SHMCOLL_NT_AUTO, W, reused, 0, bound) == 0,
                      "auto with unknown cache must stay temporal (W=%zu)", W);
                CHECK(shmcoll_kernel_nt_decide(SHMCOLL_NT_ALWAYS, W, reused, C, bound) == 1,
                      "always: W=%zu reused=%d bandwidth-bound=%d", W, reused, bound);
                CHECK(shmcoll_kernel_nt_decide(SHMCOLL_NT_NEVER, W, reused, C, bound) == 0,
                      "never: W=%zu reused=%d bandwidth-bound=%d", W, reused, bound);
            }
        }
    }
    for (int cores = 0; cores <= 64; cores++)
        CHECK(shmcoll_kernel_nt_bandwidth_bound(cores, 8) == (cores >= 8),
              "%d streaming cores against a minimum of 8", cores);
}

/* Sets SHMCOLL_NT (NULL: unset) and re-reads the configuration. */
static void set_nt(const char *value) {
    if (value)
        setenv("SHMCOLL_NT", value, 1);
    else
        unsetenv("SHMCOLL_NT");
    shmcoll_config_reload();
}

/* Calls shmcoll_kernel_nt_mode() `calls` times with stderr captured; returns the number of
 * warnings that name SHMCOLL_NT and stores the last mode. */
static int warnings_of(int calls, shmcoll_nt_mode_t *mode) {
    int fds[2];
    char text[4096];
    fflush(stderr);
    if (pipe(fds)) exit(2);
    int saved = dup(2);
    dup2(fds[1], 2);
    for (int i = 0; i < calls; i++) *mode = shmcoll_kernel_nt_mode();
    fflush(stderr);
    dup2(saved, 2);
    close(saved), close(fds[1]);
    ssize_t got = read(fds[0], text, sizeof text - 1);
    close(fds[0]);
    text[got > 0 ? got : 0] = 0;
    int count = 0;
    for (const char *p = text; (p = strstr(p, "SHMCOLL_NT")); p++) count++;
    return count;
}

static void test_knob(void) {
    const size_t C = 1u << 20;
    static const struct {
        const char *text;
        shmcoll_nt_mode_t mode;
    } modes[] = {{NULL, SHMCOLL_NT_AUTO},       {"auto", SHMCOLL_NT_AUTO},
                 {"AUTO", SHMCOLL_NT_AUTO},     {"always", SHMCOLL_NT_ALWAYS},
                 {"Always", SHMCOLL_NT_ALWAYS}, {"never", SHMCOLL_NT_NEVER},
                 {"NEVER", SHMCOLL_NT_NEVER}};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        set_nt(modes[m].text);
        shmcoll_nt_mode_t got = SHMCOLL_NT_AUTO;
        CHECK(warnings_of(1, &got) == 0 && got == modes[m].mode,
              "SHMCOLL_NT=%s: mode %d, want %d (or a warning)",
              modes[m].text ? modes[m].text : "(unset)", (int)got, (int)modes[m].mode);
        for (int reused = 0; reused <= 1; reused++)
            for (size_t W = C / 2; W <= 2 * C; W += C)
                CHECK(shmcoll_kernel_nt_wanted(W, reused, C, 1) ==
                          shmcoll_kernel_nt_decide(modes[m].mode, W, reused, C, 1),
                      "SHMCOLL_NT=%s: nt_wanted(W=%zu, reused=%d) disagrees with the mode",
                      modes[m].text ? modes[m].text : "(unset)", W, reused);
    }
    set_nt(NULL);
    CHECK(shmcoll_kernel_nt_wanted(2 * C, 0, C, 1) == 1 &&
              shmcoll_kernel_nt_wanted(2 * C, 1, C, 1) == 0 &&
              shmcoll_kernel_nt_wanted(C / 2, 0, C, 1) == 0 &&
              shmcoll_kernel_nt_wanted(2 * C, 0, C, 0) == 0,
          "the default (auto) does not follow the working-set and streaming-cores rule");
    /* A typo is warned about once per setting and read as auto. */
    set_nt("sometimes");
    shmcoll_nt_mode_t got = SHMCOLL_NT_NEVER;
    int warned = warnings_of(3, &got);
    CHECK(warned == 1 && got == SHMCOLL_NT_AUTO,
          "SHMCOLL_NT=sometimes: %d warnings (want 1), mode %d (want auto)", warned, (int)got);
    set_nt(NULL);
}

int main(void) {
    check_log_limit(30);
    unsetenv("SHMCOLL_ISA");
    test_other_isas();
    const char *isa = shmcoll_kernel_isa();
    test_nt_table(strcmp(isa, "scalar") != 0);
    test_copy();
    test_reduce(1);
    test_usable_cache();
    test_decide();
    test_knob();
    if (check_failures()) {
        fprintf(stderr, "kernels_nt: %ld of %ld checks failed\n", check_failures(), check_total());
        return 1;
    }
    printf("kernels_nt: dispatched isa %s, %ld reduction cases, %ld checks passed\n", isa,
           reduce_cases, check_total());
    return 0;
}
