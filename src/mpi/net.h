/* The network of a group over the MPI library: the channel communicator this member leads (if
 * any), and the group/net.h interface over it. See net.c. */
#ifndef SHMCOLL_MPI_NET_H
#define SHMCOLL_MPI_NET_H

#include "group/net.h"

#include <mpi.h>

typedef struct shmcoll_mpi_net {
    MPI_Comm comm; /* the leaders of this member's channel, one per node; MPI_COMM_NULL if none */
    int channel;   /* the channel this member leads (its node rank), -1 if none */
    int nodes;
} shmcoll_mpi_net_t;

/* Collective over comm: creates the channel communicators (members of node rank c < channels,
 * ranked by their node `node`). */
shmcoll_status_t shmcoll_mpi_net_init(shmcoll_mpi_net_t *net, MPI_Comm comm, int node,
                                      int node_rank, int nodes, int channels);
void shmcoll_mpi_net_fini(shmcoll_mpi_net_t *net);

/* The interface a group uses (its ctx is `net`, which must outlive it). */
shmcoll_net_t shmcoll_mpi_net_interface(shmcoll_mpi_net_t *net, int channels);

#endif
