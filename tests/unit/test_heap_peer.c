/* Peers' arenas (heap/peer.h, heap/pidfd.h) between two processes: an owner allocates heap
 * buffers and sends their references, a mapper maps them. The probe; reads and writes through the
 * mapping in both directions; cache hits; the bound (SHMCOLL_HEAP_CACHE=4 over 11 arenas: the
 * least recently used unmapped, descriptors never kept); an arena freed and a new one made at the
 * same address is never read through the old mapping (identity by nonce and id); a mapping
 * grown when the owner's arena grew; an owner that dies leaves nothing mapped once forgotten;
 * SHMCOLL_HEAP_CACHE=0 maps nothing. Each scenario runs in a fresh mapper process whose child is
 * the owner (a parent may fetch its child's descriptors even under Yama's ptrace_scope 1). */
#include "check.h"
#include "base/config.h"
#include "heap/heap.h"
#include "proc_counts.h"
#include "heap/pidfd.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)

typedef struct cmd {
    char op; /* p: probe target, a: allocate, f: free, v: verify the 'X' page, q: quit */
    int index;
    size_t size;
    unsigned seed;
} cmd_t;

typedef struct reply {
    int ok;
    shmcoll_heap_ref_t ref;
    int probe_fd;
    uint64_t probe_inode;
} reply_t;

typedef struct owner {
    pid_t pid;
    int to, from;
} owner_t;

static unsigned char pattern(unsigned seed, size_t i) {
    return (unsigned char)(seed * 131 + i / 4096);
}

static void owner_loop(int in, int out) {
    char *blocks[64] = {0};
    for (cmd_t c; read(in, &c, sizeof c) == (ssize_t)sizeof c;) {
        reply_t r = {.ok = 1};
        switch (c.op) {
        case 'p':
            r.probe_fd = shmcoll_heap_pidfd_probe_target(&r.probe_inode);
            break;
        case 'a':
            blocks[c.index] = shmcoll_heap_alloc(c.size, 64);
            r.ok = blocks[c.index] != NULL;
            for (size_t i = 0; r.ok && i < c.size; i += 4096)
                blocks[c.index][i] = pattern(c.seed, i);
            if (r.ok) shmcoll_heap_ref(blocks[c.index], &r.ref);
            break;
        case 'f':
            shmcoll_heap_free(blocks[c.index]);
            break;
        case 'v':
            for (size_t i = 0; i < 4096; i++) r.ok &= blocks[c.index][i] == 'X';
            break;
        default:
            _exit(0);
        }
        if (write(out, &r, sizeof r) != (ssize_t)sizeof r) _exit(1);
    }
    _exit(0);
}

static owner_t owner_start(void) {
    int down[2], up[2];
    owner_t o = {0};
    if (pipe(down) || pipe(up)) return o;
    o.pid = fork();
    if (o.pid == 0) {
        close(down[1]), close(up[0]);
        owner_loop(down[0], up[1]);
    }
    close(down[0]), close(up[1]);
    o.to = down[1], o.from = up[0];
    return o;
}

static reply_t ask(owner_t *o, char op, int index, size_t size, unsigned seed) {
    cmd_t c = {.op = op, .index = index, .size = size, .seed = seed};
    reply_t r = {0};
    if (write(o->to, &c, sizeof c) != (ssize_t)sizeof c ||
        read(o->from, &r, sizeof r) != (ssize_t)sizeof r)
        r.ok = 0;
    return r;
}

static void owner_stop(owner_t *o) {
    cmd_t c = {.op = 'q'};
    if (write(o->to, &c, sizeof c) < 0) perror("write");
    waitpid(o->pid, NULL, 0);
    close(o->to), close(o->from);
}

/* Mappings of memory files in this process (/proc/self/maps lines naming one). */
static int matches(const unsigned char *p, size_t size, unsigned seed) {
    for (size_t i = 0; i < size; i += 4096)
        if (p[i] != pattern(seed, i)) return 0;
    return 1;
}

static shmcoll_heap_peer_stats_t stats(void) {
    shmcoll_heap_peer_stats_t s;
    shmcoll_heap_peer_stats(&s);
    return s;
}

