/* MPI_Init, MPI_Init_thread and MPI_Finalize, and the process-wide setup of the MPI layer.
 *
 * The setup (log rank, datatype table, communicator keyval) needs a working MPI, so it runs right
 * after PMPI_Init, or lazily from the first wrapped call if MPI was initialised before this library
 * was interposed. MPI_Finalize reports the statistics and destroys the teams of MPI_COMM_WORLD and
 * MPI_COMM_SELF while MPI still works, then finalises MPI. The thread policy is in init.h. */
#include "mpi/init.h"
#include "mpi/agree.h"
#include "mpi/comm_state.h"
#include "mpi/datatype.h"
#include "mpi/express.h"
#include "mpi/footprint.h"
#include "mpi/heap_report.h"
#include "mpi/library_progress.h"
#include "mpi/op.h"
#include "mpi/presence.h"
#include "mpi/progress.h"
#include "mpi/stats.h"
#include "mpi/stats_view.h"
#include "mpi/version.h"

#include "base/config.h"
#include "base/log.h"
#include "core/team_pool.h"
#include "core/team_topo.h"
#include "group/scratch.h"
#include "kernels/kernels.h"
#include "select/tune.h"
#include "shmcoll.h"

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static atomic_int ready;
static int world_rank = -1;
static void (*finalize_hook[4])(void);
static int finalize_hooks;

void shmcoll_mpi_init_at_finalize(void (*hook)(void)) {
    if (finalize_hooks < 4) finalize_hook[finalize_hooks++] = hook;
}

/* The first line of the MPI library's version, for the tuning files' fingerprint. */
static void tell_tune_the_library(void) {
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    PMPI_Get_library_version(text, &len);
    text[len < (int)sizeof text ? len : (int)sizeof text - 1] = '\0';
    text[strcspn(text, "\n")] = '\0';
    shmcoll_tune_set_mpi_library(text);
}

static void init_global(void) {
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    shmcoll_log_set_rank(world_rank);
    int provided = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&provided);
    shmcoll_mpi_threads_init(provided);
    tell_tune_the_library();
    shmcoll_mpi_datatype_init();
    shmcoll_mpi_op_init();
    if (shmcoll_mpi_comm_state_init() != SHMCOLL_OK) {
        shmcoll_log_warn("cannot create a communicator attribute; collectives go to the MPI "
                         "library");
        return;
    }
    shmcoll_mpi_library_progress_install();
    shmcoll_team_topo_load();
    if (world_rank == 0)
        shmcoll_log_verbose("shmcoll %s active (reduction kernels: %s)",
                            shmcoll_mpi_build_identity(), shmcoll_kernel_isa());
    atomic_store_explicit(&ready, 1, memory_order_release);
}

int shmcoll_mpi_init_ensure(void) {
    if (atomic_load_explicit(&ready, memory_order_acquire)) return 1;
    int initialized = 0, finalized = 0;
    PMPI_Initialized(&initialized);
    PMPI_Finalized(&finalized);
    if (!initialized || finalized) return 0;
    pthread_once(&init_once, init_global);
    return atomic_load_explicit(&ready, memory_order_acquire);
}

void shmcoll_mpi_init_done(void) {
    static atomic_int once;
    if (atomic_exchange(&once, 1)) return; /* a Fortran MPI_INIT that called MPI_Init */
    int absent = -1;
    if (shmcoll_mpi_presence_missing(&absent) > 0)
        shmcoll_mpi_agree_job_without(absent); /* no collective: that rank would not make it */
    else
        shmcoll_mpi_agree_job(); /* collective: every process makes it here */
    shmcoll_mpi_express_straight = shmcoll_mpi_straight_through();
    if (!shmcoll_mpi_disabled()) shmcoll_mpi_init_ensure();
}

SHMCOLL_API int MPI_Init(int *argc, char ***argv) {
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) shmcoll_mpi_init_done();
    return rc;
}

/* Every thread level is served (see init.h), so `provided` is whatever the MPI library gives. */
SHMCOLL_API int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) shmcoll_mpi_init_done();
    return rc;
}

SHMCOLL_API int MPI_Finalize(void) {
    const shmcoll_config_t *config = shmcoll_config();
    /* With SHMCOLL_DISABLE=1 the layer is only set up to report statistics. */
    if ((!shmcoll_mpi_disabled() || config->stats) && shmcoll_mpi_init_ensure()) {
        for (int i = 0; i < finalize_hooks; i++) finalize_hook[i]();
        shmcoll_mpi_library_progress_remove();
        /* Collectives over MPI_COMM_WORLD: only where every rank makes them (agree.h). */
        const int report = config->stats && shmcoll_mpi_stats_agreed();
        if (report) shmcoll_mpi_stats_report();
        if (report) shmcoll_mpi_view_report();
        if (report) shmcoll_mpi_heap_report();
        if (report) shmcoll_mpi_footprint_report();
        shmcoll_mpi_comm_state_finalize();
        shmcoll_team_pool_drain(); /* the segments the freed teams kept (core/team_pool.h) */
        shmcoll_scratch_release(); /* the compositions' kept scratch (group/scratch.h) */
        atomic_store_explicit(&ready, 0, memory_order_release);
    }
    return PMPI_Finalize();
}
