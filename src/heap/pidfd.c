/* pidfd_open + pidfd_getfd, and the probe teams run at setup. See pidfd.h. */
#include "heap/pidfd.h"

#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int shmcoll_heap_pidfd_fetch(pid_t pid, int fd) {
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
    const int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0) return -1;
    const int got = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
    const int error = errno;
    close(pidfd);
    errno = error;
    return got;
#else
    (void)pid, (void)fd;
    errno = ENOSYS;
    return -1;
#endif
}

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static int probe_fd = -1;
static uint64_t probe_inode;

static void probe_create(void) {
    const int fd = memfd_create("shmcoll-heap-probe", MFD_CLOEXEC);
    struct stat st;
    if (fd < 0) return;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return;
    }
    probe_inode = (uint64_t)st.st_ino;
    probe_fd = fd;
}

int shmcoll_heap_pidfd_probe_target(uint64_t *inode) {
    pthread_once(&probe_once, probe_create);
    *inode = probe_inode;
    return probe_fd;
}

int shmcoll_heap_pidfd_probe(pid_t pid, int fd, uint64_t inode) {
    if (fd < 0) return 0;
    const int got = shmcoll_heap_pidfd_fetch(pid, fd);
    if (got < 0) return 0;
    struct stat st;
    const int same = fstat(got, &st) == 0 && (uint64_t)st.st_ino == inode;
    close(got);
    return same;
}
