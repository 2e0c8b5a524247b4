/* The last call of each collective on a communicator. See repeat.h. */
#include "mpi/repeat.h"
#include "mpi/agree.h"
#include "mpi/calibrate.h"
#include "mpi/datatype.h"
#include "mpi/express.h"
#include "mpi/init.h"

#include "base/config.h"

#include "group/compose.h"

#include <stdlib.h>
#include <string.h>

#define MARGS_MAX 128 /* larger argument records are not kept (none is today) */

struct repeat_entry {
    size_t margs_size; /* of the arguments below */
    unsigned char margs[MARGS_MAX];
    int prepared; /* args, rop and op_ctx are the prepared call's */
    shmcoll_mpi_repeat_way_t way;
    size_t key; /* THEIRS: the descriptor's key then; a derived type remade under the same handle
                 * may change it, and with it the band (every rank must take the same way) */
    shmcoll_mpi_calib_hold_t hold; /* the measured verdict the way follows (calibrate.h) */
    int steady; /* THEIRS: the band cannot change while the arguments' bytes do not */
    shmcoll_mpi_express_run_t run; /* THEIRS: calls of the band's count taken ahead (run_ahead) */
    shmcoll_coll_args_t args;      /* its op and net_op point to rop and op_ctx below */
    shmcoll_reduce_op_t rop;
    shmcoll_mpi_op_ctx_t op_ctx;
    shmcoll_coll_choice_t choice; /* OURS on one node: the row its first run chose */
    /* The v-variants: the user's arrays prepare read and a copy of their contents, then the
     * per-block bytes and offsets prepare made of them, which args points into. */
    int narrays;
    const void *array_at[SHMCOLL_MPI_CALL_ARRAYS];
    size_t array_bytes[SHMCOLL_MPI_CALL_ARRAYS];
    unsigned char *copy; /* the arrays' contents back to back, then the sizes */
    size_t copy_bytes;
};
typedef struct repeat_entry repeat_entry_t;

typedef struct repeat {
    repeat_entry_t *entries[SHMCOLL_MPI_COLL_COUNT]; /* made on a collective's first keep */
} repeat_t;

static void repeat_free(void *p) {
    repeat_t *repeat = p;
    for (int c = 0; c < SHMCOLL_MPI_COLL_COUNT; c++) {
        if (repeat->entries[c]) free(repeat->entries[c]->copy);
        free(repeat->entries[c]);
    }
    free(repeat);
}

/* The user's arrays hold what they held when the entry was kept. */
static int arrays_same(const repeat_entry_t *e) {
    const unsigned char *copy = e->copy;
    for (int i = 0; i < e->narrays; i++) {
        if (memcmp(e->array_at[i], copy, e->array_bytes[i]) != 0) return 0;
        copy += e->array_bytes[i];
    }
    return 1;
}

/* The collective's entry, whatever arguments it holds. */
static repeat_entry_t *entry_of(const shmcoll_mpi_comm_t *state,
                                const shmcoll_mpi_coll_desc_t *desc) {
    const repeat_t *repeat = state->repeat;
    return repeat ? repeat->entries[desc->coll] : NULL;
}

/* The entry holds these arguments. */
static int holds_args(const repeat_entry_t *e, const shmcoll_mpi_coll_desc_t *desc,
                      const void *margs) {
    return e->margs_size == desc->margs_size &&
           (!e->margs_size || memcmp(e->margs, margs, e->margs_size) == 0) && arrays_same(e);
}

/* The collective's entry when it holds these arguments. */
static repeat_entry_t *find(const shmcoll_mpi_comm_t *state, const shmcoll_mpi_coll_desc_t *desc,
                            const void *margs) {
    repeat_entry_t *e = entry_of(state, desc);
    return e && holds_args(e, desc, margs) ? e : NULL;
}

/* A run of calls on the MPI library's way: after a kept call of its way (THEIRS) was counted in
 * its band (calibrate_holds), the band's calls up to its next measurement are counted at once
 * (calibrate_reserve) where its datatypes are named and no count array at this rank decides its
 * band (steady: the band cannot change while the arguments' bytes stay), and each call with the
 * same arguments bytes then goes straight to the MPI library: a pointer and a compare of the
 * arguments from the entry point, none of the lookups, the key (the datatype's size from the MPI
 * library) or the count. A call of the collective with other arguments gives back what was not
 * used first (give_back), so every rank's counts stay those of the calls it made, whichever of
 * its calls ran ahead. Measured (callgrind on the non-root of a loop of 8-byte MPI_Gather on the
 * MPI library's way, Open MPI 4.1, p = 2): shmcoll's own instructions per call 436 -> 218. */
