/* Memory for the buffers the collectives under test read and write: the system allocator, or,
 * on the members SHMCOLL_TEST_HEAP names, the shared heap (heap/alloc.h), so that every team
 * test also runs with its buffers in heaps on all members or on some only:
 *   unset, none    every member the system allocator
 *   all            every member the heap
 *   even, odd      the members of even (odd) rank the heap, the others the system allocator
 *   all-but-last   every member but the last the heap
 * Reference buffers and the tests' own bookkeeping keep using malloc. */
#ifndef SHMCOLL_TESTS_TEST_BUFFERS_H
#define SHMCOLL_TESTS_TEST_BUFFERS_H

#include <stddef.h>

/* `bytes` (at least 1), 64-byte aligned; NULL when out of memory. */
void *test_buffer_alloc(size_t bytes);
void test_buffer_free(void *p);

/* Whether this member's buffers come from the heap. */
int test_buffer_in_heap(void);

#endif
