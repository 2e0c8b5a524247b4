/* Team creation: three bootstrap exchanges.
 *   1. every member shares its pid (for liveness checks), CPU affinity (to detect
 *      oversubscription) and 128 random bits; the segment's name is derived from all members'
 *      bits, so it is unpredictable to anyone outside and known to every member before the file
 *      exists;
 *   2. member 0 creates the segment — shrinking the chunk size until it fits the directory — and
 *      shares its size and chunk size (or its failure, which every member then returns); or it
 *      takes a segment every member kept from a team of the same processes at the same ranks
 *      (listed in exchange 1; core/team_pool.h);
 *   3. the others attach (or take the kept one), everyone first-touches its own part (on a kept
 *      one clears its control blocks), and all share whether that worked; member 0 then unlinks
 *      the file, so from here on a crash leaves nothing behind.
 * Exchange 1 also carries the address of a random word in every member's memory: each member
 * tries to read every other's with cross-memory attach (once per peer process:
 * core/peer_probe.h), and exchange 3 agrees whether all could,
 * which decides whether the team may move blocks single-copy (shm/cma.h). Likewise each member's
 * heap probe file (heap/pidfd.h): exchange 3 agrees whether every member could fetch every other
 * member's, which decides whether collectives may map the members' shared-heap arenas.
 * Exchange 1 carries as well what each member's shared-memory budget grants the team
 * (core/budget.h): member 0 shrinks the chunk until the team costs no member more than the
 * smallest grant, or refuses the team when not even the smallest chunk fits, and every member
 * gives back the part of its grant the team does not use.
 * If any exchange fails (a member died), every survivor removes the file by its known name: a
 * crash during setup leaves nothing behind either. */
#include "core/team.h"
#include "base/config.h"
#include "core/budget.h"
#include "core/peer_probe.h"
#include "core/team_pool.h"
#include "core/team_topo.h"
#include "base/log.h"
#include "heap/heap.h"
#include "heap/pidfd.h"
#include "kernels/nt_policy.h"
#include "shm/cma.h"
#include "topo/cpus.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIN_CHUNK         4096
#define MAX_SEGMENT_BYTES ((size_t)256 << 20)

typedef struct member_info {
    pid_t pid;
    uint64_t token; /* the process's own (core/peer_probe.h) */
    cpu_set_t affinity;
    uint64_t nonce[2];
    uintptr_t cma_probe; /* address of the member's team->cma_probe, which holds nonce[0] */
    int heap_fd;         /* the member's heap probe file (heap/pidfd.h), -1: no heap */
    uint64_t heap_inode;
    size_t grant; /* what the member's budget grants the team (core/budget.h) */
    shmcoll_topo_place_t place;
    int memory_node; /* NUMA node (OS index) local to its binding, -1: unknown */
    shmcoll_pool_offer_t kept[SHMCOLL_POOL_OFFERS]; /* segments it keeps (core/team_pool.h) */
} member_info_t;

/* What every member reports at the end of setup. */
typedef struct setup_result {
    int attached;
    int cma;  /* shmcoll_cma_use_t asked for, OFF if this member cannot read every other's word */
    int heap; /* this member can fetch every other member's heap probe file */
} setup_result_t;

shmcoll_cma_use_t shmcoll_team_cma_asked(const char *text) {
    if (!strcmp(text, "auto")) return SHMCOLL_CMA_AUTO;
    if (!strcmp(text, "all")) return SHMCOLL_CMA_ALL;
    if (!strcmp(text, "off")) return SHMCOLL_CMA_OFF;
    shmcoll_log_warn("SHMCOLL_CMA=%s is not auto, all or off; using auto", text);
    return SHMCOLL_CMA_AUTO;
}

/* Whether this member can fetch every other member's heap probe file (heap/pidfd.h). */
static int probe_heap(const member_info_t *members, int size, int rank) {
    for (int r = 0; r < size; r++)
        if (r != rank && !shmcoll_peer_probe_heap(members[r].pid, members[r].token,
                                                  members[r].heap_fd, members[r].heap_inode))
            return 0;
    return 1;
}