static uint32_t run_ahead(repeat_entry_t *e) {
    return e->steady ? shmcoll_mpi_calibrate_reserve(&e->hold) : 0;
}

/* The run ahead of the entry on the express path (express.h) of the call in hand, where its
 * arguments alone tell the run's next call: the call has no arrays, or its band is the agreed
 * key's (key_local: gatherv, scatterv, alltoallv), which no array's contents change before the
 * next agreement, up to which the run's calls are counted (calibrate_reserve). The arrays' contents
 * may change under the same pointers; the MPI library gets them as they are. The usual way of a
 * run's call (a compare of the arrays with their copies) cost those three 20-40 ns a call more
 * than PMPI's 0.11-0.3 us (Open MPI 4.1, p = 2, 8-byte blocks: 0.81-0.95x). */
static int expressible(const repeat_entry_t *e, const shmcoll_mpi_coll_desc_t *desc) {
    return !e->narrays || desc->key_local;
}

static void grant_express(repeat_entry_t *e, const shmcoll_mpi_coll_desc_t *desc) {
    if (e->run.left && expressible(e, desc)) shmcoll_mpi_express_grant = &e->run;
}

/* What a run ahead did not use back to its band. */
static void give_back(repeat_entry_t *e) {
    if (!e->run.left) return;
    shmcoll_mpi_calibrate_unreserve(&e->hold, e->run.left);
    e->run.left = 0;
}

static void restore(shmcoll_mpi_call_t *call, const repeat_entry_t *e) {
    call->args = e->args;
    call->rop = e->rop;
    call->op_ctx = e->op_ctx;
    if (e->args.op) { /* they pointed into the call that was kept */
        call->args.op = &call->rop;
        call->args.net_op = &call->op_ctx;
    }
}

/* Statistics (SHMCOLL_STATS) and argument checks (SHMCOLL_CHECK) want every call whole, and a
 * disabled job takes none of shmcoll's ways (repeat.h). */
static int repeats_off(void) {
    const shmcoll_config_t *config = shmcoll_config();
    return config->stats || config->check || shmcoll_mpi_disabled();
}

shmcoll_mpi_repeat_way_t shmcoll_mpi_repeat_settled(shmcoll_mpi_call_t *call,
                                                    const shmcoll_mpi_coll_desc_t *desc,
                                                    const void *margs, MPI_Comm comm, int large,
                                                    repeat_entry_t **kept) {
    /* The thread's last communicator needs no lookup; another is looked up where repeats may be
     * kept. Entries exist only on communicators with a group, set up already: no count or setup
     * here. The one-time setup may still be ahead (MPI_Init from Fortran does not pass our
     * wrapper). */
    shmcoll_mpi_comm_t *state = shmcoll_mpi_comm_state_recent(comm);
    if (!state && (repeats_off() || comm == MPI_COMM_NULL || !shmcoll_mpi_init_ensure() ||
                   shmcoll_mpi_comm_state_get(comm, SHMCOLL_MPI_COMM_LOOK, &state) != SHMCOLL_OK))
        return SHMCOLL_MPI_REPEAT_NONE;
    repeat_entry_t *e = entry_of(state, desc);
    const int same = e && holds_args(e, desc, margs);
    if (e && e->run.left) { /* a run ahead: its next call goes on before anything else */
        if (same) {
            e->run.left--;
            grant_express(e, desc);
            shmcoll_mpi_calibrate_stamp(&e->hold, 0);
            return SHMCOLL_MPI_REPEAT_THEIRS;
        }
        give_back(e); /* other arguments: the run ends */
    }
    if (repeats_off() || state->kind != SHMCOLL_MPI_COMM_GROUP || !same)
        return SHMCOLL_MPI_REPEAT_NONE;
    /* The verdict may have changed since the entry was kept, or be due to be measured again:
     * then the call takes the sequence (every rank counts the same calls, calibrate.h). */
    if (e->way == SHMCOLL_MPI_REPEAT_THEIRS) { /* a local key's band is the agreed key's */
        if ((!desc->key_local && desc->key(margs, state) != e->key) ||
            !shmcoll_mpi_calibrate_holds(&e->hold))
            return SHMCOLL_MPI_REPEAT_NONE;
        e->run.left = run_ahead(e);
        e->run.serial++; /* a new run: the express records of the last one end (express.h) */
        grant_express(e, desc);
        shmcoll_mpi_calibrate_stamp(&e->hold, e->steady && expressible(e, desc));
        return e->way;
    }
    if (e->way != SHMCOLL_MPI_REPEAT_OURS || !shmcoll_mpi_calibrate_holds(&e->hold))
        return SHMCOLL_MPI_REPEAT_NONE;
    /* The call's head as begin makes it (call.c); the arguments stay the entry's. */
    shmcoll_mpi_call_clear_head(call);
    call->comm = comm;
    call->coll = desc->coll;
    call->form = SHMCOLL_MPI_BLOCKING;
    call->function = desc->names[SHMCOLL_MPI_BLOCKING][large];
    call->unpack_skip = -1;
    call->state = state;
    call->group = state->group; /* its DAV and network bytes at the start count only for
                                 * statistics, which take no repeat */
    if (call->group->team->failed)
        return SHMCOLL_MPI_REPEAT_NONE; /* the usual sequence raises the group's failure */
    *kept = e;
    shmcoll_mpi_calibrate_stamp(&e->hold, 0);
    return SHMCOLL_MPI_REPEAT_OURS;
}

