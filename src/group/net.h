/* The network between the nodes of a group: collectives among the nodes' leaders, handed to the
 * MPI library underneath (the distributed engine that knows the network: UCX, libfabric, TCP).
 * MPI-free: mpi/ implements it over PMPI_I* on the leaders' communicators; tests fake it.
 *
 * A group has `nchannels` leaders per node: node rank c of every node leads channel c (the
 * channels of a node run their network steps at once, each over its share of the data). A
 * network step is non-blocking: started, then tested, so a composed collective overlaps it with
 * its node phases. Node indices are the group map's (nodes numbered by their lowest member). */
#ifndef SHMCOLL_GROUP_NET_H
#define SHMCOLL_GROUP_NET_H

#include "base/status.h"
#include "core/coll_args.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

/* One collective among the leaders of one channel, in the terms of core/coll_args.h with the
 * leaders (one per node, in node order) as members: root is a node, per-member counts and
 * displacements are per node, in bytes (elements for reductions, whose element layout is `op`
 * and whose MPI description is args->net_op). */
typedef struct shmcoll_net_coll {
    int channel;
    shmcoll_coll_args_t args;
} shmcoll_net_coll_t;

/* Leaders per node at most. */
#define SHMCOLL_NET_MAX_CHANNELS 8

/* Whether a count of a network step fits what the MPI library takes (an int). A composition
 * checks its steps at init, from values every member shares, and declines otherwise. */
static inline int shmcoll_net_fits(size_t count) {
    return count <= (size_t)INT_MAX;
}

typedef struct shmcoll_net {
    int nchannels; /* leaders per node */
    /* Starts `coll` among the leaders of its channel (this member leads it); *request is what
     * test takes. NOT_SUPPORTED only before anything was sent, for every leader alike. */
    shmcoll_status_t (*start)(void *ctx, const shmcoll_net_coll_t *coll, void **request);
    /* OK once the step is done (the request is gone), IN_PROGRESS, or a failure (the request is
     * gone too, and the message in `error`). Never waits. */
    shmcoll_status_t (*test)(void *ctx, void *request, char *error, size_t error_len);
    /* Runs `coll` to its end (the MPI library's blocking collective); may be NULL. OK or a
     * failure with the message in `error`. */
    shmcoll_status_t (*run)(void *ctx, const shmcoll_net_coll_t *coll, char *error,
                            size_t error_len);
    void *ctx;
    /* Largest call (shmcoll_compose_call_bytes) whose steps may use `run`; larger ones start
     * and test, which is faster with some MPI libraries for large steps. */
    size_t block_max;
    uint64_t bytes; /* bytes this member handed to the network (SHMCOLL_STATS: net=) */
} shmcoll_net_t;

#endif
