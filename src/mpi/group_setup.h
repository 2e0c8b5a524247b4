/* The group of a communicator, made by the MPI layer: the group (group/group.h) and what it
 * needs of MPI (the leaders' communicators of its network). See group_setup.c. */
#ifndef SHMCOLL_MPI_GROUP_SETUP_H
#define SHMCOLL_MPI_GROUP_SETUP_H

#include "group/group.h"
#include "mpi/net.h"

#include <mpi.h>

typedef struct shmcoll_mpi_group {
    shmcoll_group_t group;
    shmcoll_mpi_net_t net;
} shmcoll_mpi_group_t;

/* Collective over comm (every rank, at the same point). OK with *group, or a status and *reason
 * (the same outcome on every rank): the communicator is then not handled. */
shmcoll_status_t shmcoll_mpi_group_setup(MPI_Comm comm, int rank, int size,
                                         shmcoll_mpi_group_t **group, const char **reason);

/* Local. */
void shmcoll_mpi_group_destroy(shmcoll_mpi_group_t *group);

#endif
