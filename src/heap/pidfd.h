/* Obtaining another process's file descriptor: pidfd_open + pidfd_getfd (Linux 5.6).
 *
 * A peer's arena is a memory file only its owner holds; pidfd_getfd duplicates the owner's
 * descriptor into this process, with the permission cross-memory attach needs too (ptrace
 * attach: same user, and Yama's ptrace_scope 0 or a descendant). Where the kernel or the C library
 * lacks the calls, or the permission is refused, teams learn it at setup from a probe and never
 * map peers' arenas: every collective then takes its copy-in/copy-out or cross-memory-attach path.
 *
 * The probe: each process keeps one empty memory file whose descriptor and inode number it
 * shares at team setup; a peer that can fetch that descriptor and finds the same inode behind it
 * can fetch the arenas' descriptors too. */
#ifndef SHMCOLL_HEAP_PIDFD_H
#define SHMCOLL_HEAP_PIDFD_H

#include <stdint.h>
#include <sys/types.h>

/* A new descriptor of this process for descriptor `fd` of process `pid`, or -1 (errno set;
 * ENOSYS where the system lacks the calls). */
int shmcoll_heap_pidfd_fetch(pid_t pid, int fd);

/* This process's probe file: its descriptor and inode number (created on first use; -1 when it
 * cannot be). */
int shmcoll_heap_pidfd_probe_target(uint64_t *inode);

/* Whether this process can fetch descriptor `fd` of `pid` and finds inode `inode` behind it. */
int shmcoll_heap_pidfd_probe(pid_t pid, int fd, uint64_t inode);

#endif