/* Whether this member can read every other member's probe word. */
static int probe_cma(const member_info_t *members, int size, int rank) {
    for (int r = 0; r < size; r++)
        if (r != rank && !shmcoll_peer_probe_cma(members[r].pid, members[r].token,
                                                 members[r].cma_probe, members[r].nonce[0]))
            return 0;
    return 1;
}

typedef struct segment_offer {
    int status;
    int kept;       /* the segment is a kept one (core/team_pool.h) ... */
    uint64_t id[2]; /* ... of this id */
    size_t chunk;
    size_t bytes;
} segment_offer_t;

static size_t round_chunk(size_t chunk) {
    chunk &= ~(size_t)(MIN_CHUNK - 1);
    return chunk < MIN_CHUNK ? MIN_CHUNK : chunk;
}

static size_t segment_bytes(int size, size_t chunk, int nlanes) {
    return (size_t)nlanes * shmcoll_channel_segment_bytes(size, chunk);
}

size_t shmcoll_team_plan_chunk(int size, int nlanes, size_t grant, size_t *bytes) {
    size_t chunk = round_chunk(shmcoll_config()->chunk);
    while (chunk > MIN_CHUNK &&
           (segment_bytes(size, chunk, nlanes) > MAX_SEGMENT_BYTES ||
            shmcoll_budget_cost(segment_bytes(size, chunk, nlanes), size) > grant))
        chunk = round_chunk(chunk / 2);
    *bytes = segment_bytes(size, chunk, nlanes);
    return shmcoll_budget_cost(*bytes, size) <= grant ? chunk : 0;
}

/* Member 0: a segment every member keeps from a team of the same processes at the same ranks
 * (core/team_pool.h), of the size the largest chunk the members' smallest grant pays for needs;
 * 0 when there is none. */
static int take_kept(const member_info_t *members, int size, int nlanes, size_t grant,
                     shmcoll_segment_t *seg, segment_offer_t *offer) {
    size_t bytes;
    const size_t chunk = shmcoll_team_plan_chunk(size, nlanes, grant, &bytes);
    const int k =
        chunk ? shmcoll_team_pool_match(members[0].kept, sizeof *members, size, bytes) : -1;
    if (k < 0 || !shmcoll_team_pool_take(members[0].kept[k].id, seg)) return 0;
    *offer = (segment_offer_t){.status = SHMCOLL_OK,
                               .kept = 1,
                               .id = {members[0].kept[k].id[0], members[0].kept[k].id[1]},
                               .chunk = chunk,
                               .bytes = bytes};
    return 1;
}

/* The parts of a segment of `chunk`-byte buffers that each member writes (its data buffers and
 * eager slots in every lane), each on the NUMA node local to that member, consecutive members
 * of one node as one range; NULL (*n = 0) when no member's node is known. The writer's node, as
 * XHC and YHCCL place their slots: the writer fills a chunk while its readers still read the
 * last, each reader reads it once. Without it tmpfs put every page on member 0's node, where
 * the reservation allocates them (the members' first touch only maps them), remote for every
 * writer of another node. */
static shmcoll_shm_range_t *place_slots(const member_info_t *members, int size, int nlanes,
                                        size_t chunk, int *n) {
    *n = 0;
    shmcoll_shm_range_t *ranges = malloc((size_t)nlanes * 2 * (size_t)size * sizeof *ranges);
    if (!ranges) return NULL;
    const size_t lane_bytes = shmcoll_channel_segment_bytes(size, chunk);
    for (int first = 0, last; first < size; first = last + 1) {
        for (last = first;
             last + 1 < size && members[last + 1].memory_node == members[first].memory_node;)
            last++;
        if (members[first].memory_node < 0) continue;
        size_t offset[2], bytes[2];
        shmcoll_channel_writer_spans(size, chunk, first, last - first + 1, offset, bytes);
        for (int l = 0; l < nlanes; l++)
            for (int span = 0; span < 2; span++)
                ranges[(*n)++] = (shmcoll_shm_range_t){.offset = l * lane_bytes + offset[span],
                                                       .bytes = bytes[span],
                                                       .node = members[first].memory_node};
    }
    if (*n) return ranges;
    free(ranges);
    return NULL;
}

