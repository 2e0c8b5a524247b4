/* Where a team's slots live (core/team.c, place_slots): the pages each member writes — its data
 * buffers and eager slots in every lane — on the NUMA node local to its binding, set on the
 * segment's file before its pages are reserved; the control blocks left to the default.
 *
 * Per team size (2, 3, 5 and 8 by default), every member binds itself to one CPU (rank mod the
 * CPUs it may use) and makes a team; then each reads, for every member's buffers and eager slots
 * in every lane, the policy the kernel keeps for that address (get_mempolicy): preferred, on
 * that member's node as the kernel names it (getcpu after binding); for its own buffers, which
 * the member has touched, also the node the kernel actually put each page on (move_pages). The
 * team then runs checked collectives, so the placement changed nothing they see. A kernel without
 * NUMA support has no policy to read: the test says so and checks the collectives only. */
#include "coll_check.h"
#include "shm/channel.h"
#include "team_harness.h"

#include <errno.h>
#include <linux/mempolicy.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MASK_LONGS 16 /* 1024 nodes */
#define CALLS      40

static int harness_allgather(void *ctx, const void *in, void *out, size_t bytes) {
    (void)ctx;
    return team_harness_allgather(in, out, bytes);
}

/* Binds this process to one CPU it may use (rank mod their count); returns that CPU's node as
 * the kernel names it, -1 when binding failed. */
static int bind_self(int rank) {
    cpu_set_t allowed, one;
    if (sched_getaffinity(0, sizeof allowed, &allowed)) return -1;
    const int n = CPU_COUNT(&allowed);
    for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE && n > 0; cpu++) {
        if (!CPU_ISSET(cpu, &allowed) || seen++ != rank % n) continue;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        if (sched_setaffinity(0, sizeof one, &one)) return -1;
        unsigned got_cpu, node;
        return getcpu(&got_cpu, &node) ? -1 : (int)node;
    }
    return -1;
}

/* The policy the kernel keeps for the page at addr: its mode, and the single node of its mask
 * (-1: none or several). 0 on success, else errno. */
static int policy_at(const void *addr, int *mode, int *node) {
    unsigned long mask[MASK_LONGS] = {0};
    if (syscall(SYS_get_mempolicy, mode, mask, (unsigned long)MASK_LONGS * 64 + 1, addr,
                (unsigned long)MPOL_F_ADDR))
        return errno;
    *node = -1;
    for (int i = 0, seen = 0; i < MASK_LONGS * 64; i++)
        if (mask[i / 64] >> (i % 64) & 1) *node = seen++ ? -1 : i;
    return 0;
}

/* Checks the pages of [addr, addr + bytes) that member r writes; `own`: this member's, whose pages
 * it touched, so their actual node is known too. 1 when wrong. */
static int check_span(const char *what, int r, const void *addr, size_t bytes, int node, int own) {
    int mode, at = -1;
    const int err = policy_at(addr, &mode, &at);
    if (err) {
        team_harness_log("get_mempolicy on member %d's %s: %s", r, what, strerror(err));
        return 1;
    }
    if (mode != MPOL_PREFERRED || at != node) {
        team_harness_log("member %d's %s: policy mode %d node %d, not preferred on node %d", r,
                         what, mode, at, node);
        return 1;
    }
    const long page = sysconf(_SC_PAGESIZE);
    for (size_t off = 0; own && off < bytes; off += (size_t)page) {
        void *p = (char *)addr + off;
        int status = -1;
        if (syscall(SYS_move_pages, 0, 1ul, &p, NULL, &status, 0) || status != node) {
            team_harness_log("member %d's %s: page at +%zu on node %d, not %d", r, what, off,
                             status, node);
            return 1;
        }
    }
    return 0;
}

/* Allreduces and bcasts of changing sizes and roots over the buffers' both parities, each checked
 * (coll_check.h). */
static int run_checked(shmcoll_team_t *team) {
    const size_t most = 2 * team->chunk / sizeof(int64_t);
    int bad = 0;
    for (long k = 0; k < CALLS && !bad; k++) {
        const size_t n = 1 + (size_t)(k * 613) % most;
        coll_case_t c = {
            .dtype = SHMCOLL_DT_INT64, .op = SHMCOLL_OP_SUM, .count = n, .seed = (uint64_t)k};
        bad |= coll_check_allreduce(team, &c);
        c.count = n * sizeof(int64_t);
        c.root = (int)(k % team->size);
        bad |= coll_check_bcast(team, &c);
    }
    return bad;
}

static int body(shmcoll_team_t *harness_team, void *arg) {
    (void)harness_team;
    (void)arg;
    const int me = team_harness_rank(), p = team_harness_size();
    int nodes[TEAM_HARNESS_MAX_P];
    const int mine = bind_self(me);
    if (team_harness_allgather(&mine, nodes, sizeof mine)) return 1;
    shmcoll_bootstrap_t boot = {.rank = me, .size = p, .allgather = harness_allgather};
    shmcoll_team_t *team = NULL;
    if (shmcoll_team_create(&boot, &team) != SHMCOLL_OK) {
        team_harness_log("team create failed");
        return 1;
    }
    int bad = 0, mode, node;
    if (policy_at(team->segment.base, &mode, &node) == ENOSYS) {
        if (me == 0) team_harness_log("no NUMA support in this kernel: placement not checked");
    } else {
        for (int r = 0; r < p; r++)
            if (nodes[r] < 0) {
                team_harness_log("member %d could not bind itself", r);
                bad = 1;
            }
        for (int l = 0; l < team->nlanes && !bad; l++) {
            const shmcoll_channel_t *ch = &team->lanes[l].channel;
            if (policy_at(ch->ctrl, &mode, &node) || mode != MPOL_DEFAULT) {
                team_harness_log("lane %d's control blocks: policy mode %d, not the default", l,
                                 mode);
                bad = 1;
            }
            for (int r = 0; r < p && !bad; r++) {
                bad |= check_span("data buffers", r, shmcoll_channel_buffer(ch, r, 0),
                                  2 * ch->chunk, nodes[r], r == me);
                bad |= check_span("eager slots", r, shmcoll_channel_eager(ch, r, 0),
                                  SHMCOLL_EAGER_SLOTS * ch->eager, nodes[r], 0);
            }
        }
    }
    bad |= run_checked(team);
    shmcoll_team_destroy(team);
    return bad;
}

int main(int argc, char **argv) {
    static const int sizes[] = {2, 3, 5, 8};
    const char *env[] = {"SHMCOLL_LANES=2", NULL};
    team_harness_spec_t spec = {.body = body, .timeout_s = 300, .env = env};
    return team_harness_for_sizes_spec(argc, argv, sizes, 4, &spec) ? 1 : 0;
}
