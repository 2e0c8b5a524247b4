/* Scatter and scatterv through the root's slots.
 *
 * The root's buffer of each round is cut into one piece per member (cache-line multiples); in
 * round t the root copies piece t of every member's block into that member's piece and posts,
 * and each member copies its own piece out (receiver-side copy: the readers work in parallel,
 * KNEM-coll's direction for scatter). Blocks of SHMCOLL_CMA_MIN bytes and more move single-copy
 * instead (coll/single_copy.c).
 *
 * Scatterv: only the root knows the block sizes. When single-copy serves the long blocks and the
 * short ones fit a piece of the root's slot, every block's way follows from its own size and
 * the call is one step (the single-copy entry). Otherwise the root first publishes the longest
 * block in one agreement step: with two steps per call the root cannot fill a call's slot before
 * every member has finished the previous call, which made scattervs of 4-64 KiB 1.3-1.8 times
 * slower than scatters. */
#include "coll/coll.h"
#include "coll/coll_internal.h"

static shmcoll_status_t scatter_rounds(shmcoll_team_t *team, const char *sendbuf,
                                       const coll_bytes_t *blocks, char *recvbuf, size_t my_count,
                                       size_t longest, int root) {
    shmcoll_channel_t *ch = &team->channel;
    const int me = ch->rank, p = ch->size;
    const size_t piece = coll_piece_per_member(ch->chunk, p);
    const size_t rounds = coll_div_ceil(longest, piece);
    coll_declare_working_set(team, longest * (size_t)(p + 1), longest);

    if (me == root && recvbuf)
        coll_copy(team, recvbuf, sendbuf + coll_bytes_displ(blocks, me), my_count);
    for (size_t round = 0; round < rounds; round++) {
        const uint64_t step = shmcoll_channel_next_step(ch);
        char *slots = shmcoll_channel_buffer(ch, root, step);
        if (me == root) {
            SHMCOLL_CHECK(shmcoll_channel_claim(ch, step));
            for (int r = 0; r < p; r++) {
                if (r == root) continue;
                const size_t n = coll_round_bytes(coll_bytes_count(blocks, r), round, piece);
                coll_copy(team, slots + (size_t)r * piece,
                          sendbuf + coll_bytes_displ(blocks, r) + round * piece, n);
            }
            shmcoll_channel_post(ch, step);
        } else {
            const size_t n = coll_round_bytes(my_count, round, piece);
            if (n) {
                SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, root, step));
                coll_copy_out(team, recvbuf + round * piece, slots + (size_t)me * piece, n);
            }
        }
        shmcoll_channel_ack(ch, step);
    }
    return SHMCOLL_OK;
}

static shmcoll_status_t scatter_run(shmcoll_team_t *team, const char *sendbuf,
                                    const coll_bytes_t *blocks, char *recvbuf, size_t my_count,
                                    size_t longest, int root) {
    if (coll_single_copy(team, 1, longest))
        return coll_end(team,
                        shmcoll_coll_scatter_single(team, sendbuf, blocks, recvbuf, my_count, root),
                        "single-copy");
    return coll_end(team, scatter_rounds(team, sendbuf, blocks, recvbuf, my_count, longest, root),
                    "pipeline");
}

shmcoll_status_t shmcoll_scatter(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                 size_t bytes, int root) {
    if (root < 0 || root >= team->size) return SHMCOLL_ERR_INVALID;
    shmcoll_status_t status = coll_begin(team, "scatter");
    if (status != SHMCOLL_OK) return status;
    const coll_bytes_t blocks = {.bytes = bytes};
    return scatter_run(team, sendbuf, &blocks, recvbuf, bytes, bytes, root);
}

shmcoll_status_t shmcoll_scatterv(shmcoll_team_t *team, const void *sendbuf,
                                  const size_t *sendbytes, const size_t *displs, void *recvbuf,
                                  size_t recvbytes, int root) {
    if (root < 0 || root >= team->size) return SHMCOLL_ERR_INVALID;
    shmcoll_status_t status = coll_begin(team, "scatterv");
    if (status != SHMCOLL_OK) return status;
    const coll_bytes_t blocks = {.counts = sendbytes, .displs = displs};
    if (coll_one_step(team, coll_piece_per_member(team->channel.chunk, team->size)))
        return coll_end(
            team, shmcoll_coll_scatter_single(team, sendbuf, &blocks, recvbuf, recvbytes, root),
            "one-step");
    uint64_t longest = 0;
    if (team->rank == root)
        for (int r = 0; r < team->size; r++)
            if (r != root && sendbytes[r] > longest) longest = sendbytes[r];
    status = shmcoll_coll_agree_max(team, longest, root, &longest);
    if (status != SHMCOLL_OK) return coll_end(team, status, "pipeline");
    return scatter_run(team, sendbuf, &blocks, recvbuf, recvbytes, longest, root);
}