/* Member 0: create the segment with the largest chunk the members' smallest grant pays for,
 * halving it further while the directory has no room for it. */
static void offer_segment(const member_info_t *members, int size, int nlanes, size_t grant,
                          const char *path, shmcoll_segment_t *seg, segment_offer_t *offer) {
    const shmcoll_config_t *config = shmcoll_config();
    size_t bytes, unbounded = shmcoll_team_plan_chunk(size, nlanes, SIZE_MAX, &bytes);
    size_t chunk = shmcoll_team_plan_chunk(size, nlanes, grant, &bytes);
    const size_t planned = chunk;
    if (!chunk) {
        offer->status = SHMCOLL_ERR_NO_BUDGET;
        shmcoll_log_verbose("no shared memory for a team of %d ranks: %zu bytes of budget left "
                            "where its smallest segment costs %zu (SHMCOLL_SHM_BUDGET)",
                            size, grant, shmcoll_budget_cost(bytes, size));
        return;
    }
    if (chunk < unbounded)
        shmcoll_log_verbose("a team of %d ranks gets %zu-byte chunks instead of %zu: %zu bytes of "
                            "budget left (SHMCOLL_SHM_BUDGET)",
                            size, chunk, unbounded, grant);
    char error[256] = "";
    shmcoll_status_t status;
    for (;;) {
        offer->bytes = segment_bytes(size, chunk, nlanes);
        int nranges;
        shmcoll_shm_range_t *ranges = place_slots(members, size, nlanes, chunk, &nranges);
        status = shmcoll_shm_segment_create_placed(path, offer->bytes, ranges, nranges, seg, error,
                                                   sizeof error);
        free(ranges);
        if (status != SHMCOLL_ERR_NO_SPACE || chunk == MIN_CHUNK) break;
        chunk = round_chunk(chunk / 2);
    }
    offer->status = status;
    offer->chunk = chunk;
    if (status != SHMCOLL_OK) /* the caller warns: it knows what happens instead */
        shmcoll_log_verbose("cannot create a shared segment for %d ranks (%s); collectives of this "
                            "communicator fall back to the MPI library",
                            size, error);
    else if (chunk < planned)
        shmcoll_log_warn("only room for %zu-byte chunks in %s (SHMCOLL_CHUNK asks %zu): large "
                         "messages are pipelined in smaller pieces",
                         chunk, config->shm_dir, planned);
}

/* Exchange buffers for a member whose allocations failed, for teams of up to RESERVE_MEMBERS
 * (untouched, and so free of cost, until used). */
#define RESERVE_MEMBERS 1024

typedef struct exchange_reserve {
    member_info_t members[RESERVE_MEMBERS];
    segment_offer_t offers[RESERVE_MEMBERS];
    setup_result_t results[RESERVE_MEMBERS];
} exchange_reserve_t;

static exchange_reserve_t reserve_buffers;
static pthread_mutex_t reserve_lock = PTHREAD_MUTEX_INITIALIZER;

static exchange_reserve_t *reserve_borrow(int size) {
    if (size > RESERVE_MEMBERS) return NULL;
    pthread_mutex_lock(&reserve_lock);
    memset(&reserve_buffers, 0, sizeof reserve_buffers);
    return &reserve_buffers;
}

static void reserve_return(exchange_reserve_t *reserve) {
    pthread_mutex_unlock(&reserve_lock);
}

/* Frees what the team holds, not the team itself. */
static void team_release(shmcoll_team_t *team) {
    if (team->select_state_free) team->select_state_free(team->select_state);
    shmcoll_team_topo_release(&team->hiers);
    free(team->places);
    for (int l = 0; l < SHMCOLL_MAX_LANES; l++) {
        shmcoll_channel_fini(&team->lanes[l].channel);
        free(team->lanes[l].ints);
        free(team->lanes[l].ptrs);
    }
    shmcoll_shm_segment_detach(&team->segment);
    free(team->pids);
}

