/* Single-copy data movement: members expose their own buffers and the others copy straight
 * between private buffers with cross-memory attach (shm/cma.h), so a block moves once, where
 * copy-in/copy-out through shared slots moves it twice and synchronises once per chunk.
 *
 * One step per collective, whatever the size: each exposing member writes its buffer's address
 * (and, for the v-variants, the address of its byte-displacement array) into the inline area of
 * its post flag and posts; the others wait for that post, copy, and acknowledge the step. An
 * exposing member returns only once every other member has acknowledged, since its buffer may
 * change as soon as it returns. DAV is 2 bytes per byte moved, the minimum for a copy.
 *
 * Direction (KNEM-coll): the non-root members do the copies, so they run in parallel instead of
 * queueing at the root: bcast and scatter read from the root, gather writes into the root.
 * Allgather and alltoall read, each member visiting the others from its right-hand neighbour on,
 * so that the p readers spread over p sources. */
#include "coll/coll.h"
#include "coll/coll_internal.h"
#include "shm/cma.h"

#include <string.h>

/* What an exposing member publishes: where its buffer is, and where its displacements are (0:
 * uniform blocks). */
typedef struct exposed {
    uintptr_t base;
    uintptr_t displs;
} exposed_t;

_Static_assert(sizeof(exposed_t) <= SHMCOLL_INLINE_BYTES, "exposed buffer fits the inline area");

/* Publish the buffer in `step`, which the caller has claimed. */
static void publish(shmcoll_channel_t *ch, uint64_t step, const void *base, const size_t *displs) {
    const exposed_t mine = {.base = (uintptr_t)base, .displs = (uintptr_t)displs};
    memcpy(shmcoll_channel_inline(ch, ch->rank, step), &mine, sizeof mine);
    shmcoll_channel_post(ch, step);
}

static shmcoll_status_t expose(shmcoll_team_t *team, uint64_t step, const void *base,
                               const size_t *displs) {
    SHMCOLL_CHECK(shmcoll_channel_claim(&team->channel, step));
    publish(&team->channel, step, base, displs);
    return SHMCOLL_OK;
}

/* The exposing member returns once everyone has acknowledged what it exposed. */
static shmcoll_status_t release(shmcoll_team_t *team, uint64_t step) {
    shmcoll_channel_ack(&team->channel, step);
    return shmcoll_channel_wait_done(&team->channel, step);
}

/* Copy `n` bytes between this member's `local` and member q's address `remote`. A failure here
 * is published, so members waiting for this one stop at once. */
static shmcoll_status_t cma(shmcoll_team_t *team, int q, void *local, uintptr_t remote, size_t n,
                            int write) {
    shmcoll_status_t status = shmcoll_cma_copy(team->pids[q], q, local, remote, n, write,
                                               team->error, sizeof team->error);
    if (status == SHMCOLL_ERR_NOT_SUPPORTED)
        status = SHMCOLL_ERR_SYSTEM; /* too late to fall back */
    return status == SHMCOLL_OK ? status : shmcoll_channel_fail(&team->channel, status, q);
}

/* The same for payload, counted in the DAV. */
static shmcoll_status_t transfer(shmcoll_team_t *team, int q, void *local, uintptr_t remote,
                                 size_t n, int write) {
    if (!n) return SHMCOLL_OK;
    SHMCOLL_CHECK(cma(team, q, local, remote, n, write));
    team->dav += 2 * n;
    return SHMCOLL_OK;
}

/* Where block `index` of member q's exposed buffer starts: index x `bytes` for uniform blocks,
 * else q's displacement for it, read from q's array. */
static shmcoll_status_t peer_block(shmcoll_team_t *team, int q, uint64_t step, int index,
                                   size_t bytes, uintptr_t *where) {
    shmcoll_channel_t *ch = &team->channel;
    SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, q, step));
    exposed_t theirs;
    memcpy(&theirs, shmcoll_channel_inline(ch, q, step), sizeof theirs);
    size_t displ = (size_t)index * bytes;
    if (theirs.displs) {
        const uintptr_t entry = theirs.displs + (size_t)index * sizeof(size_t);
        SHMCOLL_CHECK(cma(team, q, &displ, entry, sizeof displ, 0));
    }
    *where = theirs.base + displ;
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_coll_allgather_single(shmcoll_team_t *team, const char *mine,
                                               char *recvbuf, const coll_bytes_t *blocks) {
    const int me = team->rank, p = team->size;
    const uint64_t step = shmcoll_channel_next_step(&team->channel);
    SHMCOLL_CHECK(expose(team, step, mine, NULL));
    coll_copy(team, recvbuf + coll_bytes_displ(blocks, me), mine, coll_bytes_count(blocks, me));
    for (int i = 1; i < p; i++) {
        const int q = (me + i) % p;
        const size_t n = coll_bytes_count(blocks, q);
        uintptr_t from;
        if (!n) continue;
        SHMCOLL_CHECK(peer_block(team, q, step, 0, 0, &from));
        SHMCOLL_CHECK(transfer(team, q, recvbuf + coll_bytes_displ(blocks, q), from, n, 0));
    }
    return release(team, step);
}

