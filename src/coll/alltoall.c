/* Alltoall and alltoallv through every member's own slots, with a rotated schedule.
 *
 * Each member's buffer of a round is cut into one piece per destination. In round t every member
 * copies piece t of each outgoing block into the destination's piece of its own buffer and posts;
 * then it collects its pieces, reading at position i from member me+i (KNEM-coll Figure 3's
 * rotation), so at any moment the p readers spread over p different sources. The own block is
 * copied locally. Alltoallv: each member knows only its own blocks, so the members first agree
 * on the longest block in one step. In place, the outgoing blocks are read from the receive
 * buffer before the round overwrites them: round t only writes the pieces it has already read.
 * Not in place, blocks of SHMCOLL_CMA_MIN bytes and more move single-copy instead up to
 * SHMCOLL_CMA_MAX, at any size with SHMCOLL_CMA=all (coll/single_copy.c). */
#include "coll/coll.h"
#include "coll/coll_internal.h"

static shmcoll_status_t alltoall_rounds(shmcoll_team_t *team, const char *sendbuf,
                                        const coll_bytes_t *out, char *recvbuf,
                                        const coll_bytes_t *in, size_t longest) {
    shmcoll_channel_t *ch = &team->channel;
    const int me = ch->rank, p = ch->size;
    const size_t piece = coll_piece_per_member(ch->chunk, p);
    const size_t rounds = coll_div_ceil(longest, piece);
    size_t own_bytes = 0;
    for (int r = 0; r < p; r++) own_bytes += coll_bytes_count(out, r) + coll_bytes_count(in, r);
    coll_declare_working_set(team, own_bytes, longest * (size_t)(p - 1));

    if (sendbuf != recvbuf)
        coll_copy(team, recvbuf + coll_bytes_displ(in, me), sendbuf + coll_bytes_displ(out, me),
                  coll_bytes_count(in, me));
    for (size_t round = 0; round < rounds; round++) {
        const uint64_t step = shmcoll_channel_next_step(ch);
        char *slots = shmcoll_channel_buffer(ch, me, step);
        SHMCOLL_CHECK(shmcoll_channel_claim(ch, step));
        for (int r = 0; r < p; r++) {
            if (r == me) continue;
            const size_t n = coll_round_bytes(coll_bytes_count(out, r), round, piece);
            coll_copy(team, slots + (size_t)r * piece,
                      sendbuf + coll_bytes_displ(out, r) + round * piece, n);
        }
        shmcoll_channel_post(ch, step);
        SHMCOLL_CHECK(shmcoll_coll_collect_round(team, step, 0, (size_t)me * piece, in, round,
                                                 piece, recvbuf));
        shmcoll_channel_ack(ch, step);
    }
    return SHMCOLL_OK;
}

/* In place (sendbuf NULL) is in place on every member, as MPI requires. */
static shmcoll_status_t alltoall_run(shmcoll_team_t *team, const char *sendbuf,
                                     const coll_bytes_t *out, char *recvbuf, const coll_bytes_t *in,
                                     size_t longest) {
    if (sendbuf && coll_single_copy(team, 0, longest))
        return coll_end(team, shmcoll_coll_alltoall_single(team, sendbuf, out, recvbuf, in),
                        "single-copy");
    return coll_end(team,
                    alltoall_rounds(team, sendbuf ? sendbuf : recvbuf, out, recvbuf, in, longest),
                    "rotated");
}

shmcoll_status_t shmcoll_alltoall(shmcoll_team_t *team, const void *sendbuf, void *recvbuf,
                                  size_t bytes) {
    shmcoll_status_t status = coll_begin(team, "alltoall");
    if (status != SHMCOLL_OK) return status;
    const coll_bytes_t blocks = {.bytes = bytes};
    return alltoall_run(team, sendbuf, &blocks, recvbuf, &blocks, bytes);
}

shmcoll_status_t shmcoll_alltoallv(shmcoll_team_t *team, const void *sendbuf,
                                   const size_t *sendbytes, const size_t *sdispls, void *recvbuf,
                                   const size_t *recvbytes, const size_t *rdispls) {
    shmcoll_status_t status = coll_begin(team, "alltoallv");
    if (status != SHMCOLL_OK) return status;
    const coll_bytes_t in = {.counts = recvbytes, .displs = rdispls};
    const coll_bytes_t out = sendbuf ? (coll_bytes_t){.counts = sendbytes, .displs = sdispls} : in;
    uint64_t longest = 0;
    for (int r = 0; r < team->size; r++)
        if (r != team->rank && coll_bytes_count(&out, r) > longest)
            longest = coll_bytes_count(&out, r);
    status = shmcoll_coll_agree_max(team, longest, COLL_ALL, &longest);
    if (status != SHMCOLL_OK) return coll_end(team, status, "rotated");
    return alltoall_run(team, sendbuf, &out, recvbuf, &in, longest);
}