static void team_free(shmcoll_team_t *team) {
    team_release(team);
    free(team);
}

/* Lays the lanes over the attached segment, one channel each, with their scratch; touches this
 * member's part first (on a kept segment only clears its control blocks: its pages are in place).
 * 0 when an allocation failed. */
static int lanes_init(shmcoll_team_t *team, size_t chunk, int kept) {
    const size_t lane_bytes = shmcoll_channel_segment_bytes(team->size, chunk);
    team->chunk = chunk;
    for (int l = 0; l < team->nlanes; l++) {
        shmcoll_lane_t *lane = &team->lanes[l];
        if (shmcoll_channel_init(&lane->channel, (char *)team->segment.base + l * lane_bytes,
                                 team->rank, team->size, chunk) != SHMCOLL_OK)
            return 0;
        lane->ints = malloc(4 * (size_t)team->size * sizeof *lane->ints);
        lane->ptrs = malloc((2 * (size_t)team->size + 2) * sizeof *lane->ptrs);
        if (!lane->ints || !lane->ptrs) return 0;
        if (kept)
            shmcoll_channel_clear(&lane->channel);
        else
            shmcoll_channel_first_touch(&lane->channel);
    }
    return 1;
}

/* How members wait, from the team's shape (the same on every member): with a CPU each, they
 * spin, then yield; oversubscribed, they yield at once and sleep after SHMCOLL_SLEEP
 * microseconds (shm/sleep.h), and every post and ack wakes the sleepers. */
static void set_waiting(shmcoll_team_t *team) {
    const long sleep_us = shmcoll_config()->sleep;
    const double spin = team->oversubscribed ? 0 : (double)shmcoll_config()->spin * 1e-6;
    team->sleep_after = team->oversubscribed && sleep_us >= 0 ? (double)sleep_us * 1e-6 : -1;
    for (int l = 0; l < team->nlanes; l++) {
        shmcoll_channel_t *ch = &team->lanes[l].channel;
        ch->waiter.spin = spin;
        shmcoll_channel_set_sleep(ch, team->sleep_after);
    }
    shmcoll_shm_pace_spin(spin); /* and the process's paced loops */
}

/* Lanes asked for with SHMCOLL_LANES, within 1..SHMCOLL_MAX_LANES. */
static int lanes_asked(long asked) {
    if (asked >= 1 && asked <= SHMCOLL_MAX_LANES) return (int)asked;
    shmcoll_log_warn("SHMCOLL_LANES=%ld is not between 1 and %d; using 1", asked,
                     SHMCOLL_MAX_LANES);
    return 1;
}