shmcoll_status_t shmcoll_coll_alltoall_single(shmcoll_team_t *team, const char *sendbuf,
                                              const coll_bytes_t *out, char *recvbuf,
                                              const coll_bytes_t *in) {
    const int me = team->rank, p = team->size;
    const uint64_t step = shmcoll_channel_next_step(&team->channel);
    SHMCOLL_CHECK(expose(team, step, sendbuf, out->counts ? out->displs : NULL));
    coll_copy(team, recvbuf + coll_bytes_displ(in, me), sendbuf + coll_bytes_displ(out, me),
              coll_bytes_count(in, me));
    for (int i = 1; i < p; i++) {
        const int q = (me + i) % p;
        const size_t n = coll_bytes_count(in, q);
        uintptr_t from;
        if (!n) continue;
        SHMCOLL_CHECK(peer_block(team, q, step, me, out->bytes, &from));
        SHMCOLL_CHECK(transfer(team, q, recvbuf + coll_bytes_displ(in, q), from, n, 0));
    }
    return release(team, step);
}

shmcoll_status_t shmcoll_coll_gather_single(shmcoll_team_t *team, const char *mine, size_t my_count,
                                            char *recvbuf, const coll_bytes_t *blocks, int root) {
    shmcoll_channel_t *ch = &team->channel;
    const int me = ch->rank;
    const uint64_t step = shmcoll_channel_next_step(ch);
    if (me == root) {
        SHMCOLL_CHECK(expose(team, step, recvbuf, blocks->counts ? blocks->displs : NULL));
        if (mine) coll_copy(team, recvbuf + coll_bytes_displ(blocks, me), mine, my_count);
        for (int i = 1; i < ch->size; i++) {
            const int q = (me + i) % ch->size;
            const size_t n = coll_bytes_count(blocks, q);
            if (!n || coll_single_copy(team, 1, n)) continue;
            SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, q, step));
            coll_copy(team, recvbuf + coll_bytes_displ(blocks, q),
                      coll_slot(ch, q, step, n <= SHMCOLL_INLINE_BYTES), n);
        }
        return release(team, step);
    }
    if (coll_single_copy(team, 1, my_count)) {
        uintptr_t to;
        SHMCOLL_CHECK(peer_block(team, root, step, me, blocks->bytes, &to));
        SHMCOLL_CHECK(transfer(team, root, (void *)mine, to, my_count, 1));
    } else if (my_count) {
        SHMCOLL_CHECK(shmcoll_channel_claim(ch, step));
        coll_copy(team, (void *)coll_slot(ch, me, step, my_count <= SHMCOLL_INLINE_BYTES), mine,
                  my_count);
        shmcoll_channel_post(ch, step);
    }
    shmcoll_channel_ack(ch, step);
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_coll_scatter_single(shmcoll_team_t *team, const char *sendbuf,
                                             const coll_bytes_t *blocks, char *recvbuf,
                                             size_t my_count, int root) {
    shmcoll_channel_t *ch = &team->channel;
    const int me = ch->rank;
    const size_t piece = coll_piece_per_member(ch->chunk, ch->size);
    const uint64_t step = shmcoll_channel_next_step(ch);
    if (me == root) {
        int exposed = 0;
        SHMCOLL_CHECK(shmcoll_channel_claim(ch, step));
        char *slots = shmcoll_channel_buffer(ch, me, step);
        for (int q = 0; q < ch->size; q++) {
            const size_t n = coll_bytes_count(blocks, q);
            if (q == me || !n) continue;
            if (coll_single_copy(team, 1, n))
                exposed = 1;
            else
                coll_copy(team, slots + (size_t)q * piece, sendbuf + coll_bytes_displ(blocks, q),
                          n);
        }
        publish(ch, step, sendbuf, blocks->counts ? blocks->displs : NULL);
        if (recvbuf) coll_copy(team, recvbuf, sendbuf + coll_bytes_displ(blocks, me), my_count);
        if (exposed) return release(team, step);
        shmcoll_channel_ack(ch, step);
        return SHMCOLL_OK;
    }
    if (coll_single_copy(team, 1, my_count)) {
        uintptr_t from;
        SHMCOLL_CHECK(peer_block(team, root, step, me, blocks->bytes, &from));
        SHMCOLL_CHECK(transfer(team, root, recvbuf, from, my_count, 0));
    } else if (my_count) {
        SHMCOLL_CHECK(shmcoll_channel_wait_post(ch, root, step));
        coll_copy_out(team, recvbuf,
                      (const char *)shmcoll_channel_buffer(ch, root, step) + (size_t)me * piece,
                      my_count);
    }
    shmcoll_channel_ack(ch, step);
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_coll_bcast_single(shmcoll_team_t *team, void *buf, size_t bytes,
                                           int root) {
    const uint64_t step = shmcoll_channel_next_step(&team->channel);
    if (team->rank == root) {
        SHMCOLL_CHECK(expose(team, step, buf, NULL));
        return release(team, step);
    }
    uintptr_t from;
    SHMCOLL_CHECK(peer_block(team, root, step, 0, 0, &from));
    SHMCOLL_CHECK(transfer(team, root, buf, from, bytes, 0));
    shmcoll_channel_ack(&team->channel, step);
    return SHMCOLL_OK;
}
