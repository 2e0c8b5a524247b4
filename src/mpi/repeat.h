/* A blocking call repeated with the same arguments skips their translation, and where its way
 * is settled, everything before its way.
 *
 * Applications call the same collective with the same arguments again and again (the dot
 * products of an iterative solver, a time step's exchanges), and for a small message the general
 * work of the MPI layer (the call record, the communicator's state, the datatypes' layouts and
 * blocks, the op's kernel, calibration's band) costs as much as the shared-memory part, or as the
 * MPI library's whole collective where that serves the call. So each communicator keeps, per
 * collective, the MPI arguments of its last call, the call as prepared for the group, and the way
 * the call went once that way is settled for good (calibrate.h). A call whose arguments are the
 * same bytes then either goes straight to the MPI library (settled on its way), straight to the
 * group with the prepared call (settled on shmcoll's), or through the usual sequence with the
 * prepared call in place of preparing again (while calibration still takes turns).
 *
 * Only what cannot change under the same bytes is kept: every datatype and op of the call is
 * predefined (a derived type or user op may be freed and its handle reused for another, which no
 * wrapper of ours would see when freed from Fortran), no side needed packing (a temporary buffer
 * belongs to one call), and no per-block arrays (their contents may change under the same
 * pointers). Statistics (SHMCOLL_STATS) and argument checks (SHMCOLL_CHECK) want every call whole,
 * so with either on no call skips the sequence. The communicator's state holds the entries and
 * frees them with itself. */
#ifndef SHMCOLL_MPI_REPEAT_H
#define SHMCOLL_MPI_REPEAT_H

#include "mpi/calibrate.h"
#include "mpi/call.h"

/* Where the entry of the call's collective settled it. */
typedef enum shmcoll_mpi_repeat_way {
    SHMCOLL_MPI_REPEAT_NONE,   /* not the same arguments, or nothing settled */
    SHMCOLL_MPI_REPEAT_OURS,   /* the kept call runs on the group (shmcoll_mpi_repeat_run) */
    SHMCOLL_MPI_REPEAT_THEIRS, /* the MPI library's collective serves it */
} shmcoll_mpi_repeat_way_t;

/* A collective's last call on a communicator (repeat.c). */
typedef struct repeat_entry shmcoll_mpi_repeat_entry_t;

/* The settled way of a call with `margs` on `comm`, before anything else of the call is done:
 * first whether it is the next call of a run ahead on the MPI library's way (run_ahead in
 * repeat.c: then nothing else is looked at). For OURS the call's head is filled as begin fills
 * it (call.h) and *kept is the entry to run (shmcoll_mpi_repeat_run). A call of either way is
 * stamped where the loop check times its band's calls (calibrate.h). */
shmcoll_mpi_repeat_way_t shmcoll_mpi_repeat_settled(shmcoll_mpi_call_t *call,
                                                    const shmcoll_mpi_coll_desc_t *desc,
                                                    const void *margs, MPI_Comm comm, int large,
                                                    shmcoll_mpi_repeat_entry_t **kept);

/* Runs the kept call that repeat_settled found settled on shmcoll's way on `group`: its prepared
 * arguments and, on one node, the row its first run chose, without copying or choosing again. */
shmcoll_status_t shmcoll_mpi_repeat_run(shmcoll_group_t *group, shmcoll_mpi_repeat_entry_t *kept);

/* Fills a cleared and begun call from its collective's last prepared call when `margs` are the
 * same bytes; 0 when the call must be prepared. */
int shmcoll_mpi_repeat_reuse(shmcoll_mpi_call_t *call, const shmcoll_mpi_coll_desc_t *desc,
                             const void *margs);

/* A reused call's way is settled now (`settled`, NULL: not): later calls with the same `margs`
 * take it straight, with call->args.row, while the measured verdict lasts. */
void shmcoll_mpi_repeat_settle(const shmcoll_mpi_call_t *call, const shmcoll_mpi_coll_desc_t *desc,
                               const void *margs, const shmcoll_mpi_calib_hold_t *settled);

/* Keeps a call that prepare has just made (SHMCOLL_OK, before running) for the next calls with
 * the same `margs`, where it may be kept; `settled` (NULL: not) as for shmcoll_mpi_repeat_settle.
 * 0 where it is not kept: such calls always take the sequence. */
int shmcoll_mpi_repeat_keep(const shmcoll_mpi_call_t *call, const shmcoll_mpi_coll_desc_t *desc,
                            const void *margs, const shmcoll_mpi_calib_hold_t *settled);

/* Keeps that calls with `margs` go to the MPI library while the measured verdict `hold` for the
 * band of `key` (the descriptor's key of the call) lasts. */
void shmcoll_mpi_repeat_keep_theirs(const shmcoll_mpi_call_t *call,
                                    const shmcoll_mpi_coll_desc_t *desc, const void *margs,
                                    size_t key, const shmcoll_mpi_calib_hold_t *hold);

/* A call of the MPI library's way whose next calls with the same `margs` may take the express
 * path (express.h) in the band the call is counted in, as a run ahead's do (repeat.c): its band
 * follows from the arguments' bytes, or is the agreed key's (key_local), and statistics and
 * checks do not want every call whole. */
int shmcoll_mpi_repeat_lean(const shmcoll_mpi_call_t *call, const shmcoll_mpi_coll_desc_t *desc,
                            const void *margs);

#endif
