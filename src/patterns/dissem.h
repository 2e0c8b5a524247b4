/* Dissemination barrier (Hensgen, Finkel and Manber; Hoefler et al.): in round k every rank
 * signals rank + 2^k and waits for rank - 2^k (mod p). After round k a rank has heard,
 * transitively, from the 2^(k+1) - 1 ranks behind it, so ceil(log2 p) rounds reach everyone for
 * any p, with one writer per flag and no read-modify-write atomics. The multi-radix form is the
 * cyclic shift allgather with no data (cyclic.h). */
#ifndef SHMCOLL_PATTERNS_DISSEM_H
#define SHMCOLL_PATTERNS_DISSEM_H

/* ceil(log2 p), 0 for p = 1. */
int shmcoll_pattern_dissem_rounds(int p);

/* The rank that `rank` signals in `round`: rank + 2^round mod p. */
int shmcoll_pattern_dissem_to(int p, int round, int rank);

/* The rank that `rank` waits for in `round`: rank - 2^round mod p. */
int shmcoll_pattern_dissem_from(int p, int round, int rank);

#endif
