/* Shared segments: files in a tmpfs directory (SHMCOLL_SHM_DIR, default /dev/shm), mapped by every
 * team member.
 *
 * Lifecycle, chosen so that nothing can be left behind and nothing can SIGBUS:
 *   create  one member: O_CREAT|O_EXCL, mode 0600, an unpredictable name (no collision with other
 *           jobs, no pre-planted file), space reserved with posix_fallocate (a full or small tmpfs
 *           is a clean SHMCOLL_ERR_NO_SPACE here instead of a SIGBUS at first touch later), each
 *           page on the NUMA node the creator names for its range (create_placed): tmpfs
 *           allocates the pages in the reservation, in the creator's context, so a later first
 *           touch by another process no longer places them;
 *   attach  every other member, by the name shared through the team's bootstrap;
 *   unlink  the creator, as soon as all have attached: from then on a crash leaves no file. */
#ifndef SHMCOLL_SHM_SEGMENT_H
#define SHMCOLL_SHM_SEGMENT_H

#include "base/status.h"

#include <stddef.h>
#include <stdint.h>

#define SHMCOLL_SEGMENT_PATH_MAX 256
#define SHMCOLL_SEGMENT_PREFIX   "shmcoll-"

typedef struct shmcoll_segment {
    void *base;
    size_t size;
    int linked; /* the file still has a name (only the creator unlinks it) */
    char path[SHMCOLL_SEGMENT_PATH_MAX];
} shmcoll_segment_t;

/* The path of a segment in `dir` named after 128 random bits. A team derives the bits from
 * random contributions of all its members, so every member knows the name before the file
 * exists and any survivor can remove it if the creator dies before it could. Returns 0 when the
 * path does not fit. */
int shmcoll_shm_segment_path(char *out, size_t len, const char *dir, const uint64_t bits[2]);

/* 128 fresh random bits (getrandom). */
shmcoll_status_t shmcoll_shm_segment_random(uint64_t bits[2]);

/* Create and map a segment of `size` bytes at `path` (which must not exist). On failure nothing
 * exists and `error` says why. */
shmcoll_status_t shmcoll_shm_segment_create(const char *path, size_t size, shmcoll_segment_t *seg,
                                            char *error, size_t error_len);

/* A range of a segment whose pages belong on a NUMA node (its OS index; -1: anywhere). */
typedef struct shmcoll_shm_range {
    size_t offset, bytes;
    int node;
} shmcoll_shm_range_t;

/* As shmcoll_shm_segment_create, with the pages of each range allocated on its node where the
 * kernel can (the creator's mapping takes the preference before the pages are reserved; tmpfs
 * keeps it with the file, so the reservation and every later mapping follow it). A range the
 * kernel refuses (no NUMA support, a node it does not have) is left to the default placement. */
shmcoll_status_t shmcoll_shm_segment_create_placed(const char *path, size_t size,
                                                   const shmcoll_shm_range_t *ranges, int nranges,
                                                   shmcoll_segment_t *seg, char *error,
                                                   size_t error_len);

/* Map an existing segment by path; fails unless its size is exactly `size`. */
shmcoll_status_t shmcoll_shm_segment_attach(const char *path, size_t size, shmcoll_segment_t *seg,
                                            char *error, size_t error_len);

/* Remove the name (idempotent). Mappings stay valid. */
void shmcoll_shm_segment_unlink(shmcoll_segment_t *seg);

/* Unmap (and unlink if still linked). */
void shmcoll_shm_segment_detach(shmcoll_segment_t *seg);

#endif
