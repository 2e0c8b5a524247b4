/* Blocks of the movement collectives' team tests (and of reduce-scatter's uneven counts): the
 * bytes of each block, which every member can generate for any sender and receiver, and the
 * layouts the v-variants place them in. */
#ifndef SHMCOLL_TESTS_BLOCKS_H
#define SHMCOLL_TESTS_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

/* The most block sizes blocks_sizes gives. */
#define BLOCKS_SIZES_MAX 9

/* The block sizes in bytes a movement test runs for team size p: {0, 1, 7, 60, 64, 65, 120, 121,
 * 1000} (64 and 65 on both sides of the inline area, 120 and 121 of the post block's payload, and
 * 60 at p = 2 a scatter's whole post block), from p = 17 on {0, 7, 1000}, and with 4 KiB chunks
 * (`rounds`) {1000, 5000, big}, which need many pipeline rounds. Fills sizes[]
 * (BLOCKS_SIZES_MAX entries); returns how many. */
size_t blocks_sizes(int rounds, int p, size_t big, size_t sizes[BLOCKS_SIZES_MAX]);

/* The n bytes of the block that `src` sends to `dst`. */
void blocks_fill(unsigned char *out, size_t n, uint64_t seed, int src, int dst);

/* Bytes [off, off + n) of the stream that fills `src`'s whole send buffer (gaps included), for
 * layouts whose blocks may overlap. */
void blocks_fill_slice(unsigned char *out, size_t off, size_t n, uint64_t seed, int src);

/* Uneven block sizes around `base`, about a quarter of them empty. */
size_t blocks_uneven(size_t base, uint64_t seed, uint64_t key);

/* Places p blocks in a non-monotonic order (reversed, or rotated by about p/2) with gaps of 0 to
 * 13 bytes before them; returns the bytes spanned. */
size_t blocks_place(int p, const size_t *counts, uint64_t seed, size_t *displs);

/* Send blocks may overlap (MPI forbids it for receive buffers only): each block starts at a
 * random offset of a buffer barely longer than the longest block. Returns the bytes spanned. */
size_t blocks_place_overlapping(int p, const size_t *counts, uint64_t seed, size_t *displs);

#endif
