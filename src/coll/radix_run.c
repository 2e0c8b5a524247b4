#include "coll/radix_run.h"

#include <stdlib.h>

/* Radices up to this many members keep their scratch on the stack. */
#define STACK_RADIX 64

shmcoll_status_t shmcoll_coll_radix_run(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                        size_t count, const shmcoll_reduce_op_t *op,
                                        const shmcoll_pattern_radix_t *f,
                                        coll_radix_round_fn round) {
    if (count == 0) return SHMCOLL_OK;
    if (op->size == 0 || op->extent < op->size || (!op->kernel && !op->user_fn))
        return SHMCOLL_ERR_NOT_SUPPORTED;
    const size_t span = shmcoll_reduce_op_span(op, count);
    const int use_inline = span <= SHMCOLL_INLINE_BYTES;
    const size_t per = use_inline ? count : team->channel.chunk / op->extent;
    if (per == 0) return SHMCOLL_ERR_NOT_SUPPORTED;
    const char *input = sendbuf ? sendbuf : recvbuf;
    if (team->size == 1) {
        coll_copy(team, recvbuf, input, span);
        return SHMCOLL_OK;
    }

    coll_declare_working_set(team, 2 * span, span);
    int stack_members[STACK_RADIX];
    const void *stack_bases[STACK_RADIX], *stack_x[STACK_RADIX];
    coll_radix_run_t run = {.team = team,
                            .op = op,
                            .f = f,
                            .use_inline = use_inline,
                            .members = stack_members,
                            .bases = stack_bases,
                            .x = stack_x};
    const int largest = shmcoll_pattern_radix_largest(f);
    if (largest > STACK_RADIX) {
        run.members = malloc((size_t)largest * sizeof *run.members);
        run.bases = malloc((size_t)largest * sizeof *run.bases);
        run.x = malloc((size_t)largest * sizeof *run.x);
    }
    shmcoll_status_t status =
        run.members && run.bases && run.x ? SHMCOLL_OK : SHMCOLL_ERR_NO_MEMORY;
    for (size_t lo = 0; lo < count && status == SHMCOLL_OK; lo += per) {
        const size_t n = count - lo < per ? count - lo : per;
        status = round(&run, input + lo * op->extent, (char *)recvbuf + lo * op->extent, n);
    }
    if (run.members != stack_members) free(run.members);
    if (run.bases != stack_bases) free(run.bases);
    if (run.x != stack_x) free(run.x);
    return status;
}
