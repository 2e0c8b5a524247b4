/* Whether every process of the job loaded shmcoll, found without an MPI collective.
 *
 * A job where only some ranks load shmcoll (an MPMD part launched without the preload, or the
 * ranks on other nodes of an Open MPI job whose mpirun was not told to pass LD_PRELOAD on with
 * -x) cannot run shmcoll's agreement at MPI_Init: the ranks without it never make that
 * collective, and their own first collective meets it instead (measured: Open MPI 4.1 aborts
 * with MPI_ERR_TRUNCATE, MPICH 4.0 hangs). shmcoll cannot ask those ranks over MPI without making
 * that very mismatch, but under a PMIx launcher (Open MPI's mpirun, Slurm's srun --mpi=pmix) it
 * can ask the launcher: each rank with shmcoll posts a key in the job's key-value store after
 * MPI_Init, then looks the key up for every rank of its namespace, again and again until it is
 * found (a lookup before its rank posted it may end at once as not found) or the timeout has
 * passed. A rank that posted it is found as soon as it has; a rank without shmcoll never posts it,
 * and its lookups end by the timeout. Every rank with shmcoll so sees a rank missing or none, and
 * where one is, all of them hand every call to the MPI library without the agreement (agree.h):
 * the job runs as if shmcoll were not loaded (after the timeout's wait in its MPI_Init).
 *
 * Only with Open MPI over the external PMIx library it loaded itself (found already loaded after
 * MPI_Init, never loaded by shmcoll: a second PMIx client in the process would be a second
 * identity towards the launcher); elsewhere (MPICH's hydra passes LD_PRELOAD to every rank by
 * default, a singleton has no launcher) nothing is checked. */
#ifndef SHMCOLL_MPI_PRESENCE_H
#define SHMCOLL_MPI_PRESENCE_H

/* Seconds a lookup waits for a rank's key: longer than ranks' arrivals after MPI_Init can differ
 * (its end is a fence of the launcher's), even oversubscribed, since a rank taken for missing
 * while it is not would leave the others waiting in the agreement. */
#define SHMCOLL_MPI_PRESENCE_TIMEOUT 30

/* After PMPI_Init (every process of the job calls it there): 1 where a rank of this process's
 * namespace did not load shmcoll (the first found in *rank; the lookups stop there), 0 where
 * every rank did, -1 where it cannot be known (no PMIx launcher, not Open MPI's external PMIx,
 * or a lookup failed). */
int shmcoll_mpi_presence_missing(int *rank);

#endif
