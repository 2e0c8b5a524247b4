/* The blocking form of every collective: the whole sequence of call.h in one go, with
 * calibration's turns (calibrate.h) and the short ways of a repeated call (repeat.h). See
 * blocking.h. */
#include "mpi/blocking.h"
#include "mpi/calibrate.h"
#include "mpi/check.h"
#include "mpi/repeat.h"
#include "mpi/stats_view.h"

#include "base/config.h"

#include "group/compose.h"

#include "shm/wait.h"

/* Begin, calibration's turn, prepare (or the prepared call of a repeat), run and finish. */
static shmcoll_status_t sequence(shmcoll_mpi_call_t *call, const shmcoll_mpi_coll_desc_t *desc,
                                 const void *margs, MPI_Comm comm, int large,
                                 shmcoll_mpi_calib_turn_t *turn) {
    shmcoll_mpi_call_clear(call);
    shmcoll_status_t status =
        shmcoll_mpi_call_begin(call, desc, margs, comm, large, SHMCOLL_MPI_BLOCKING);
    shmcoll_mpi_check(desc->coll, call->function, margs, comm); /* SHMCOLL_CHECK=1 */
    if (status != SHMCOLL_OK) return status;
    status = shmcoll_mpi_calibrate_begin(call, desc, margs, turn);
    if (turn->lean) turn->lean = shmcoll_mpi_repeat_lean(call, desc, margs);
    if (status == SHMCOLL_ERR_NOT_SUPPORTED && turn->settled)
        shmcoll_mpi_repeat_keep_theirs(call, desc, margs, turn->bytes, &turn->hold);
    if (status != SHMCOLL_OK) return status;
    /* Per-block byte counts and offsets of the v-variants, on the stack: a failed allocation
     * here would send this rank alone to the MPI library. */
    size_t sizes[4 * (size_t)call->state->size];
    call->sizes = sizes;
    const shmcoll_mpi_calib_hold_t *settled = turn->settled ? &turn->hold : NULL;
    if (shmcoll_mpi_repeat_reuse(call, desc, margs)) {
        shmcoll_mpi_calibrate_prepared(call, turn); /* the row of this call's way */
        shmcoll_mpi_repeat_settle(call, desc, margs, settled);
    } else {
        status = shmcoll_mpi_call_prepare(call, desc, margs);
        if (status == SHMCOLL_OK) {
            shmcoll_mpi_calibrate_prepared(call, turn);
            if (!shmcoll_mpi_repeat_keep(call, desc, margs, settled))
                shmcoll_mpi_calibrate_stamp_unkept(turn);
        }
    }
    if (status == SHMCOLL_OK && !call->algo && turn->tuned &&
        shmcoll_group_takes_mpi(call->group, &call->args)) {
        /* Given tuning sends these arguments to the MPI library (@mpi): as a measured verdict of
         * the MPI library's way, so that the calls repeating them run ahead, on the express path
         * (repeat.h). Through the group, each call took 0.1-0.15 us more than PMPI_Gather's
         * 0.12-0.2 us (Open MPI 4.1, p = 2, 8 bytes: 0.54-0.59x). */
        status = shmcoll_mpi_call_reject(call, "tuned: the MPI library's own");
        shmcoll_mpi_repeat_keep_theirs(call, desc, margs, turn->bytes, &turn->hold);
    }
    if (status == SHMCOLL_OK && !call->algo) {
        status = shmcoll_group_run(call->group, &call->args);
        if (status == SHMCOLL_ERR_NOT_SUPPORTED && call->group->map.nnodes > 1)
            call->reason = shmcoll_group_declined;
    }
    return shmcoll_mpi_call_finish(call, status);
}

/* The tail of every blocking call: end or the MPI library's collective, then the measurement's
 * end (calibrate.h; `turn` NULL: a repeat, outside any measurement). */
static int conclude(shmcoll_mpi_call_t *call, shmcoll_status_t status,
                    const shmcoll_mpi_coll_desc_t *desc, const void *margs, MPI_Comm comm,
                    int large, shmcoll_mpi_calib_turn_t *turn) {
    int rc;
    if (status != SHMCOLL_ERR_NOT_SUPPORTED) {
        rc = shmcoll_mpi_call_end(call, status);
    } else {
        shmcoll_mpi_call_fallback(call);
        rc = desc->fallback(margs, comm, large, NULL);
    }
    if (turn && (turn->band || turn->watched || turn->lean || turn->provisional))
        shmcoll_mpi_calibrate_end(call, turn);
    return rc;
}

/* The whole call with SHMCOLL_STATS=1 (which takes every call through the sequence), timed for
 * the statistics' view (stats_view.h). */
static int timed_run(const shmcoll_mpi_coll_desc_t *desc, const void *margs, MPI_Comm comm,
                     int large) {
    shmcoll_mpi_call_t call;
    shmcoll_mpi_calib_turn_t turn = {0};
    const double start = shmcoll_shm_now();
    const shmcoll_status_t status = sequence(&call, desc, margs, comm, large, &turn);
    const int rc = conclude(&call, status, desc, margs, comm, large, &turn);
    const size_t bytes = call.state && desc->key ? desc->key(margs, call.state) : call.bytes;
    shmcoll_mpi_view_time(desc->coll, bytes, status != SHMCOLL_ERR_NOT_SUPPORTED,
                          shmcoll_shm_now() - start);
    return rc;
}

int shmcoll_mpi_coll_run(const shmcoll_mpi_coll_desc_t *desc, const void *margs, MPI_Comm comm,
                         int large) {
    shmcoll_mpi_call_t call;
    shmcoll_mpi_repeat_entry_t *kept;
    switch (shmcoll_mpi_repeat_settled(&call, desc, margs, comm, large, &kept)) {
    case SHMCOLL_MPI_REPEAT_THEIRS:
        return desc->fallback(margs, comm, large, NULL);
    case SHMCOLL_MPI_REPEAT_OURS: /* the group may still hand it on (a row of @mpi) */
        return conclude(&call, shmcoll_mpi_repeat_run(call.group, kept), desc, margs, comm, large,
                        NULL);
    default:
        break;
    }
    if (__builtin_expect(shmcoll_config()->stats, 0)) return timed_run(desc, margs, comm, large);
    shmcoll_mpi_calib_turn_t turn = {0};
    const shmcoll_status_t status = sequence(&call, desc, margs, comm, large, &turn);
    return conclude(&call, status, desc, margs, comm, large, &turn);
}
