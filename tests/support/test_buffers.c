#include "test_buffers.h"
#include "heap/alloc.h"
#include "team_harness.h"

#include <stdlib.h>
#include <string.h>

int test_buffer_in_heap(void) {
    const char *which = getenv("SHMCOLL_TEST_HEAP");
    if (!which || !*which || !strcmp(which, "none")) return 0;
    const int rank = team_harness_rank(), size = team_harness_size();
    if (!strcmp(which, "all")) return 1;
    if (!strcmp(which, "even")) return rank % 2 == 0;
    if (!strcmp(which, "odd")) return rank % 2 == 1;
    if (!strcmp(which, "all-but-last")) return rank != size - 1;
    return 0;
}

void *test_buffer_alloc(size_t bytes) {
    if (!bytes) bytes = 1;
    if (test_buffer_in_heap()) return shmcoll_heap_alloc(bytes, 64);
    return aligned_alloc(64, (bytes + 63) / 64 * 64);
}

void test_buffer_free(void *p) {
    if (p && shmcoll_heap_owns(p))
        shmcoll_heap_free(p);
    else
        free(p);
}
