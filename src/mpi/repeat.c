/* The last prepared call of each collective on a communicator. See repeat.h. */
#include "mpi/repeat.h"

#include <stdlib.h>
#include <string.h>

#define MARGS_MAX 128 /* larger argument records are not kept (none is today) */

typedef struct repeat_entry {
    size_t margs_size; /* 0: empty */
    unsigned char margs[MARGS_MAX];
    shmcoll_coll_args_t args;
    shmcoll_reduce_op_t rop;
    shmcoll_mpi_op_ctx_t op_ctx;
} repeat_entry_t;

typedef struct repeat {
    repeat_entry_t *entries[SHMCOLL_MPI_COLL_COUNT]; /* made on a collective's first keep */
} repeat_t;

static void repeat_free(void *p) {
    repeat_t *repeat = p;
    for (int c = 0; c < SHMCOLL_MPI_COLL_COUNT; c++) free(repeat->entries[c]);
    free(repeat);
}

int shmcoll_mpi_repeat_reuse(shmcoll_mpi_call_t *call, const shmcoll_mpi_coll_desc_t *desc,
                             const void *margs) {
    const repeat_t *repeat = call->state->repeat;
    const repeat_entry_t *e = repeat ? repeat->entries[desc->coll] : NULL;
    if (!e || e->margs_size != desc->margs_size || memcmp(e->margs, margs, e->margs_size) != 0)
        return 0;
    call->args = e->args;
    call->rop = e->rop;
    call->op_ctx = e->op_ctx;
    if (e->args.op) { /* they pointed into the call that was kept */
        call->args.op = &call->rop;
        call->args.net_op = &call->op_ctx;
    }
    return 1;
}

/* What a later call with the same argument bytes would prepare alike (repeat.h). */
static int repeatable(const shmcoll_mpi_call_t *call) {
    const shmcoll_coll_args_t *a = &call->args;
    return call->group && !call->algo && !call->derived && !call->send.temp && !call->recv.temp &&
           !shmcoll_coll_kinds[a->kind].varying &&
           (!a->op || (a->op == &call->rop && call->rop.kernel));
}

void shmcoll_mpi_repeat_keep(const shmcoll_mpi_call_t *call, const shmcoll_mpi_coll_desc_t *desc,
                             const void *margs) {
    shmcoll_mpi_comm_t *state = call->state;
    if (desc->margs_size > MARGS_MAX || !repeatable(call)) return;
    if (!state->repeat) {
        if (!(state->repeat = calloc(1, sizeof(repeat_t)))) return;
        state->repeat_free = repeat_free;
    }
    repeat_entry_t **e = &((repeat_t *)state->repeat)->entries[desc->coll];
    if (!*e && !(*e = malloc(sizeof **e))) return; /* kept next time, perhaps */
    (*e)->margs_size = desc->margs_size;
    memcpy((*e)->margs, margs, desc->margs_size);
    (*e)->args = call->args;
    /* Uniform blocks: the per-block arrays (the call's stack) are not read. */
    (*e)->args.sendcounts = (*e)->args.recvcounts = NULL;
    (*e)->args.sdispls = (*e)->args.rdispls = NULL;
    (*e)->rop = call->rop;
    (*e)->op_ctx = call->op_ctx;
}