shmcoll_status_t shmcoll_team_create(const shmcoll_bootstrap_t *bs, shmcoll_team_t **out) {
    const shmcoll_config_t *config = shmcoll_config();
    const int size = bs->size, rank = bs->rank;
    shmcoll_status_t status = SHMCOLL_OK;
    member_info_t *members = NULL;
    segment_offer_t *offers = NULL;
    setup_result_t *results = NULL;
    char path[SHMCOLL_SEGMENT_PATH_MAX];
    *out = NULL;

    /* Every local failure is carried to the third exchange, so that all members agree on the
     * outcome: a member whose allocations fail here still takes part in every exchange, with a
     * stand-in team and the reserve buffers, and its peers never wait for it in vain. */
    shmcoll_team_t stand_in;
    shmcoll_team_t *team = calloc(1, sizeof *team);
    members = calloc((size_t)size, sizeof *members);
    offers = calloc((size_t)size, sizeof *offers);
    results = calloc((size_t)size, sizeof *results);
    int local_ok = team && members && offers && results && !bs->unready;
    exchange_reserve_t *reserve = NULL;
    if (!(team && members && offers && results)) {
        free(members), free(offers), free(results);
        reserve = reserve_borrow(size);
        if (!reserve) {
            free(team);
            return SHMCOLL_ERR_NO_MEMORY; /* beyond the reserve: cannot take part at all */
        }
        members = reserve->members, offers = reserve->offers, results = reserve->results;
        if (team) free(team);
        team = memset(&stand_in, 0, sizeof stand_in);
    }
    team->rank = rank;
    team->size = size;
    team->nlanes = lanes_asked(config->lanes);

    /* 1. pids and affinity */
    member_info_t mine = {.pid = getpid(), .token = shmcoll_peer_token()};
    shmcoll_topo_affinity(&mine.affinity);
    if (shmcoll_shm_segment_random(mine.nonce) != SHMCOLL_OK) local_ok = 0;
    team->cma_probe = mine.nonce[0];
    mine.cma_probe = (uintptr_t)&team->cma_probe;
    const int heap_asked = size > 1 && shmcoll_heap_mode() != SHMCOLL_HEAP_OFF;
    mine.heap_fd = heap_asked ? shmcoll_heap_pidfd_probe_target(&mine.heap_inode) : -1;
    /* The others probe this process's memory and heap file after the exchange: allowed first. */
    if (size > 1 && (heap_asked || strcmp(config->cma, "off"))) shmcoll_cma_open_to_peers();
    /* What the team would cost at the configured chunk; a member that cannot take part grants
     * nothing, which fails no one: the team fails on its local_ok anyway. */
    size_t full_bytes;
    shmcoll_team_plan_chunk(size, team->nlanes, SIZE_MAX, &full_bytes);
    int offered = size > 1; /* reserved until the segment is chosen (a team of one keeps none) */
    if (offered) shmcoll_team_pool_offer(mine.kept);
    /* Kept segments not offered make room where the budget is short. */
    const size_t want = shmcoll_budget_cost(full_bytes, size);
    size_t grant = shmcoll_budget_take(want);
    while (grant < want && shmcoll_team_pool_let_go()) {
        shmcoll_budget_give(grant);
        grant = shmcoll_budget_take(want);
    }
    mine.grant = grant;
    shmcoll_team_topo_place_self(rank, size, &mine.affinity, &mine.place);
    mine.memory_node = shmcoll_team_topo_memory_node(&mine.affinity);
    team->usable_cache = shmcoll_team_topo_usable_cache(&mine.place);
    const size_t private_cache = shmcoll_team_topo_private_cache(&mine.place);
    /* Well past the core's own cache, copies meet memory (coll_copy). Up to a few times its size
     * the pieces in flight still hit it: measured at p = 2 (L2 1 MiB), the memory loop was no
     * faster for working sets of 2-4 MiB and faster by 10-30% from 8 MiB on. Unknown caches keep
     * the plain loop, right for every buffer in cache and at most 15-25% slow for the others. */
    team->memory_copy_min = private_cache ? 4 * private_cache : SIZE_MAX;
    if (bs->allgather(bs->ctx, &mine, members, sizeof mine)) {
        status = SHMCOLL_ERR_SYSTEM;
        goto fail;
    }
    uint64_t name_bits[2] = {0, 0};
    for (int r = 0; r < size; r++)
        name_bits[0] ^= members[r].nonce[0], name_bits[1] ^= members[r].nonce[1];
    if (!shmcoll_shm_segment_path(path, sizeof path, config->shm_dir, name_bits)) {
        status = SHMCOLL_ERR_INVALID; /* same directory everywhere: all members agree */
        shmcoll_log_warn("SHMCOLL_SHM_DIR is too long: %s", config->shm_dir);
        goto fail;
    }
    team->pids = malloc((size_t)size * sizeof *team->pids);
    team->places = malloc((size_t)size * sizeof *team->places);
    cpu_set_t *masks = malloc((size_t)size * sizeof *masks);
    if (team->pids && team->places && masks) {
        for (int r = 0; r < size; r++) {
            team->pids[r] = members[r].pid;
            team->places[r] = members[r].place;
            masks[r] = members[r].affinity;
        }
        team->ncpus = shmcoll_topo_union_count(masks, size);
    } else {
        local_ok = 0;
    }
    free(masks);
    team->oversubscribed = size > team->ncpus;
    team->hiers.places = team->places;
    team->hiers.size = size;
    if (team->places)
        team->bandwidth_bound = shmcoll_kernel_nt_bandwidth_bound(
            shmcoll_team_topo_streaming_cores(team->places, size, team->ncpus),
            config->nt_min_cores);

    /* 2. member 0 creates the segment */
    segment_offer_t offer = {.status = SHMCOLL_OK};
    size_t least_grant = SIZE_MAX;
    for (int r = 0; r < size; r++)
        least_grant = members[r].grant < least_grant ? members[r].grant : least_grant;
    if (rank == 0 && !take_kept(members, size, team->nlanes, least_grant, &team->segment, &offer))
        offer_segment(members, size, team->nlanes, least_grant, path, &team->segment, &offer);
    if (bs->allgather(bs->ctx, &offer, offers, sizeof offer)) {
        unlink(path); /* member 0 may have created it and died */
        status = SHMCOLL_ERR_SYSTEM;
        goto fail;
    }
    if (offers[0].status != SHMCOLL_OK) {
        status = (shmcoll_status_t)offers[0].status;
        if (status == SHMCOLL_ERR_NO_BUDGET) shmcoll_budget_note(SHMCOLL_BUDGET_REFUSED);
        goto fail;
    }
    /* Keep what the team costs, give back the rest of the grant (all members hold the same). */
    const size_t cost = shmcoll_budget_cost(offers[0].bytes, size);
    shmcoll_budget_give(grant - cost);
    grant = cost;

    /* 3. attach, lay out, first touch; agree */
    char error[256] = "";
    if (local_ok && rank != 0 && offers[0].kept) {
        local_ok = shmcoll_team_pool_take(offers[0].id, &team->segment);
        if (!local_ok) snprintf(error, sizeof error, "the kept segment is gone");
    } else if (local_ok && rank != 0) {
        local_ok = shmcoll_shm_segment_attach(path, offers[0].bytes, &team->segment, error,
                                              sizeof error) == SHMCOLL_OK;
    }
    if (offered) shmcoll_team_pool_unreserve(mine.kept); /* a taken one is no longer kept */
    offered = 0;
    team->segment_id[0] = offers[0].kept ? offers[0].id[0] : name_bits[0];
    team->segment_id[1] = offers[0].kept ? offers[0].id[1] : name_bits[1];
    if (local_ok) local_ok = lanes_init(team, offers[0].chunk, offers[0].kept);
    /* The hierarchies the selector describes the team with: built now, where a failure is
     * agreed on, so that no later choice depends on an allocation on one member. */
    if (local_ok)
        local_ok = shmcoll_team_hierarchy_pin(&team->hiers, config->hier_bcast) == SHMCOLL_OK &&
                   shmcoll_team_hierarchy_pin(&team->hiers, config->hier_reduce) == SHMCOLL_OK &&
                   shmcoll_team_hierarchy_pin(&team->hiers, "socket") == SHMCOLL_OK;
    if (!local_ok) shmcoll_log_verbose("team setup failed on this rank: %s", error);
    const shmcoll_cma_use_t asked = shmcoll_team_cma_asked(config->cma);
    setup_result_t result = {.attached = local_ok, .cma = asked};
    if (asked != SHMCOLL_CMA_OFF && !probe_cma(members, size, rank)) result.cma = SHMCOLL_CMA_OFF;
    result.heap = heap_asked && probe_heap(members, size, rank);
    int exchange_failed = bs->allgather(bs->ctx, &result, results, sizeof result);
    shmcoll_shm_segment_unlink(&team->segment);
    if (exchange_failed) unlink(path); /* member 0 may have died before it could */
    if (exchange_failed) {
        status = SHMCOLL_ERR_SYSTEM;
        goto fail;
    }
    /* The least any member asks for or can do. */
    team->cma = size > 1 ? SHMCOLL_CMA_ALL : SHMCOLL_CMA_OFF;
    team->heap = heap_asked;
    for (int r = 0; r < size; r++) {
        if (!results[r].attached) status = SHMCOLL_ERR_SYSTEM;
        if (results[r].cma < (int)team->cma) team->cma = (shmcoll_cma_use_t)results[r].cma;
        team->heap &= results[r].heap;
    }
    team->heap_min = config->heap_min;
    if (status != SHMCOLL_OK) goto fail;
    team->cma_min = config->cma_min;
    team->cma_max = config->cma_max;

    for (int l = 0; l < team->nlanes; l++) {
        shmcoll_waiter_t *waiter = &team->lanes[l].channel.waiter;
        waiter->timeout = config->timeout;
        waiter->pids = team->pids;
        waiter->op = "setup";
        waiter->error = team->error;
        waiter->error_len = sizeof team->error;
    }
    set_waiting(team);
    team->last_algo = "none";
    shmcoll_log_verbose(
        "team of %d ranks on %d cpus%s: segment %zu bytes, %d lane(s), chunk %zu, usable "
        "cache %zu bytes%s, memory copy loop above %zu bytes, single-copy %s "
        "from %zu bytes%s, shared heaps %s",
        size, team->ncpus, team->oversubscribed ? " (oversubscribed: yielding)" : "",
        offers[0].bytes, team->nlanes, offers[0].chunk, team->usable_cache,
        team->bandwidth_bound ? "" : " (too few cores to stream)", team->memory_copy_min,
        team->cma == SHMCOLL_CMA_ALL    ? "for all movement"
        : team->cma == SHMCOLL_CMA_AUTO ? "for gather, scatter, allgather, alltoall, bcast"
                                        : "off",
        team->cma_min,
        team->cma == SHMCOLL_CMA_OFF && asked != SHMCOLL_CMA_OFF
            ? " (cross-memory attach refused by the kernel)"
            : "",
        team->heap   ? "mapped"
        : heap_asked ? "off (pidfd_getfd refused)"
                     : "off");
    team->budget_held = grant;
    shmcoll_budget_note(SHMCOLL_BUDGET_MADE);
    if (offers[0].chunk < round_chunk(config->chunk)) shmcoll_budget_note(SHMCOLL_BUDGET_SHRUNK);
    free(members), free(offers), free(results);
    *out = team;
    return SHMCOLL_OK;

fail:
    if (offered) shmcoll_team_pool_unreserve(mine.kept);
    shmcoll_budget_give(grant);
    if (reserve) {
        reserve_return(reserve);
        team_release(team); /* the stand-in: its parts only */
    } else {
        free(members), free(offers), free(results);
        team_free(team);
    }
    return status;
}