shmcoll_status_t shmcoll_mpi_repeat_run(shmcoll_group_t *group, repeat_entry_t *kept) {
    return shmcoll_group_run_chosen(group, &kept->args, &kept->choice);
}

int shmcoll_mpi_repeat_reuse(shmcoll_mpi_call_t *call, const shmcoll_mpi_coll_desc_t *desc,
                             const void *margs) {
    repeat_entry_t *e = find(call->state, desc, margs);
    if (!e || !e->prepared) return 0;
    restore(call, e);
    return 1;
}

void shmcoll_mpi_repeat_settle(const shmcoll_mpi_call_t *call, const shmcoll_mpi_coll_desc_t *desc,
                               const void *margs, const shmcoll_mpi_calib_hold_t *settled) {
    repeat_entry_t *e = settled ? find(call->state, desc, margs) : NULL;
    if (!e || !e->prepared) return;
    e->way = SHMCOLL_MPI_REPEAT_OURS;
    e->hold = *settled;
    e->args.row = call->args.row; /* the verdict's row */
    e->choice = (shmcoll_coll_choice_t){0};
}

/* The collective's entry, made on first use; NULL without memory (kept next time, perhaps). */
static repeat_entry_t *entry_for(shmcoll_mpi_comm_t *state, const shmcoll_mpi_coll_desc_t *desc,
                                 const void *margs) {
    if (desc->margs_size > MARGS_MAX) return NULL;
    if (!state->repeat) {
        if (!(state->repeat = calloc(1, sizeof(repeat_t)))) return NULL;
        state->repeat_free = repeat_free;
    }
    repeat_entry_t **e = &((repeat_t *)state->repeat)->entries[desc->coll];
    if (!*e && !(*e = calloc(1, sizeof **e))) return NULL;
    give_back(*e); /* none reserved here: repeat_settled gave it back */
    (*e)->steady = 0;
    (*e)->margs_size = desc->margs_size;
    if (desc->margs_size) memcpy((*e)->margs, margs, desc->margs_size); /* a barrier has none */
    (*e)->prepared = 0;
    (*e)->way = SHMCOLL_MPI_REPEAT_NONE;
    (*e)->narrays = 0;
    (*e)->choice = (shmcoll_coll_choice_t){0};
    return *e;
}

/* What a later call with the same argument bytes (and arrays) would prepare alike (repeat.h):
 * no derived type or user op (an op without a kernel marks the call derived, call.c), and of
 * the per-block kinds those whose arrays prepare recorded (data movement; reduce_scatter's
 * counts are not recorded). */
static int repeatable(const shmcoll_mpi_call_t *call) {
    const shmcoll_coll_kind_info_t *kind = &shmcoll_coll_kinds[call->args.kind];
    const int arrays_known =
        !kind->varying || (!kind->reduces && call->narrays <= SHMCOLL_MPI_CALL_ARRAYS);
    return call->group && !call->algo && !call->derived && !call->send.temp && !call->recv.temp &&
           arrays_known;
}

/* A per-block array of args, from the call's sizes to the entry's copy of them. */
static const size_t *moved(const size_t *p, const size_t *from, size_t n, const size_t *to) {
    return p && p >= from && p < from + n ? to + (p - from) : NULL;
}

