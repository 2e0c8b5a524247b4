/* The memory line of SHMCOLL_STATS=1:
 *
 *   shmcoll: memory budget=2097152 peak=1081344 held=540672 teams=1 shrunk=3 refused=96
 *
 * Every value is the largest of any rank: budget is SHMCOLL_SHM_BUDGET, peak and held the bytes
 * a rank's teams held at most and hold at MPI_Finalize (each team its share of the segment plus a
 * fixed charge for its private state), teams the live teams, shrunk the teams made with a smaller
 * chunk than configured, refused the teams not made because some member's budget was spent (their
 * communicators went to the MPI library). Printed with fprintf, not the logger, like the other
 * statistics lines: a stable format for scripts. */
#include "mpi/footprint.h"

#include "core/budget.h"

#include <mpi.h>
#include <stdio.h>

void shmcoll_mpi_footprint_report(void) {
    const shmcoll_budget_usage_t usage = shmcoll_budget_usage();
    enum { LIMIT, PEAK, HELD, TEAMS, SHRUNK, REFUSED, NVALUES };
    uint64_t mine[NVALUES] = {usage.limit, usage.peak,   usage.held,
                              usage.teams, usage.shrunk, usage.refused};
    uint64_t most[NVALUES];
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Reduce(mine, most, NVALUES, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank != 0) return;
    fprintf(stderr,
            "shmcoll: memory budget=%llu peak=%llu held=%llu teams=%llu shrunk=%llu "
            "refused=%llu\n",
            (unsigned long long)most[LIMIT], (unsigned long long)most[PEAK],
            (unsigned long long)most[HELD], (unsigned long long)most[TEAMS],
            (unsigned long long)most[SHRUNK], (unsigned long long)most[REFUSED]);
}