/* Probe, both directions, hits, the bound, identity. SHMCOLL_HEAP_ARENA=2M, CACHE=4. */
static int scenario_cache(void) {
    owner_t o = owner_start();
    reply_t probe = ask(&o, 'p', 0, 0, 0);
    CHECK(shmcoll_heap_pidfd_probe(o.pid, probe.probe_fd, probe.probe_inode), "probe");
    CHECK(!shmcoll_heap_pidfd_probe(o.pid, probe.probe_fd, probe.probe_inode + 1),
          "a probe of the wrong inode fails");

    reply_t a = ask(&o, 'a', 0, MIB, 1);
    int h;
    unsigned char *p = shmcoll_heap_peer_map(o.pid, &a.ref, &h);
    CHECK(p && matches(p, MIB, 1), "the owner's buffer read through the mapping");
    if (p) memset(p, 'X', 4096);
    shmcoll_heap_peer_unpin(h);
    CHECK(ask(&o, 'v', 0, 0, 0).ok, "the mapper's write seen by the owner");
    unsigned char *again = shmcoll_heap_peer_map(o.pid, &a.ref, &h);
    shmcoll_heap_peer_unpin(h);
    CHECK(again == p && stats().hits == 1 && stats().maps == 1, "the second map is a hit");

    const int fds = proc_open_fds();
    for (int i = 1; i <= 10; i++) { /* 3 MiB each: an arena of its own */
        reply_t b = ask(&o, 'a', i, 3 * MIB, 10 + (unsigned)i);
        unsigned char *q = shmcoll_heap_peer_map(o.pid, &b.ref, &h);
        CHECK(q && matches(q, 3 * MIB, 10 + (unsigned)i), "arena %d read", i);
        if (q) shmcoll_heap_peer_unpin(h);
        CHECK(stats().live <= 4, "at most SHMCOLL_HEAP_CACHE mappings: %llu",
              (unsigned long long)stats().live);
    }
    CHECK(stats().evictions >= 7, "evictions: %llu", (unsigned long long)stats().evictions);
    CHECK(proc_open_fds() == fds, "no descriptor kept: %d, before %d", proc_open_fds(), fds);
    CHECK(proc_heap_mappings() == (int)stats().live, "mappings: %d, cache %llu",
          proc_heap_mappings(), (unsigned long long)stats().live);

    /* Arena 10 freed (destroyed) and a new one made in its place: a new id, never the old
     * mapping, although arena 10 is the most recently used in the cache. */
    reply_t old = ask(&o, 'a', 11, 3 * MIB, 30);
    unsigned char *q = shmcoll_heap_peer_map(o.pid, &old.ref, &h);
    shmcoll_heap_peer_unpin(h);
    ask(&o, 'f', 11, 0, 0);
    reply_t fresh = ask(&o, 'a', 12, 3 * MIB, 31);
    CHECK(fresh.ref.arena != old.ref.arena, "a new arena has a new id");
    unsigned char *r = shmcoll_heap_peer_map(o.pid, &fresh.ref, &h);
    CHECK(r && matches(r, 3 * MIB, 31), "the new arena's data, not the old mapping's");
    CHECK(q && !matches(q, 3 * MIB, 31), "the old mapping is another file");
    if (r) shmcoll_heap_peer_unpin(h);

    /* The owner dies: its mappings go once forgotten, pinned ones at their unpin. */
    unsigned char *pinned = shmcoll_heap_peer_map(o.pid, &a.ref, &h);
    CHECK(pinned != NULL, "mapped again");
    kill(o.pid, SIGKILL);
    waitpid(o.pid, NULL, 0);
    close(o.to), close(o.from);
    shmcoll_heap_peer_forget(o.pid);
    CHECK(stats().live == 1, "only the pinned mapping stays: %llu",
          (unsigned long long)stats().live);
    CHECK(pinned && pinned[0] == 'X', "a pinned mapping stays readable after its owner died");
    shmcoll_heap_peer_unpin(h);
    CHECK(stats().live == 0 && proc_heap_mappings() == 0, "nothing of the dead owner is mapped");
    return 0;
}

/* The owner's arena grows past the mapping: the mapping grows too. SHMCOLL_HEAP_ARENA=64M. */
static int scenario_grow(void) {
    owner_t o = owner_start();
    reply_t a = ask(&o, 'a', 0, MIB, 1);
    int h;
    unsigned char *p = shmcoll_heap_peer_map(o.pid, &a.ref, &h);
    shmcoll_heap_peer_unpin(h);
    reply_t b = ask(&o, 'a', 1, 20 * MIB, 2);
    CHECK(b.ref.arena == a.ref.arena, "the same arena, grown");
    unsigned char *q = shmcoll_heap_peer_map(o.pid, &b.ref, &h);
    CHECK(q && matches(q, 20 * MIB, 2), "a buffer beyond the first mapping read");
    CHECK(stats().remaps == 1 && stats().maps == 1, "one map, one remap");
    shmcoll_heap_peer_unpin(h);
    unsigned char *p2 = shmcoll_heap_peer_map(o.pid, &a.ref, &h);
    CHECK(p2 && matches(p2, MIB, 1), "the first buffer through the grown mapping");
    shmcoll_heap_peer_unpin(h);
    (void)p;
    owner_stop(&o);
    return 0;
}

/* SHMCOLL_HEAP_CACHE=0: nothing is mapped, the caller copies with cross-memory attach. */
static int scenario_no_cache(void) {
    owner_t o = owner_start();
    reply_t a = ask(&o, 'a', 0, MIB, 1);
    int h;
    CHECK(shmcoll_heap_peer_map(o.pid, &a.ref, &h) == NULL, "no mapping with a cache of 0");
    CHECK(stats().failures == 1 && stats().live == 0, "counted as a failure");
    owner_stop(&o);
    return 0;
}

static int run(int (*scenario)(void), const char *arena, const char *cache) {
    pid_t mapper = fork();
    if (mapper == 0) {
        setenv("SHMCOLL_HEAP_ARENA", arena, 1);
        setenv("SHMCOLL_HEAP_CACHE", cache, 1);
        shmcoll_config_reload();
        scenario();
        printf("  mapper (arena %s, cache %s): %ld checks, %ld failed\n", arena, cache,
               check_total(), check_failures());
        fflush(stdout);
        _exit(check_failures() ? 1 : 0);
    }
    int status = 0;
    waitpid(mapper, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "scenario (status %d)", status);
    return 0;
}

int main(void) {
    uint64_t inode;
    const int own = shmcoll_heap_pidfd_probe_target(&inode);
    const int fetched = own < 0 ? -1 : shmcoll_heap_pidfd_fetch(getpid(), own);
    if (fetched < 0) {
        printf("test_heap_peer: skipped: pidfd_getfd is not available here\n");
        return 0;
    }
    close(fetched);
    run(scenario_cache, "2M", "4");
    run(scenario_grow, "64M", "64");
    run(scenario_no_cache, "2M", "0");
    printf("test_heap_peer: %ld checks, %ld failed\n", check_total(), check_failures());
    return check_failures() != 0;
}
