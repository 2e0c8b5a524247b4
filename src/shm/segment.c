#include "shm/segment.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mempolicy.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

shmcoll_status_t shmcoll_shm_segment_random(uint64_t bits[2]) {
    return getrandom(bits, 2 * sizeof bits[0], 0) == (ssize_t)(2 * sizeof bits[0])
               ? SHMCOLL_OK
               : SHMCOLL_ERR_SYSTEM;
}

int shmcoll_shm_segment_path(char *out, size_t len, const char *dir, const uint64_t bits[2]) {
    int n = snprintf(out, len, "%s/%s%016llx%016llx", dir, SHMCOLL_SEGMENT_PREFIX,
                     (unsigned long long)bits[0], (unsigned long long)bits[1]);
    return n > 0 && (size_t)n < len;
}

static shmcoll_status_t map_fd(int fd, size_t size, shmcoll_segment_t *seg, char *error,
                               size_t error_len) {
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        snprintf(error, error_len, "mmap of %zu bytes of %s failed: %s", size, seg->path,
                 strerror(errno));
        return errno == ENOMEM ? SHMCOLL_ERR_NO_MEMORY : SHMCOLL_ERR_SYSTEM;
    }
    seg->base = base;
    seg->size = size;
    return SHMCOLL_OK;
}

/* Nodes a range may name (a mask of this many bits for mbind). */
#define MAX_NODES 1024
#define MASK_BITS (8 * sizeof(unsigned long))

/* The preference of a range's whole pages for its node, on the file through this mapping
 * (MPOL_PREFERRED: another node when that one is full, never a failure). Best effort: mbind's
 * refusal leaves the default. */
static void prefer_node(char *base, const shmcoll_shm_range_t *range) {
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    const uintptr_t lo = ((uintptr_t)(base + range->offset) + page - 1) & ~(page - 1);
    const uintptr_t hi = (uintptr_t)(base + range->offset + range->bytes) & ~(page - 1);
    if (range->node < 0 || range->node >= MAX_NODES || hi <= lo) return;
    unsigned long mask[MAX_NODES / MASK_BITS] = {0};
    mask[(unsigned)range->node / MASK_BITS] = 1ul << ((unsigned)range->node % MASK_BITS);
    (void)syscall(SYS_mbind, lo, hi - lo, MPOL_PREFERRED, mask, (unsigned long)MAX_NODES + 1, 0u);
}

shmcoll_status_t shmcoll_shm_segment_create_placed(const char *path, size_t size,
                                                   const shmcoll_shm_range_t *ranges, int nranges,
                                                   shmcoll_segment_t *seg, char *error,
                                                   size_t error_len) {
    memset(seg, 0, sizeof *seg);
    if (snprintf(seg->path, sizeof seg->path, "%s", path) >= (int)sizeof seg->path) {
        snprintf(error, error_len, "segment path too long: %s", path);
        return SHMCOLL_ERR_INVALID;
    }
    int fd = open(seg->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        snprintf(error, error_len, "cannot create segment %s: %s", path, strerror(errno));
        return SHMCOLL_ERR_SYSTEM;
    }
    seg->linked = 1;
    /* With ranges to place, mapped before the reservation (nothing is touched before it), so that
     * their preferences are the file's when its pages are allocated; placing is best effort, and
     * a segment that cannot be mapped yet is mapped after the reservation, as without ranges. */
    if (nranges > 0 && map_fd(fd, size, seg, error, error_len) == SHMCOLL_OK)
        for (int i = 0; i < nranges; i++) prefer_node(seg->base, &ranges[i]);
    /* Reserve every page now: tmpfs allocates lazily, and a page that cannot be allocated at first
     * touch is a SIGBUS in the middle of a collective. posix_fallocate returns the error code. */
    shmcoll_status_t status = SHMCOLL_OK;
    int err = posix_fallocate(fd, 0, (off_t)size);
    if (err) {
        snprintf(error, error_len, "cannot reserve %zu bytes for %s: %s", size, path,
                 strerror(err));
        status = (err == ENOSPC || err == EFBIG || err == EDQUOT) ? SHMCOLL_ERR_NO_SPACE
                                                                  : SHMCOLL_ERR_SYSTEM;
    } else if (!seg->base) {
        status = map_fd(fd, size, seg, error, error_len);
    }
    close(fd);
    if (status != SHMCOLL_OK) shmcoll_shm_segment_detach(seg);
    return status;
}

shmcoll_status_t shmcoll_shm_segment_create(const char *path, size_t size, shmcoll_segment_t *seg,
                                            char *error, size_t error_len) {
    return shmcoll_shm_segment_create_placed(path, size, NULL, 0, seg, error, error_len);
}

shmcoll_status_t shmcoll_shm_segment_attach(const char *path, size_t size, shmcoll_segment_t *seg,
                                            char *error, size_t error_len) {
    memset(seg, 0, sizeof *seg);
    snprintf(seg->path, sizeof seg->path, "%s", path);
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        snprintf(error, error_len, "cannot open segment %s: %s", path, strerror(errno));
        return SHMCOLL_ERR_SYSTEM;
    }
    struct stat st;
    shmcoll_status_t status = SHMCOLL_OK;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size != size) {
        snprintf(error, error_len, "segment %s has the wrong size", path);
        status = SHMCOLL_ERR_SYSTEM;
    } else {
        status = map_fd(fd, size, seg, error, error_len);
    }
    close(fd);
    return status;
}

void shmcoll_shm_segment_unlink(shmcoll_segment_t *seg) {
    if (seg->linked) unlink(seg->path);
    seg->linked = 0;
}

void shmcoll_shm_segment_detach(shmcoll_segment_t *seg) {
    shmcoll_shm_segment_unlink(seg);
    if (seg->base) munmap(seg->base, seg->size);
    seg->base = NULL;
}
