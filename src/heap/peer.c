/* The cache of peers' mapped arenas. See peer.h. */
#include "heap/peer.h"
#include "base/config.h"
#include "base/log.h"
#include "heap/pidfd.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Entries beyond the cache's bound for mappings that are all pinned at once (collectives in
 * flight on several threads); past these, a call copies with cross-memory attach. */
#define PINNED_SLACK 64
#define MAP_MIN      ((size_t)2 << 20)

typedef struct entry {
    pid_t pid;
    uint64_t nonce;
    uint32_t arena;
    int live;
    char *base; /* the arena's byte 0 in this process */
    size_t len;
    int pins;
    int doomed; /* its process died: unmapped when the last pin goes */
    uint64_t used;
} entry_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry_t *entries;
static int capacity = -1, slots;
static uint64_t clock_tick;
static shmcoll_heap_peer_stats_t counters;

static void fork_prepare(void) {
    pthread_mutex_lock(&lock);
}

static void fork_parent(void) {
    pthread_mutex_unlock(&lock);
}

static void fork_child(void) {
    for (int i = 0; i < slots; i++) entries[i].pins = 0;
    pthread_mutex_unlock(&lock);
}

/* The table, made on first use (lock held). */
static int table_ready(void) {
    if (capacity >= 0) return entries != NULL || capacity == 0;
    const long asked = shmcoll_config()->heap_cache;
    capacity = asked < 0 ? 0 : asked > 4096 ? 4096 : (int)asked;
    if (!capacity) return 0;
    entries = calloc((size_t)capacity + PINNED_SLACK, sizeof *entries);
    if (!entries) return 0;
    slots = capacity + PINNED_SLACK;
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    return 1;
}

static void unmap(entry_t *e) {
    munmap(e->base, e->len);
    counters.live--;
    counters.live_bytes -= e->len;
    e->live = 0;
}

/* Makes room for one more mapping within the bound: unmaps the least recently used unpinned one
 * when the cache is full. */
static void make_room(void) {
    int live = 0;
    entry_t *oldest = NULL;
    for (int i = 0; i < slots; i++) {
        entry_t *e = &entries[i];
        if (!e->live) continue;
        live++;
        if (!e->pins && (!oldest || e->used < oldest->used)) oldest = e;
    }
    if (live >= capacity && oldest) {
        unmap(oldest);
        counters.evictions++;
    }
}

static size_t map_length(size_t end) {
    size_t len = MAP_MIN;
    while (len < end) len *= 2;
    return len;
}

static entry_t *map_new(pid_t pid, const shmcoll_heap_ref_t *ref, size_t end) {
    make_room();
    entry_t *slot = NULL;
    for (int i = 0; i < slots && !slot; i++)
        if (!entries[i].live) slot = &entries[i];
    if (!slot) {
        errno = EBUSY;
        return NULL;
    }
    const int fd = shmcoll_heap_pidfd_fetch(pid, ref->fd);
    if (fd < 0) return NULL;
    const size_t len = map_length(end);
    void *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    const int error = errno;
    close(fd);
    if (base == MAP_FAILED) {
        errno = error;
        return NULL;
    }
    *slot = (entry_t){
        .pid = pid, .nonce = ref->nonce, .arena = ref->arena, .live = 1, .base = base, .len = len};
    counters.maps++;
    counters.live++;
    counters.live_bytes += len;
    return slot;
}

void *shmcoll_heap_peer_map(pid_t pid, const shmcoll_heap_ref_t *ref, int *handle) {
    const size_t end = ref->offset + ref->limit;
    pthread_mutex_lock(&lock);
    entry_t *e = NULL;
    if (!table_ready()) {
        errno = ENOSPC;
        goto fail;
    }
    for (int i = 0; i < slots && !e; i++)
        if (entries[i].live && entries[i].pid == pid && entries[i].nonce == ref->nonce &&
            entries[i].arena == ref->arena && !entries[i].doomed)
            e = &entries[i];
    if (e && e->len < end) {
        /* Grown since: extend the mapping, moving it only when no collective uses it. */
        const size_t len = map_length(end);
        void *grown = mremap(e->base, e->len, len, e->pins ? 0 : MREMAP_MAYMOVE);
        if (grown == MAP_FAILED) goto fail;
        counters.live_bytes += len - e->len;
        e->base = grown;
        e->len = len;
        counters.remaps++;
    } else if (e) {
        counters.hits++;
    } else if (!(e = map_new(pid, ref, end))) {
        goto fail;
    }
    e->pins++;
    e->used = ++clock_tick;
    *handle = (int)(e - entries);
    pthread_mutex_unlock(&lock);
    return e->base + ref->offset;
fail:
    counters.failures++;
    pthread_mutex_unlock(&lock);
    return NULL;
}

void shmcoll_heap_peer_unpin(int handle) {
    pthread_mutex_lock(&lock);
    entry_t *e = &entries[handle];
    if (--e->pins == 0 && e->doomed) unmap(e);
    pthread_mutex_unlock(&lock);
}

void shmcoll_heap_peer_forget(pid_t pid) {
    pthread_mutex_lock(&lock);
    for (int i = 0; i < slots; i++) {
        entry_t *e = &entries[i];
        if (!e->live || e->pid != pid || e->doomed) continue;
        counters.forgotten++;
        e->doomed = 1;
        if (!e->pins) unmap(e);
    }
    pthread_mutex_unlock(&lock);
}

int shmcoll_heap_peer_held(pid_t pid) {
    int held = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < slots; i++) held += entries[i].live && entries[i].pid == pid;
    pthread_mutex_unlock(&lock);
    return held;
}

void shmcoll_heap_peer_stats(shmcoll_heap_peer_stats_t *out) {
    pthread_mutex_lock(&lock);
    *out = counters;
    pthread_mutex_unlock(&lock);
}
