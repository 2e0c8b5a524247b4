/* Dissemination barrier arithmetic; see dissem.h. */
#include "patterns/dissem.h"

int shmcoll_pattern_dissem_rounds(int p) {
    int rounds = 0;
    for (long long reach = 1; reach < p; reach *= 2) rounds++;
    return rounds;
}

int shmcoll_pattern_dissem_to(int p, int round, int rank) {
    return (int)((rank + (1LL << round)) % p);
}

int shmcoll_pattern_dissem_from(int p, int round, int rank) {
    long long offset = (1LL << round) % p;
    return (int)((rank - offset + p) % p);
}
