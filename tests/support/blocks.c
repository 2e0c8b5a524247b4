/* Block contents and layouts of the movement tests; see blocks.h. */
#include "blocks.h"

#include "test_data.h"

#include <string.h>

size_t blocks_sizes(int rounds, int p, size_t big, size_t sizes[BLOCKS_SIZES_MAX]) {
    static const size_t small[BLOCKS_SIZES_MAX] = {0, 1, 7, 60, 64, 65, 120, 121, 1000};
    static const size_t cheap[] = {0, 7, 1000};
    const size_t many[] = {1000, 5000, big};
    const size_t *pick = rounds ? many : p > 16 ? cheap : small;
    const size_t n = rounds || p > 16 ? 3 : BLOCKS_SIZES_MAX;
    memcpy(sizes, pick, n * sizeof *sizes);
    return n;
}

void blocks_fill(unsigned char *out, size_t n, uint64_t seed, int src, int dst) {
    test_data_bytes(out, 0, n, seed, (uint64_t)src << 32 | (uint32_t)dst);
}

void blocks_fill_slice(unsigned char *out, size_t off, size_t n, uint64_t seed, int src) {
    test_data_bytes(out, off, n, seed, (uint64_t)src << 32 | 0xffffffffu);
}

size_t blocks_uneven(size_t base, uint64_t seed, uint64_t key) {
    uint64_t h = test_data_mix(seed, key, 99);
    if (base == 0 || h % 4 == 1) return 0;
    return base / 2 + (size_t)((h >> 8) % (base + 1));
}

size_t blocks_place(int p, const size_t *counts, uint64_t seed, size_t *displs) {
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

size_t blocks_place_overlapping(int p, const size_t *counts, uint64_t seed, size_t *displs) {
    size_t longest = 0;
    for (int r = 0; r < p; r++) longest = counts[r] > longest ? counts[r] : longest;
    const size_t span = longest + 13;
    for (int r = 0; r < p; r++)
        displs[r] = (size_t)(test_data_mix(seed, (uint64_t)r, 88) % (span - counts[r] + 1));
    return span;
}
