/* Scatter and scatterv over teams of forked processes.
 *
 * The root sends member r the byte stream keyed by (seed, root, r), which every member can
 * generate, so each member checks its whole receive buffer, guard zones included, byte for byte,
 * and the root checks that its send buffer came back unchanged. Cases: p in {1,2,3,4,5,7,8,13,16}
 * (plus a cheap p = 31) x byte counts {0, 1, 7, 64, 65, 1000} x every root for p <= 5, else {0,
 * p-1, p/2} x in place at the root (no receive buffer) or not x aligned or misaligned buffers;
 * then the same team sizes again with 4 KiB chunks (SHMCOLL_CHUNK=4k) and counts that need
 * hundreds of pipeline rounds (scatter cuts a chunk into p pieces). scatterv blocks are uneven,
 * some empty, taken from the root's buffer in a non-monotonic order with gaps, or overlapping
 * one another (legal for a send buffer); non-roots pass
 * NULL counts and displacements (read at the root only) and no send buffer. Send buffers are
 * allocated at their exact size, so an over-read shows under AddressSanitizer. Team sizes may be
 * given on the command line. */
#include "coll/coll.h"
#include "coll_check.h"
#include "team_harness.h"
#include "test_data.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Local helpers (byte patterns, receive images, the size loop) ------------------------- */

#define GUARD      64
#define MAX_LOGGED 3

/* Failures of this member. Every member always runs every case, whatever it saw, so the members
 * never disagree on which collective comes next; only the first few failures of each group of
 * cases (one op, one collective) are described, so one bug does not hide another. */
static int failures, group, logged[64];

