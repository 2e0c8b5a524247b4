/* Allgather and allgatherv, pipelined through every member's own slots (YHCCL Algorithm 4).
 *
 * Round t: every member copies piece t of its block into its buffer of parity t (the inline
 * area when all blocks fit in 64 bytes) and posts; then it copies piece t of every other
 * member's block out, starting with its right-hand neighbour so that the p readers of a round
 * spread over p different sources instead of all hitting member 0 first. With two parities a
 * member fills round t+1 while slower members still read round t. Every member knows every block
 * size (MPI passes all recvcounts everywhere), so the number of rounds needs no agreement.
 * Blocks of SHMCOLL_CMA_MIN bytes and more move single-copy instead up to SHMCOLL_CMA_MAX, at any
 * size with SHMCOLL_CMA=all (coll/single_copy.c). */
#include "coll/coll.h"
#include "coll/coll_internal.h"

static shmcoll_status_t allgather_rounds(shmcoll_team_t *team, const char *mine, char *recvbuf,
                                         const coll_bytes_t *blocks) {
    shmcoll_channel_t *ch = &team->channel;
    const int me = ch->rank, p = ch->size;
    size_t longest = 0;
    for (int r = 0; r < p; r++)
        if (coll_bytes_count(blocks, r) > longest) longest = coll_bytes_count(blocks, r);
    const int use_inline = longest <= SHMCOLL_INLINE_BYTES;
    const size_t piece = use_inline ? SHMCOLL_INLINE_BYTES : ch->chunk;
    const size_t rounds = coll_div_ceil(longest, piece);
    const size_t my_count = coll_bytes_count(blocks, me);
    /* YHCCL Algorithm 4: the own block, the whole receive buffer and the shared pieces. */
    size_t own_bytes = my_count;
    for (int r = 0; r < p; r++) own_bytes += coll_bytes_count(blocks, r);
    coll_declare_working_set(team, own_bytes, longest);

    char *own = recvbuf + coll_bytes_displ(blocks, me);
    for (size_t round = 0; round < rounds; round++) {
        const uint64_t step = shmcoll_channel_next_step(ch);
        const size_t n = coll_round_bytes(my_count, round, piece);
        if (n) {
            SHMCOLL_CHECK(shmcoll_channel_claim(ch, step));
            coll_copy(team, (void *)coll_slot(ch, me, step, use_inline), mine + round * piece, n);
            /* The own block's piece too, while it is in this core's cache. */
            coll_copy(team, own + round * piece, mine + round * piece, n);
        }
        shmcoll_channel_post(ch, step);
        SHMCOLL_CHECK(
            shmcoll_coll_collect_round(team, step, use_inline, 0, blocks, round, piece, recvbuf));
        shmcoll_channel_ack(ch, step);
    }
    return SHMCOLL_OK;
}

static shmcoll_status_t allgather_run(shmcoll_team_t *team, const char *mine, char *recvbuf,
                                      const coll_bytes_t *blocks, size_t longest) {
    if (coll_single_copy(team, 0, longest))
        return coll_end(team, shmcoll_coll_allgather_single(team, mine, recvbuf, blocks),
                        "single-copy");
    return coll_end(team, allgather_rounds(team, mine, recvbuf, blocks), "pipeline");
}

shmcoll_status_t shmcoll_allgather(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                   size_t bytes) {
    shmcoll_status_t status = coll_begin(team, "allgather");
    if (status != SHMCOLL_OK) return status;
    const coll_bytes_t blocks = {.bytes = bytes};
    const char *mine = sendbuf ? sendbuf : (char *)recvbuf + (size_t)team->rank * bytes;
    return allgather_run(team, mine, recvbuf, &blocks, bytes);
}

shmcoll_status_t shmcoll_allgatherv(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                    const size_t *recvbytes, const size_t *displs) {
    shmcoll_status_t status = coll_begin(team, "allgatherv");
    if (status != SHMCOLL_OK) return status;
    const coll_bytes_t blocks = {.counts = recvbytes, .displs = displs};
    const char *mine = sendbuf ? sendbuf : (char *)recvbuf + displs[team->rank];
    size_t longest = 0;
    for (int r = 0; r < team->size; r++)
        if (recvbytes[r] > longest) longest = recvbytes[r];
    return allgather_run(team, mine, recvbuf, &blocks, longest);
}