void shmcoll_team_share_cpus(shmcoll_team_t *team) {
    team->oversubscribed = 1;
    set_waiting(team);
}

void shmcoll_team_destroy(shmcoll_team_t *team) {
    if (!team) return;
    /* Nothing of a member that died stays mapped here (heap/peer.h); the liveness check reads
     * /proc, so only where something of the member is mapped. */
    for (int r = 0; team->heap && r < team->size; r++)
        if (r != team->rank && shmcoll_heap_peer_held(team->pids[r]) &&
            !shmcoll_shm_process_alive(team->pids[r]))
            shmcoll_heap_peer_forget(team->pids[r]);
    /* The segment is kept for a later team of the same processes (core/team_pool.h), holding
     * its share of the budget, unless the team failed: what the segment then holds is no one's
     * business any more. */
    size_t kept_budget =
        shmcoll_budget_cost(team->segment.size, team->size) - SHMCOLL_BUDGET_TEAM_CHARGE;
    if (kept_budget > team->budget_held) kept_budget = team->budget_held;
    if (!team->failed && team->size > 1 && team->segment.base &&
        shmcoll_team_pool_put(&team->segment, team->segment_id, team->rank, team->size,
                              kept_budget))
        team->budget_held -= kept_budget;
    shmcoll_budget_give(team->budget_held);
    shmcoll_budget_note(SHMCOLL_BUDGET_ENDED);
    team_free(team);
}

shmcoll_status_t shmcoll_team_fail(shmcoll_team_t *team, shmcoll_status_t status) {
    if (!team->failed) team->failed = status;
    for (int l = 0; l < team->nlanes; l++)
        shmcoll_channel_fail(&team->lanes[l].channel, status, team->rank);
    return status;
}
