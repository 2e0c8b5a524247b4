/* The engine's quiet pass inside the MPI library's progress loop. See library_progress.h. */
#include "mpi/library_progress.h"

#include "core/task.h"
#include "shmcoll.h"

#include <dlfcn.h>
#include <mpi.h>
#include <stdatomic.h>

static atomic_int hooked; /* the pass runs from the MPI library's loop */

#if defined(OPEN_MPI)
typedef int (*opal_callback_t)(void);
static int registered;

static int opal_callback(void) {
    if (shmcoll_engine_busy() && atomic_load_explicit(&hooked, memory_order_relaxed))
        shmcoll_engine_progress_quiet();
    return 0;
}

void shmcoll_mpi_library_progress_install(void) {
    int (*reg)(opal_callback_t) =
        (int (*)(opal_callback_t))dlsym(RTLD_DEFAULT, "opal_progress_register");
    registered = reg && reg(opal_callback) == 0;
    atomic_store(&hooked, registered);
}

void shmcoll_mpi_library_progress_remove(void) {
    atomic_store(&hooked, 0);
    int (*unreg)(opal_callback_t) =
        (int (*)(opal_callback_t))dlsym(RTLD_DEFAULT, "opal_progress_unregister");
    if (registered && unreg) unreg(opal_callback);
    registered = 0;
}
#else
void shmcoll_mpi_library_progress_install(void) {
    atomic_store(&hooked, 1);
}

void shmcoll_mpi_library_progress_remove(void) {
    atomic_store(&hooked, 0);
}

/* UCX's progress, as MPICH's ch4:ucx calls it on every poll of its progress loop. */
typedef unsigned (*ucp_progress_t)(void *worker);

static ucp_progress_t next_progress; /* UCX's, found at the first call */
SHMCOLL_API unsigned ucp_worker_progress(void *worker);

/* The first call, and the polls with tasks in flight: the pass, then UCX's progress. */
static __attribute__((noinline)) unsigned progress_with_pass(void *worker) {
    ucp_progress_t ucx = __atomic_load_n(&next_progress, __ATOMIC_ACQUIRE);
    if (!ucx) {
        ucx = (ucp_progress_t)dlsym(RTLD_NEXT, "ucp_worker_progress");
        if (!ucx || ucx == ucp_worker_progress) return 0; /* no UCX below: nothing calls this */
        __atomic_store_n(&next_progress, ucx, __ATOMIC_RELEASE);
    }
    if (atomic_load_explicit(&hooked, memory_order_relaxed)) shmcoll_engine_progress_quiet();
    return ucx(worker);
}

/* MPICH polls this without end while it waits: with nothing in flight, two loads and a jump to
 * UCX's own progress, no call and no stack. With the pass called on every poll, libshmcoll held
 * 7.7% of the CPU samples of a program that waits on MPI_Comm_idup (MPICH's
 * errors/comm/too_many_icomms2, p = 4 on 2 cores, perf record); now 1.5%. */
SHMCOLL_API unsigned ucp_worker_progress(void *worker) {
    const ucp_progress_t ucx = __atomic_load_n(&next_progress, __ATOMIC_ACQUIRE);
    if (__builtin_expect(!ucx || shmcoll_engine_busy(), 0)) return progress_with_pass(worker);
    return ucx(worker);
}
#endif