/* The v-variants' arrays and sizes into the entry; 0 without memory. */
static int keep_arrays(repeat_entry_t *e, const shmcoll_mpi_call_t *call) {
    const size_t nsizes = 4 * (size_t)call->state->size;
    size_t bytes = nsizes * sizeof(size_t);
    for (int i = 0; i < call->narrays; i++) bytes += call->arrays[i].bytes;
    if (bytes > e->copy_bytes) {
        unsigned char *copy = realloc(e->copy, bytes);
        if (!copy) return 0;
        e->copy = copy;
        e->copy_bytes = bytes;
    }
    unsigned char *at = e->copy;
    for (int i = 0; i < call->narrays; i++) {
        e->array_at[i] = call->arrays[i].at;
        e->array_bytes[i] = call->arrays[i].bytes;
        memcpy(at, call->arrays[i].at, call->arrays[i].bytes);
        at += call->arrays[i].bytes;
    }
    e->narrays = call->narrays;
    size_t *sizes = memcpy(at, call->sizes, nsizes * sizeof(size_t));
    shmcoll_coll_args_t *a = &e->args;
    a->sendcounts = moved(a->sendcounts, call->sizes, nsizes, sizes);
    a->sdispls = moved(a->sdispls, call->sizes, nsizes, sizes);
    a->recvcounts = moved(a->recvcounts, call->sizes, nsizes, sizes);
    a->rdispls = moved(a->rdispls, call->sizes, nsizes, sizes);
    return 1;
}

int shmcoll_mpi_repeat_keep(const shmcoll_mpi_call_t *call, const shmcoll_mpi_coll_desc_t *desc,
                            const void *margs, const shmcoll_mpi_calib_hold_t *settled) {
    if (!repeatable(call)) return 0;
    repeat_entry_t *e = entry_for(call->state, desc, margs);
    if (!e) return 0;
    e->args = call->args;
    if (shmcoll_coll_kinds[call->args.kind].varying) {
        if (!keep_arrays(e, call)) return 0; /* not prepared: made again next time */
    } else { /* uniform blocks: the per-block arrays (the call's stack) are not read */
        e->args.sendcounts = e->args.recvcounts = NULL;
        e->args.sdispls = e->args.rdispls = NULL;
    }
    e->prepared = 1;
    e->way = settled ? SHMCOLL_MPI_REPEAT_OURS : SHMCOLL_MPI_REPEAT_NONE;
    if (settled) e->hold = *settled;
    e->rop = call->rop;
    e->op_ctx = call->op_ctx;
    if (e->args.op) { /* the entry's own, for the calls that run it (shmcoll_mpi_repeat_run) */
        e->args.op = &e->rop;
        e->args.net_op = &e->op_ctx;
    }
    return 1;
}

/* A call whose band follows from its arguments' bytes alone: its datatypes are in the predefined
 * table (a derived type freed and made again may come back under the same handle with another
 * size; the table is searched without calling the MPI library, since a rank may pass any handle
 * where MPI ignores it), and its key reads no count array at this rank (allgatherv's longest
 * block, reduce_scatter's vector: the arrays' contents may change under the same pointers); where
 * the key is this rank's own share (key_local) the agreed key decides the band, not the call. */
static int steady(const shmcoll_mpi_call_t *call, const shmcoll_mpi_coll_desc_t *desc,
                  void *margs) {
    if (desc->key_local) return 1;
    for (int i = 0; desc->types && desc->types(margs, i); i++)
        if (!shmcoll_mpi_datatype_known(*desc->types(margs, i))) return 0;
    size_t bytes;
    for (int i = 0; desc->arrays && i < 4; i++)
        if (desc->arrays(margs, i, call->state->rank, call->state->size, &bytes)) return 0;
    return 1;
}

void shmcoll_mpi_repeat_keep_theirs(const shmcoll_mpi_call_t *call,
                                    const shmcoll_mpi_coll_desc_t *desc, const void *margs,
                                    size_t key, const shmcoll_mpi_calib_hold_t *hold) {
    repeat_entry_t *e = entry_for(call->state, desc, margs);
    if (!e) return;
    e->way = SHMCOLL_MPI_REPEAT_THEIRS;
    e->key = key;
    e->hold = *hold;
    e->steady = steady(call, desc, e->margs); /* the entry's copy */
}

int shmcoll_mpi_repeat_lean(const shmcoll_mpi_call_t *call, const shmcoll_mpi_coll_desc_t *desc,
                            const void *margs) {
    /* the descriptor's functions take the record to point into it; they only read here */
    return !repeats_off() && steady(call, desc, (void *)margs);
}
