/* What the multi-radix allreduces (recexch.c, cyclic.c) share around their schedules: the state
 * of a run and the driver that checks the arguments, serves p = 1, owns the per-radix scratch and
 * walks the vector in rounds of at most one buffer. */
#ifndef SHMCOLL_COLL_RADIX_RUN_H
#define SHMCOLL_COLL_RADIX_RUN_H

#include "coll/coll_internal.h"
#include "patterns/radix.h"

typedef struct coll_radix_run {
    shmcoll_team_t *team;
    const shmcoll_reduce_op_t *op;
    const shmcoll_pattern_radix_t *f;
    int use_inline;
    int *members;         /* [largest radix] scratch: a step's group */
    const void **bases;   /* [largest radix] scratch: operand buffers, laid out as the round */
    const void **x;       /* [largest radix] scratch: fold operands */
    coll_blocks_t blocks; /* of the current round */
} coll_radix_run_t;

/* One round: n elements of input into recvbuf. */
typedef shmcoll_status_t (*coll_radix_round_fn)(coll_radix_run_t *run, const char *input,
                                                char *recvbuf, size_t n);

/* Runs `round` over the vector in rounds of at most one buffer (inline for tiny vectors).
 * NOT_SUPPORTED for an op without a usable function or for a buffer smaller than an element. */
shmcoll_status_t shmcoll_coll_radix_run(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                        size_t count, const shmcoll_reduce_op_t *op,
                                        const shmcoll_pattern_radix_t *f,
                                        coll_radix_round_fn round);

#endif
