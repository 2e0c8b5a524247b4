/* The node a process is on, as the color that splits a communicator into node teams. See
 * node_label.c. */
#ifndef SHMCOLL_MPI_NODE_LABEL_H
#define SHMCOLL_MPI_NODE_LABEL_H

/* A non-negative number equal for processes that can share segments and, but for a hash
 * collision, different for all others; local (no communication), computed once. */
int shmcoll_mpi_node_label(void);

#endif
