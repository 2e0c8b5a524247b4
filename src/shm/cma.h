/* Single-copy transfers between team members' private memory: Linux cross-memory attach
 * (process_vm_readv / process_vm_writev).
 *
 * The kernel copies straight from one process's buffer into another's, so a block moves once
 * instead of twice (into a shared slot, then out of it). It needs the same permission as ptrace
 * attach (same user, and Yama's ptrace_scope 0 or a descendant relation; seccomp profiles of some
 * containers forbid it): the team probes every pair at setup (core/team.c) and uses these calls
 * only when all may. */
#ifndef SHMCOLL_SHM_CMA_H
#define SHMCOLL_SHM_CMA_H

#include "base/status.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Copies `bytes` from address `remote` of process `pid` into `local` (or, with `write` set, from
 * `local` to `remote`). On failure writes a message naming `rank` and the errno into `error`:
 * PEER_DEAD when the process is gone, NOT_SUPPORTED when the kernel refuses cross-memory attach,
 * SYSTEM otherwise (e.g. an address that is not mapped). */
shmcoll_status_t shmcoll_cma_copy(pid_t pid, int rank, void *local, uintptr_t remote, size_t bytes,
                                  int write, char *error, size_t error_len);

/* Whether this process may read `bytes` at `remote` of `pid` and finds `expected` there. */
int shmcoll_cma_probe(pid_t pid, uintptr_t remote, uint64_t expected);

/* Lets the processes of this user read this one's memory where Yama's ptrace_scope is 1, under
 * which only a process's ancestors may, and no team member is another's: PR_SET_PTRACER_ANY, as
 * Open MPI's shared-memory transport and UCX declare for their own single copies. Scope 1 is
 * Ubuntu's default; there, without it, every member's probe failed and large blocks moved twice
 * (copy-in/copy-out) unless the MPI library had declared it. Scopes 2 and 3 allow no such
 * declaration, 0 needs none. Once per process, before its first team's probes. */
void shmcoll_cma_open_to_peers(void);

#endif