static void set_group(int g) {
    group = g & 63;
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...) {
    failures++;
    if (++logged[group] > MAX_LOGGED) return;
    char text[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    team_harness_log("%s", text);
}

/* The n bytes of the block that `src` sends to `dst`. */
static void fill_pattern(unsigned char *out, size_t n, uint64_t seed, int src, int dst) {
    for (size_t i = 0; i < n; i += 8) {
        const uint64_t w = test_data_mix(seed, (uint64_t)src << 32 | (uint32_t)dst, i / 8);
        for (size_t k = 0; k < 8 && i + k < n; k++) out[i + k] = (unsigned char)(w >> (8 * k));
    }
}

/* A buffer of `len` data bytes starting `misalign` bytes into a poisoned guard zone, with a
 * poisoned guard behind it. */
typedef struct image {
    unsigned char *mem;
    unsigned char *data;
    size_t total;
} image_t;

static int image_alloc(image_t *im, size_t len, size_t misalign) {
    im->total = GUARD + misalign + len + GUARD;
    im->mem = malloc(im->total);
    if (!im->mem) {
        fail("out of memory for %zu bytes", im->total);
        return 1;
    }
    test_data_poison(im->mem, im->total);
    im->data = im->mem + GUARD + misalign;
    return 0;
}

static void image_free(image_t *im) {
    free(im->mem);
    im->mem = NULL;
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

/* Compares a whole receive buffer, guards included, with the image it must have. */
static int image_check(const image_t *got, const image_t *want, int p, const size_t *counts,
                       const size_t *displs, size_t bytes, const char *desc) {
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
    fail("%s: %zu bytes wrong; first at offset %ld (%s): 0x%02x, expected 0x%02x", desc, bad, off,
         where, got->mem[first], want->mem[first]);
    return 1;
}

/* A send buffer of exactly n bytes (at least one, so it is never NULL = in place) and a copy. */
static unsigned char *send_alloc(size_t n, unsigned char **copy) {
    unsigned char *buf = malloc(n ? n : 1);
    *copy = malloc(n ? n : 1);
    if (!buf || !*copy) {
        fail("out of memory for %zu bytes", n);
        free(buf), free(*copy);
        return *copy = NULL;
    }
    return buf;
}

static int send_check(const unsigned char *buf, const unsigned char *copy, size_t n,
                      const char *desc) {
    if (!buf || !memcmp(buf, copy, n)) return 0;
    fail("%s: the send buffer was modified", desc);
    return 1;
}

static int status_check(shmcoll_team_t *team, shmcoll_status_t status, const char *desc) {
    if (status == SHMCOLL_OK) return 0;
    fail("%s: returned %s (%s)", desc, shmcoll_status_string(status), team->error);
    return 1;
}

/* Uneven block sizes around `base`, about a quarter of them empty. */
static size_t uneven(size_t base, uint64_t seed, uint64_t key) {
    uint64_t h = test_data_mix(seed, key, 99);
    if (base == 0 || h % 4 == 1) return 0;
    return base / 2 + (size_t)((h >> 8) % (base + 1));
}

/* Places p blocks in a non-monotonic order (reversed, or rotated by about p/2) with gaps of 0 to
 * 13 bytes before them; returns the bytes spanned. */
static size_t place_blocks(int p, const size_t *counts, uint64_t seed, size_t *displs) {
    size_t end = 0;
    for (int k = 0; k < p; k++) {
        const int r = (seed & 1) ? p - 1 - k : (k + p / 2 + 1) % p;
        const uint64_t h = test_data_mix(seed, (uint64_t)k, 77);
        end += h % 3 ? (size_t)(h >> 8) % 14 : 0;
        displs[r] = end;
        end += counts[r];
    }
    return end + (size_t)(seed % 5);
}

/* Team sizes and the two chunk settings; the body learns which through its argument. */
typedef struct run_mode {
    int rounds; /* 1: 4 KiB chunks, counts that need many pipeline rounds */
} run_mode_t;

static const char *const env_default[] = {"SHMCOLL_TIMEOUT=30", NULL};
static const char *const env_rounds[] = {"SHMCOLL_TIMEOUT=30", "SHMCOLL_CHUNK=4k", NULL};

/* Harness shared memory a test may use (one cache line per member). */
#define SHARED_BYTES (64 * TEAM_HARNESS_MAX_P)

static int run_sizes(int argc, char **argv, team_harness_body_fn body) {
    static const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 13, 16, 31};
    const int n = argc > 1 ? argc - 1 : (int)(sizeof sizes / sizeof *sizes);
    const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    int failed = 0;
    for (int i = 0; i < n; i++) {
        const int p = argc > 1 ? atoi(argv[i + 1]) : sizes[i];
        for (int rounds = 0; rounds < (p > 16 ? 1 : 2); rounds++) {
            run_mode_t mode = {.rounds = rounds};
            team_harness_spec_t spec = {.p = p,
                                        .body = body,
                                        .arg = &mode,
                                        .timeout_s = 150,
                                        .env = rounds ? env_rounds : env_default,
                                        .shared_bytes = SHARED_BYTES};
            const double start = team_harness_now();
            const int f = team_harness_run_spec(&spec);
            printf("%s p=%d chunk=%s: %s (%.2f s)\n", name, p, rounds ? "4k" : "default",
                   f ? "FAILED" : "ok", team_harness_now() - start);
            fflush(stdout);
            failed |= f != 0;
        }
    }
    return failed;
}

/* ---- The checks --------------------------------------------------------------------------- */

/* Bytes [off, off + n) of the stream that fills `src`'s whole send buffer (gaps included), for
 * layouts whose blocks may overlap. */
static void fill_slice(unsigned char *out, size_t off, size_t n, uint64_t seed, int src) {
    for (size_t i = 0; i < n; i++) {
        const size_t at = off + i;
        const uint64_t w = test_data_mix(seed, (uint64_t)src << 32 | 0xffffffffu, at / 8);
        out[i] = (unsigned char)(w >> (8 * (at % 8)));
    }
}

/* Send blocks may overlap (MPI forbids it for receive buffers only): each block starts at a
 * random offset of a buffer barely longer than the longest block. Returns the bytes spanned. */
static size_t place_overlapping(int p, const size_t *counts, uint64_t seed, size_t *displs) {
    size_t longest = 0;
    for (int r = 0; r < p; r++) longest = counts[r] > longest ? counts[r] : longest;
    const size_t span = longest + 13;
    for (int r = 0; r < p; r++)
        displs[r] = (size_t)(test_data_mix(seed, (uint64_t)r, 88) % (span - counts[r] + 1));
    return span;
}

static int check_scatter(shmcoll_team_t *team, size_t bytes, int root, int in_place,
                         size_t misalign, uint64_t seed) {
    const int p = team->size, me = team->rank, is_root = me == root;
    const int use_recv = !(is_root && in_place);
    char desc[160];
    snprintf(desc, sizeof desc, "scatter %zu bytes root %d%s misalign %zu seed %llu", bytes, root,
             in_place ? " in-place" : "", misalign, (unsigned long long)seed);
    image_t recv = {0}, want = {0};
    unsigned char *send = NULL, *copy = NULL;
    int failed =
        use_recv && (image_alloc(&recv, bytes, misalign) || image_alloc(&want, bytes, misalign));
    if (!failed && is_root) failed = !(send = send_alloc((size_t)p * bytes, &copy));
    if (failed) goto out;
    if (is_root) {
        for (int r = 0; r < p; r++) fill_pattern(send + (size_t)r * bytes, bytes, seed, root, r);
        memcpy(copy, send, (size_t)p * bytes);
    }
    if (use_recv) fill_pattern(want.data, bytes, seed, root, me);
    failed |= status_check(
        team, shmcoll_scatter(team, send, use_recv ? recv.data : NULL, bytes, root), desc);
    if (use_recv) failed |= image_check(&recv, &want, 1, NULL, NULL, bytes, desc);
    failed |= send_check(send, copy, (size_t)p * bytes, desc);
out:
    image_free(&recv), image_free(&want);
    free(send), free(copy);
    return failed;
}

static int check_scatterv(shmcoll_team_t *team, size_t base, int root, int in_place,
                          size_t misalign, uint64_t seed) {
    const int p = team->size, me = team->rank, is_root = me == root;
    const int use_recv = !(is_root && in_place);
    size_t counts[TEAM_HARNESS_MAX_P], displs[TEAM_HARNESS_MAX_P];
    for (int r = 0; r < p; r++) counts[r] = uneven(base, seed, (uint64_t)r);
    const int overlap = (seed >> 40) % 3 == 0;
    const size_t span = overlap ? place_overlapping(p, counts, seed, displs)
                                : place_blocks(p, counts, seed, displs);
    char desc[200];
    snprintf(desc, sizeof desc,
             "scatterv %sblocks around %zu bytes (mine %zu) root %d%s misalign %zu seed %llu",
             overlap ? "overlapping " : "", base, counts[me], root, in_place ? " in-place" : "",
             misalign, (unsigned long long)seed);
    image_t recv = {0}, want = {0};
    unsigned char *send = NULL, *copy = NULL;
    int failed = use_recv && (image_alloc(&recv, counts[me], misalign) ||
                              image_alloc(&want, counts[me], misalign));
    if (!failed && is_root) failed = !(send = send_alloc(span, &copy));
    if (failed) goto out;
    if (is_root) {
        fill_slice(send, 0, span, seed, root);
        memcpy(copy, send, span);
    }
    if (use_recv) fill_slice(want.data, displs[me], counts[me], seed, root);
    /* Counts and displacements are read at the root only: the others pass none. */
    failed |=
        status_check(team,
                     shmcoll_scatterv(team, send, is_root ? counts : NULL, is_root ? displs : NULL,
                                      use_recv ? recv.data : NULL, counts[me], root),
                     desc);
    if (use_recv) failed |= image_check(&recv, &want, 1, NULL, NULL, counts[me], desc);
    failed |= send_check(send, copy, span, desc);
out:
    image_free(&recv), image_free(&want);
    free(send), free(copy);
    return failed;
}

static int body(shmcoll_team_t *team, void *arg) {
    const run_mode_t *mode = arg;
    static const size_t small[] = {0, 1, 7, 64, 65, 1000};
    static const size_t cheap[] = {0, 7, 1000}; /* p > 16 */
    /* 4 KiB chunks cut into p pieces: the big count takes about 25 * p rounds. */
    const size_t rounds[] = {1000, 5000, 100000 / (size_t)team_harness_scale_down() + 3};
    const size_t *sizes = mode->rounds ? rounds : team->size > 16 ? cheap : small;
    const size_t nsizes = mode->rounds ? 3 : team->size > 16 ? 3 : 6;
    int roots[TEAM_HARNESS_MAX_P];
    const int nroots = coll_check_roots(team->size, roots);
    uint64_t index = 0;
    for (size_t k = 0; k < nsizes; k++)
        for (int i = 0; i < nroots; i++)
            for (int in_place = 0; in_place < 2; in_place++) {
                const uint64_t seed = test_data_mix((uint64_t)team->size, index++, 31);
                set_group(0);
                check_scatter(team, sizes[k], roots[i], in_place, seed % 2 ? 1 + seed % 7 : 0,
                              seed);
                set_group(1);
                check_scatterv(team, sizes[k], roots[i], in_place, seed % 3 ? 1 + seed % 5 : 0,
                               seed ^ 0x5a5a);
            }
    if (failures) team_harness_log("%d failures in all", failures);
    return failures != 0;
}

int main(int argc, char **argv) {
    return run_sizes(argc, argv, body) != 0;
}
