/* What this process may do to a peer process, probed once per peer: read its memory with
 * cross-memory attach (shm/cma.h), fetch its heap probe file with pidfd_getfd (heap/pidfd.h).
 *
 * Every team's setup asked both of every other member (core/team.c), each a few system calls
 * (process_vm_readv; pidfd_open, pidfd_getfd, fstat, close): 60-90 us of a setup that takes
 * about 100 us once its segment is kept (core/team_pool.h), against 15-20 us for the MPI
 * library's own communicator duplicate. The answer is the kernel's permission check between the
 * two processes (ptrace access: the same user, the Yama scope), which does not change while they
 * live, so it is kept per peer process: its pid and a random token it chose at its start (a pid
 * may come back for another process; the pair does not). */
#ifndef SHMCOLL_CORE_PEER_PROBE_H
#define SHMCOLL_CORE_PEER_PROBE_H

#include <stdint.h>
#include <sys/types.h>

/* This process's token (random, chosen on first use). */
uint64_t shmcoll_peer_token(void);

/* Whether this process can read the peer's word at `remote`, which must hold `expected`. */
int shmcoll_peer_probe_cma(pid_t pid, uint64_t token, uintptr_t remote, uint64_t expected);

/* Whether this process can fetch the peer's heap probe file (its descriptor `fd`, inode `inode`;
 * fd -1: the peer has none, 0). */
int shmcoll_peer_probe_heap(pid_t pid, uint64_t token, int fd, uint64_t inode);

#endif
