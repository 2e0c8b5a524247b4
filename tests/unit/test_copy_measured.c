/* The measured copy (kernels/copy_measured.c): the same bytes as memcpy while it samples (one half
 * with each kind of store), after it decided, and below the sampling size; guard bytes stay
 * untouched; and after enough sampled copies it has decided for one kind. */
#include "check.h"
#include "kernels/kernels.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 64

static void check_copy(size_t n, size_t src_off, size_t dst_off, unsigned seed) {
    unsigned char *src = malloc(n + src_off + 1), *dst = malloc(n + dst_off + 2 * GUARD);
    if (!src || !dst) {
        CHECK(0, "out of memory for %zu bytes", n);
        free(src), free(dst);
        return;
    }
    for (size_t i = 0; i < n + src_off; i++) src[i] = (unsigned char)(i * 131 + seed);
    memset(dst, 0x5a, n + dst_off + 2 * GUARD);
    shmcoll_kernel_copy_measured(dst + GUARD + dst_off, src + src_off, n);
    CHECK(!memcmp(dst + GUARD + dst_off, src + src_off, n), "%zu bytes (offsets %zu, %zu) copied",
          n, src_off, dst_off);
    size_t spoiled = 0;
    for (size_t i = 0; i < GUARD + dst_off; i++) spoiled += dst[i] != 0x5a;
    for (size_t i = GUARD + dst_off + n; i < n + dst_off + 2 * GUARD; i++)
        spoiled += dst[i] != 0x5a;
    CHECK(spoiled == 0, "%zu bytes: %zu guard bytes overwritten", n, spoiled);
    free(src), free(dst);
}

int main(void) {
    CHECK(!strcmp(shmcoll_kernel_copy_measured_choice(), "undecided"), "undecided at first");
    static const size_t small[] = {0, 1, 63, 64, 65, 4096, 100000};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) check_copy(small[i], 0, 0, 1);
    CHECK(!strcmp(shmcoll_kernel_copy_measured_choice(), "undecided"),
          "small copies are not samples");
    /* Sampled copies (each kind copies a half), then decided ones. */
    for (int k = 0; k < 24; k++)
        check_copy(((size_t)1 << 20) + (size_t)k * 4099, (size_t)k % 7, (size_t)(k * 13) % 64,
                   (unsigned)k);
    const char *choice = shmcoll_kernel_copy_measured_choice();
    CHECK(!strcmp(choice, "streaming") || !strcmp(choice, "temporal"),
          "decided after the samples: %s", choice);
    check_copy(3 << 20, 5, 3, 99);
    printf("test_copy_measured: %s stores; %ld checks, %ld failed\n", choice, check_total(),
           check_failures());
    return check_failures() != 0;
}
