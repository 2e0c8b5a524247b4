/* Deterministic test data for reductions, and the reference results to check them against; also
 * the byte streams of the movement collectives and a random stream for the unit tests.
 *
 * Every rank can generate every rank's input from (dtype, op, rank, team size, seed, index), so a
 * reference is computed locally with the scalar kernel (the oracle), folding in rank order
 * x0 op x1 op ... op x(p-1). Values are chosen per op so that results are exact and never overflow
 * (integer-valued floating point data for SUM, factors of magnitude at most 2 for PROD, frequent
 * ties for MINLOC/MAXLOC, indices above 65535 so a truncated index shows).
 *
 * Comparisons and hashes look only at the bytes that carry data: the padding inside pair types
 * (SHORT_INT keeps its int at offset 4) and the unused bytes of an x87 long double are not data. */
#ifndef SHMCOLL_TESTS_TEST_DATA_H
#define SHMCOLL_TESTS_TEST_DATA_H

#include "kernels/reduce_op.h"
#include "kernels/kernels.h"

#include <stddef.h>
#include <stdint.h>

/* 64-bit mix of three values (splitmix64 finaliser): the generator of all test data. */
uint64_t test_data_mix(uint64_t seed, uint64_t a, uint64_t b);

/* Checks the kernels' size/extent of every type against the C layout the tests assume; 0 if ok. */
int test_data_check_layouts(void);

/* A reduce op from the predefined kernel for (dtype, op); -1 when there is no kernel. */
int test_data_op(shmcoll_dtype_t dtype, shmcoll_opcode_t op, shmcoll_reduce_op_t *out);

/* Bytes from the first element to the last data byte of n elements (SHORT_INT's last data byte is
 * at offset 7 of its element although its size is 6). */
size_t test_data_span(shmcoll_dtype_t dtype, size_t n);

/* Largest power of two (<= 16) that divides the extent: an offset that keeps elements aligned. */
size_t test_data_align(shmcoll_dtype_t dtype);

/* Writes rank's input: n elements at stride extent; padding bytes are left untouched. */
void test_data_fill(shmcoll_dtype_t dtype, shmcoll_opcode_t op, int rank, int p, uint64_t seed,
                    void *buf, size_t n);

/* out = x0 op ... op x(p-1) with the scalar oracle; out spans n * extent bytes. 0 on success. */
int test_data_reference(shmcoll_dtype_t dtype, shmcoll_opcode_t op, int p, uint64_t seed, void *out,
                        size_t n);

/* Index of the first element whose data bytes differ, or -1. */
long test_data_compare(shmcoll_dtype_t dtype, const void *got, const void *want, size_t n);

/* Hash of the data bytes of n elements (equal data, equal hash). */
uint64_t test_data_hash(shmcoll_dtype_t dtype, const void *buf, size_t n);

/* One element as text, for failure messages. */
void test_data_format(shmcoll_dtype_t dtype, const void *elem, char *text, size_t len);

/* Bytes [off, off + n) of the byte stream keyed by (seed, key): byte i is byte i % 8 (lowest
 * first) of test_data_mix(seed, key, i / 8). Every member can generate any member's block or
 * message, and a slice of it, without the rest. */
void test_data_bytes(void *out, size_t off, size_t n, uint64_t seed, uint64_t key);

/* A xorshift64* stream, for tests that draw many values in sequence from their own state (any
 * value but 0): the next value. */
uint64_t test_data_xorshift(uint64_t *state);

/* len bytes of the stream, 8 per value (the last value's lowest bytes for a short tail). */
void test_data_random_bytes(uint64_t *state, void *buf, size_t len);

/* Poison bytes (0xA5) and the check that they are still there: index of the first changed byte,
 * or -1. */
void test_data_poison(void *buf, size_t bytes);
long test_data_poisoned(const void *buf, size_t bytes);

#endif
