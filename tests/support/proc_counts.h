/* What a test process holds, from /proc/self: open descriptors, mappings of shmcoll's heap
 * arenas, and pages of memory files in its resident set. For tests that prove nothing leaks. */
#ifndef SHMCOLL_TESTS_PROC_COUNTS_H
#define SHMCOLL_TESTS_PROC_COUNTS_H

/* Descriptors open in this process. */
int proc_open_fds(void);

/* Mappings of shared-heap arenas (memory files named shmcoll-heap) in this process. */
int proc_heap_mappings(void);

/* RssShmem of /proc/self/status in KiB (-1: unknown). */
long proc_rss_shmem_kib(void);

#endif
