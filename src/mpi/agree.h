/* One configuration per communicator and per job.
 *
 * shmcoll runs in jobs whose ranks may be configured differently: an MPMD launch, a module file
 * that sets a knob on one partition only, a tuning file whose fingerprint matches one node type
 * of a mixed cluster. Every setting that decides a path must be the same on the ranks that take
 * it, or they take different paths and wait for each other forever. So (base/config.h gives each
 * knob its scope):
 *   JOB    knobs decide whether and when a communicator is set up at all (SHMCOLL_DISABLE,
 *          SHMCOLL_COLLS_THRESHOLD, SHMCOLL_CHECK; and SHMCOLL_STATS, which decides whether
 *          MPI_Finalize gathers statistics, so a difference there only turns them off): MPI_Init
 * (and MPI_Init_thread, and their Fortran bindings) compares them over MPI_COMM_WORLD, and where
 * ranks differ shmcoll passes every call of the job to the MPI library, on every rank; COMM   knobs
 * and the tuning rules in force decide a communicator's path: its setup compares them first, and
 * where ranks differ the communicator goes to the MPI library, on every rank. One PMPI_Allreduce
 * compares them all: per knob, the least and the greatest hash of its value over the ranks
 * (MPI_MINLOC on the hash and on its negation), which also names two ranks that differ. Its first
 * entry is the build's identity (version.h), and its format is the same in every build, so ranks
 * that loaded different builds complete it and pass the job to the MPI library too. Rank 0
 * prints one warning line naming the first differing knob and those two ranks (SHMCOLL_VERBOSE=1:
 * every differing knob, at every such communicator). LOCAL knobs are this process's own choice (a
 * kernel, a wait) or reconciled by team setup itself (the shared-memory budget, the single-copy
 * level, the heap mode: the least any member asks for). */
#ifndef SHMCOLL_MPI_AGREE_H
#define SHMCOLL_MPI_AGREE_H

#include <mpi.h>

/* Compares the COMM knobs and the tuning rules in force over `comm` (this process is `rank`;
 * collective): NULL when every rank holds the same, else the reason the communicator goes to
 * the MPI library (the same on every rank). */
const char *shmcoll_mpi_agree_comm(MPI_Comm comm, int rank, int size);

/* Right after the MPI library's MPI_Init: compares the JOB knobs over MPI_COMM_WORLD (collective:
 * every process of the job makes it in its MPI_Init). */
void shmcoll_mpi_agree_job(void);

/* Instead of shmcoll_mpi_agree_job where rank `missing` of the job has no shmcoll (presence.h):
 * every call goes to the MPI library, on every rank that has it, without communicating. */
void shmcoll_mpi_agree_job_without(int missing);

/* Whether every call goes to the MPI library: SHMCOLL_DISABLE=1, or the job's ranks disagreed on
 * a JOB knob. The reason, for statistics and messages. */
int shmcoll_mpi_disabled(void);
int shmcoll_mpi_job_differs(void);

/* Whether every call may go to the MPI library as it comes, without shmcoll's record of it:
 * disabled, and nothing wants the records (statistics, argument checks, the verbose log's line
 * per call). Through shmcoll's whole sequence a disabled job's 8-byte collectives took 1.4-2x
 * the MPI library's time (Open MPI 4.1, p = 2: gather 0.21 -> 0.37 us); a job disabled to find
 * out whether shmcoll costs it time must not pay for shmcoll. */
int shmcoll_mpi_straight_through(void);

/* Whether the job's ranks agree on SHMCOLL_STATS (the statistics are gathered at MPI_Finalize
 * only then). */
int shmcoll_mpi_stats_agreed(void);
const char *shmcoll_mpi_disabled_reason(void);

#endif
