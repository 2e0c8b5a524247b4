/* Failures, guarded buffers and the size loop of the team tests' case matrices; see
 * team_cases.h. */
#include "team_cases.h"

#include "blocks.h"
#include "coll_check.h"
#include "test_buffers.h"
#include "test_data.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define GUARD      64
#define MAX_LOGGED 3

static int failures, group, logged[64];
/* Single-copy runs: whether the test asks for them, whether this run is one, whether this
 * member's team may move single-copy, and how many calls did. */
static int single_copy_wanted, single_copy_run, single_copy_team, single_copy_calls, team_p;
static int cma_allowed; /* the kernel lets a forked child read its parent's memory */

/* Whether a forked child may read this process's memory with process_vm_readv: the permission
 * check is the one between the members of a team (siblings of one parent). */
static int probe_cma_allowed(void) {
    static volatile uint64_t word = 0x5ca1ab1e0ddba11ull;
    const pid_t parent = getpid();
    fflush(NULL);
    const pid_t child = fork();
    if (child == 0) {
        uint64_t seen = 0;
        struct iovec mine = {.iov_base = &seen, .iov_len = sizeof seen};
        struct iovec theirs = {.iov_base = (void *)&word, .iov_len = sizeof seen};
        const ssize_t n = process_vm_readv(parent, &mine, 1, &theirs, 1, 0);
        _exit(n == (ssize_t)sizeof seen && seen == word ? 0 : 1);
    }
    int status = 1;
    return child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

void team_cases_single_copy_runs(void) {
    single_copy_wanted = 1;
    cma_allowed = probe_cma_allowed();
    printf("cross-memory attach between processes: %s\n",
           cma_allowed ? "allowed" : "refused (single-copy runs test the fallback)");
}

void team_cases_set_group(int g) {
    group = g & 63;
}

void team_cases_fail(const char *fmt, ...) {
    failures++;
    if (++logged[group] > MAX_LOGGED) return;
    char text[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    team_harness_log("%s", text);
}

int team_cases_verdict(void) {
    if (single_copy_run && team_p > 1 && cma_allowed && !single_copy_team)
        team_cases_fail("the kernel allows cross-memory attach, but the team did not enable it");
    if (single_copy_run && team_p > 1 && single_copy_team && !single_copy_calls)
        team_cases_fail(
            "single-copy run (SHMCOLL_CMA=all SHMCOLL_CMA_MIN=60) but no call moved single-copy");
    if (failures) team_harness_log("%d failures in all", failures);
    return failures != 0;
}

int team_cases_status_check(shmcoll_team_t *team, shmcoll_status_t status, const char *desc) {
    single_copy_team = team->cma != SHMCOLL_CMA_OFF;
    team_p = team->size;
    if (status == SHMCOLL_OK) {
        single_copy_calls += !strcmp(team->last_algo, "single-copy");
        return 0;
    }
    team_cases_fail("%s: returned %s (%s)", desc, shmcoll_status_string(status), team->error);
    return 1;
}

int team_cases_image_alloc(team_cases_image_t *im, size_t len, size_t misalign) {
    im->total = GUARD + misalign + len + GUARD;
    im->mem = test_buffer_alloc(im->total);
    if (!im->mem) {
        team_cases_fail("out of memory for %zu bytes", im->total);
        return 1;
    }
    test_data_poison(im->mem, im->total);
    im->data = im->mem + GUARD + misalign;
    return 0;
}

void team_cases_image_free(team_cases_image_t *im) {
    test_buffer_free(im->mem);
    im->mem = NULL;
}

int team_cases_image_guards(const team_cases_image_t *im, size_t len, const char *desc) {
    const size_t before = (size_t)(im->data - im->mem);
    const long b = test_data_poisoned(im->mem, before);
    const long a = test_data_poisoned(im->data + len, im->total - before - len);
    if (b >= 0)
        team_cases_fail("%s: byte %ld before the receive buffer was overwritten", desc,
                        (long)before - b);
    if (a >= 0) team_cases_fail("%s: byte %ld past the end of the result was overwritten", desc, a);
    return b >= 0 || a >= 0;
}

/* Where byte `off` of the data lies: in one of the p blocks, or in a gap or guard. */
static void locate(size_t off, int p, const size_t *counts, const size_t *displs, size_t bytes,
                   char *text, size_t len) {
    for (int r = 0; r < p; r++) {
        size_t d = counts ? displs[r] : (size_t)r * bytes, n = counts ? counts[r] : bytes;
        if (off >= d && off < d + n) {
            if (p == 1)
                snprintf(text, len, "data byte %zu", off - d);
            else
                snprintf(text, len, "byte %zu of rank %d's block", off - d, r);
            return;
        }
    }
    snprintf(text, len, "a byte outside every block");
}

int team_cases_image_check(const team_cases_image_t *got, const team_cases_image_t *want, int p,
                           const size_t *counts, const size_t *displs, size_t bytes,
                           const char *desc) {
    if (!memcmp(got->mem, want->mem, got->total)) return 0;
    size_t first = 0, bad = 0;
    for (size_t i = 0; i < got->total; i++)
        if (got->mem[i] != want->mem[i] && !bad++) first = i;
    const long off = (long)first - (long)(want->data - want->mem);
    char where[96];
    if (off < 0)
        snprintf(where, sizeof where, "guard byte %ld before the buffer", -off);
    else
        locate((size_t)off, p, counts, displs, bytes, where, sizeof where);
    team_cases_fail("%s: %zu bytes wrong; first at offset %ld (%s): 0x%02x, expected 0x%02x", desc,
                    bad, off, where, got->mem[first], want->mem[first]);
    return 1;
}

unsigned char *team_cases_alloc(size_t n) {
    unsigned char *buf = test_buffer_alloc(n);
    if (!buf) team_cases_fail("out of memory for %zu bytes", n);
    return buf;
}

unsigned char *team_cases_send_alloc(size_t n, unsigned char **copy) {
    unsigned char *buf = test_buffer_alloc(n);
    *copy = malloc(n ? n : 1);
    if (!buf || !*copy) {
        team_cases_fail("out of memory for %zu bytes", n);
        test_buffer_free(buf), free(*copy);
        return *copy = NULL;
    }
    return buf;
}

int team_cases_send_check(const unsigned char *buf, const unsigned char *copy, size_t n,
                          const char *desc) {
    if (!buf || !memcmp(buf, copy, n)) return 0;
    team_cases_fail("%s: the send buffer was modified", desc);
    return 1;
}

/* out = the NULL-terminated `base` (at most 12 entries) plus the NULL-terminated `extra` (at most
 * three). */
static void with_settings(const char **out, const char *const *base, const char *const *extra) {
    int n = 0;
    while (base && base[n] && n < 12) out[n] = base[n], n++;
    for (int e = 0; extra[e] && e < 3; e++) out[n++] = extra[e];
    out[n] = NULL;
}

int team_cases_run_sizes(int argc, char **argv, team_harness_body_fn body,
                         const char *const *env_default, const char *const *env_rounds,
                         size_t shared_bytes) {
    static const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 13, 16, 31};
    static const char *const run_names[] = {"chunk=default", "chunk=4k", "single-copy"};
    const int n = argc > 1 ? argc - 1 : (int)(sizeof sizes / sizeof *sizes);
    const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    /* The many-round runs pin the copy-in/copy-out pipeline (single-copy off), stream every
     * copy-out (the policy would only at sizes beyond the cache) and, on a machine whose cores
     * have 1 KiB of their own cache, take the memory loop for every other copy of a call whose
     * working set exceeds 4 KiB; the single-copy runs move every non-empty block single-copy. */
    static const char *const rounds_extra[] = {
        "SHMCOLL_CMA=off", "SHMCOLL_NT=always",
        "SHMCOLL_TOPO=pack:1 l3:1(size=64KiB) l2:2(size=1KiB) core:1 pu:1", NULL};
    static const char *const single_copy_extra[] = {"SHMCOLL_CMA=all", "SHMCOLL_CMA_MIN=60", NULL};
    static const char *const no_extra[] = {NULL};
    const char *env[3][16];
    with_settings(env[0], env_default, no_extra);
    with_settings(env[1], env_rounds, rounds_extra);
    with_settings(env[2], env_default, single_copy_extra);
    int failed = 0;
    for (int i = 0; i < n; i++) {
        const int p = argc > 1 ? atoi(argv[i + 1]) : sizes[i];
        for (int run = 0; run < 3; run++) {
            if ((run == 1 && p > 16) || (run == 2 && !single_copy_wanted)) continue;
            team_cases_mode_t mode = {.rounds = run == 1};
            team_harness_spec_t spec = {.p = p,
                                        .body = body,
                                        .arg = &mode,
                                        .timeout_s = 150,
                                        .env = env[run],
                                        .shared_bytes = shared_bytes};
            single_copy_run = run == 2; /* inherited by the forked members */
            const double start = team_harness_now();
            const int f = team_harness_run_spec(&spec);
            printf("%s p=%d %s: %s (%.2f s)\n", name, p, run_names[run], f ? "FAILED" : "ok",
                   team_harness_now() - start);
            fflush(stdout);
            failed |= f != 0;
        }
    }
    return failed;
}

int team_cases_rooted_body(shmcoll_team_t *team, const team_cases_mode_t *mode, uint64_t salt,
                           team_cases_rooted_fn plain, team_cases_rooted_fn v) {
    size_t sizes[BLOCKS_SIZES_MAX];
    const size_t nsizes = blocks_sizes(mode->rounds, team->size,
                                       100000 / (size_t)team_harness_scale_down() + 3, sizes);
    int roots[TEAM_HARNESS_MAX_P];
    const int nroots = coll_check_roots(team->size, roots);
    uint64_t index = 0;
    for (size_t k = 0; k < nsizes; k++)
        for (int i = 0; i < nroots; i++)
            for (int in_place = 0; in_place < 2; in_place++) {
                const uint64_t seed = test_data_mix((uint64_t)team->size, index++, salt);
                team_cases_set_group(0);
                plain(team, sizes[k], roots[i], in_place, seed % 2 ? 1 + seed % 7 : 0, seed);
                team_cases_set_group(1);
                v(team, sizes[k], roots[i], in_place, seed % 3 ? 1 + seed % 5 : 0, seed ^ 0x5a5a);
            }
    return team_cases_verdict();
}
