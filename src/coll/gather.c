/* Gather and gatherv through the senders' own slots.
 *
 * Round t: every non-root member copies piece t of its block into its buffer (inline area for
 * blocks of at most 64 bytes) and posts; the root copies the pieces out, visiting members from
 * its right-hand neighbour on. Senders run a round ahead thanks to the two parities. Blocks of
 * SHMCOLL_CMA_MIN bytes and more move single-copy instead (coll/single_copy.c).
 *
 * Gatherv: only the root knows every block size. When single-copy serves the long blocks and the
 * short ones fit a chunk, every block's way follows from its own size and the whole call is one
 * step in which senders never wait for the root (the single-copy entry). Otherwise (no
 * cross-memory attach, or chunks smaller than SHMCOLL_CMA_MIN) the root first publishes the
 * longest block in one agreement step and every member derives the number of rounds from it:
 * a round trip more, which made small gathervs twice as slow as gathers. */
#include "coll/coll.h"
#include "coll/coll_internal.h"

static shmcoll_status_t gather_rounds(shmcoll_team_t *team, const char *mine, size_t my_count,
                                      char *recvbuf, const coll_bytes_t *blocks, size_t longest,
                                      int root) {
    shmcoll_channel_t *ch = &team->channel;
    const int me = ch->rank, p = ch->size;
    const int use_inline = longest <= SHMCOLL_INLINE_BYTES;
    const size_t piece = use_inline ? SHMCOLL_INLINE_BYTES : ch->chunk;
    const size_t rounds = coll_div_ceil(longest, piece);
    coll_declare_working_set(team, longest * (size_t)(p + 1), longest);

    if (me == root && mine) coll_copy(team, recvbuf + coll_bytes_displ(blocks, me), mine, my_count);
    for (size_t round = 0; round < rounds; round++) {
        const uint64_t step = shmcoll_channel_next_step(ch);
        if (me != root) {
            const size_t n = coll_round_bytes(my_count, round, piece);
            if (n) {
                SHMCOLL_CHECK(shmcoll_channel_claim(ch, step));
                coll_copy(team, (void *)coll_slot(ch, me, step, use_inline), mine + round * piece,
                          n);
            }
        }
        shmcoll_channel_post(ch, step);
        if (me == root)
            SHMCOLL_CHECK(shmcoll_coll_collect_round(team, step, use_inline, 0, blocks, round,
                                                     piece, recvbuf));
        shmcoll_channel_ack(ch, step);
    }
    return SHMCOLL_OK;
}

static shmcoll_status_t gather_run(shmcoll_team_t *team, const char *mine, size_t my_count,
                                   char *recvbuf, const coll_bytes_t *blocks, size_t longest,
                                   int root) {
    if (coll_single_copy(team, 1, longest))
        return coll_end(team,
                        shmcoll_coll_gather_single(team, mine, my_count, recvbuf, blocks, root),
                        "single-copy");
    return coll_end(team, gather_rounds(team, mine, my_count, recvbuf, blocks, longest, root),
                    "pipeline");
}

shmcoll_status_t shmcoll_gather(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                size_t bytes, int root) {
    if (root < 0 || root >= team->size) return SHMCOLL_ERR_INVALID;
    shmcoll_status_t status = coll_begin(team, "gather");
    if (status != SHMCOLL_OK) return status;
    const coll_bytes_t blocks = {.bytes = bytes};
    return gather_run(team, sendbuf, bytes, recvbuf, &blocks, bytes, root);
}

shmcoll_status_t shmcoll_gatherv(shmcoll_team_t *team, const void *sendbuf, size_t sendbytes,
                                 void *recvbuf, const size_t *recvbytes, const size_t *displs,
                                 int root) {
    if (root < 0 || root >= team->size) return SHMCOLL_ERR_INVALID;
    shmcoll_status_t status = coll_begin(team, "gatherv");
    if (status != SHMCOLL_OK) return status;
    const coll_bytes_t blocks = {.counts = recvbytes, .displs = displs};
    if (coll_one_step(team, team->channel.chunk))
        return coll_end(
            team, shmcoll_coll_gather_single(team, sendbuf, sendbytes, recvbuf, &blocks, root),
            "one-step");
    uint64_t longest = 0;
    if (team->rank == root)
        for (int r = 0; r < team->size; r++)
            if (r != root && recvbytes[r] > longest) longest = recvbytes[r];
    status = shmcoll_coll_agree_max(team, longest, root, &longest);
    if (status != SHMCOLL_OK) return coll_end(team, status, "pipeline");
    return gather_run(team, sendbuf, sendbytes, recvbuf, &blocks, longest, root);
}
