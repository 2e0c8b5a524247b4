/* Building blocks of the algorithms' cost functions (select/cost.c). */
#ifndef SHMCOLL_SELECT_COST_H
#define SHMCOLL_SELECT_COST_H

#include "select/select_args.h"

/* Latency of one synchronisation (flag hop), microseconds. */
double shmcoll_cost_sync(const shmcoll_select_team_t *team);
/* Latency of a synchronisation that waits for every member. */
double shmcoll_cost_sync_all(const shmcoll_select_team_t *team);
/* Time for one member to load and store `bytes`, microseconds. */
double shmcoll_cost_bytes(double bytes);
/* Time for one member to move `bytes` with one cross-memory-attach call (single copy). */
double shmcoll_cost_cma(double bytes);
/* Time for `readers` members to read `bytes` from one member's buffer. */
double shmcoll_cost_source(double bytes, int readers);
/* Factor on the bandwidth term of a topology-blind algorithm on a machine whose hierarchy has
 * `levels` levels (1 on a flat machine). */
double shmcoll_cost_spread(int levels);
/* Pipeline chunks of `chunk` bytes needed for `bytes` (at least 1). */
double shmcoll_cost_chunks(size_t bytes, size_t chunk);

#endif
