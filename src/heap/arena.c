/* Arenas of the shared heap: the region, its slots, the memory files, fork. See arena.h. */
#include "heap/arena.h"
#include "base/config.h"
#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <unistd.h>

#define REGION_SLOTS     256 /* slots of the region, hence arenas at most */
#define MIN_REGION_SLOTS 8   /* reserve no less (halving when the system refuses more) */
#define GROW_MIN         ((size_t)2 << 20) /* the smallest file of an arena that has any block */
#define PAGE             4096

static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;

/* The region: [region_base, region_base + region_bytes), written once under the lock, read
 * without it (a pointer can only be the heap's once the region exists). */
static _Atomic uintptr_t region_base;
static _Atomic size_t region_bytes;
static size_t slot_bytes;
static int nslots;
static int region_failed; /* reserving failed once: never again */

/* arena_of_slot[i]: the arena that owns slot i (NULL: free). The arena records live in a static
 * array, so a stale pointer read here never points at freed memory. */
static shmcoll_heap_arena_t arenas[REGION_SLOTS];
static shmcoll_heap_arena_t *arena_of_slot[REGION_SLOTS];
static uint32_t next_id = 1;
static _Atomic uint64_t nonce;
static shmcoll_heap_arena_stats_t counters;

void shmcoll_heap_lock(void) {
    pthread_mutex_lock(&heap_lock);
}

void shmcoll_heap_unlock(void) {
    pthread_mutex_unlock(&heap_lock);
}

int shmcoll_heap_in_region(const void *p) {
    const uintptr_t base = atomic_load_explicit(&region_base, memory_order_relaxed);
    return (uintptr_t)p - base < atomic_load_explicit(&region_bytes, memory_order_relaxed);
}

static uint64_t draw_nonce(void) {
    uint64_t value = 0;
    if (getrandom(&value, sizeof value, GRND_NONBLOCK) != (ssize_t)sizeof value)
        value = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)&value;
    return value ? value : 1;
}

uint64_t shmcoll_heap_nonce(void) {
    uint64_t value = atomic_load_explicit(&nonce, memory_order_acquire);
    if (!value) {
        uint64_t drawn = draw_nonce();
        /* Racing first callers keep whichever value was stored first. */
        if (atomic_compare_exchange_strong(&nonce, &value, drawn)) value = drawn;
    }
    return value;
}

/* ---- fork: the child gets a copy, not a shared view --------------------------------------- */

static int snapshot_fd[REGION_SLOTS];

/* A new file holding the data of [0, top) of the arena (holes stay holes), or -1. */
static int snapshot(const shmcoll_heap_arena_t *a) {
    int fd = memfd_create("shmcoll-heap", MFD_CLOEXEC);
    if (fd < 0) return -1;
    if (ftruncate(fd, (off_t)a->size) != 0) goto fail;
    for (off_t at = 0; at < (off_t)a->top;) {
        off_t data = lseek(a->fd, at, SEEK_DATA);
        if (data < 0 || data >= (off_t)a->top) break; /* ENXIO: no data after `at` */
        off_t hole = lseek(a->fd, data, SEEK_HOLE);
        if (hole < 0 || hole > (off_t)a->top) hole = (off_t)a->top;
        for (off_t done = data; done < hole;) {
            ssize_t n = pwrite(fd, a->base + done, (size_t)(hole - done), done);
            if (n <= 0) goto fail;
            done += n;
        }
        at = hole;
    }
    return fd;
fail:
    close(fd);
    return -1;
}

static void fork_prepare(void) {
    pthread_mutex_lock(&heap_lock);
    for (int i = 0; i < REGION_SLOTS; i++)
        snapshot_fd[i] = arenas[i].id && arenas[i].fd >= 0 ? snapshot(&arenas[i]) : -1;
    counters.forks++;
}

static void fork_parent(void) {
    for (int i = 0; i < REGION_SLOTS; i++)
        if (snapshot_fd[i] >= 0) close(snapshot_fd[i]);
    pthread_mutex_unlock(&heap_lock);
}

/* The child's arenas become its own: each maps its copy in place of the parent's file. Where no
 * copy could be made, the arena is mapped privately (copy-on-write of the parent's file: the
 * child's writes stay its own) and leaves the heap (no descriptor: no growth, no sharing). */
static void fork_child(void) {
    atomic_store(&nonce, draw_nonce());
    for (int i = 0; i < REGION_SLOTS; i++) {
        shmcoll_heap_arena_t *a = &arenas[i];
        if (!a->id || a->fd < 0) continue;
        const int copy = snapshot_fd[i];
        void *at =
            mmap(a->base, a->reserve, PROT_READ | PROT_WRITE,
                 (copy >= 0 ? MAP_SHARED : MAP_PRIVATE) | MAP_FIXED, copy >= 0 ? copy : a->fd, 0);
        close(a->fd);
        a->fd = copy;
        if (at == MAP_FAILED || copy < 0) {
            a->fd = -1;
            shmcoll_log_warn("fork: no copy of a shared-heap arena for the child (%s); it is "
                             "private to the child now",
                             strerror(errno));
        }
    }
    pthread_mutex_unlock(&heap_lock);
}

/* ---- The region --------------------------------------------------------------------------- */

/* Address space reserved for the region: SHMCOLL_HEAP_ARENA x REGION_SLOTS, at most a quarter of
 * RLIMIT_AS when that is limited, halved while the system refuses. */
static int region_reserve(void) {
    if (atomic_load_explicit(&region_bytes, memory_order_relaxed)) return 0;
    if (region_failed) return -1;
    size_t slot = shmcoll_config()->heap_arena;
    slot = (slot + GROW_MIN - 1) / GROW_MIN * GROW_MIN;
    if (slot < GROW_MIN) slot = GROW_MIN;
    int slots = REGION_SLOTS;
    struct rlimit limit;
    if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
        while (slots > MIN_REGION_SLOTS && (size_t)slots * slot > limit.rlim_cur / 4) slots /= 2;
    for (; slots >= MIN_REGION_SLOTS; slots /= 2) {
        void *base = mmap(NULL, (size_t)slots * slot, PROT_NONE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (base == MAP_FAILED) continue;
        slot_bytes = slot;
        nslots = slots;
        atomic_store_explicit(&region_base, (uintptr_t)base, memory_order_relaxed);
        atomic_store_explicit(&region_bytes, (size_t)slots * slot, memory_order_relaxed);
        pthread_atfork(fork_prepare, fork_parent, fork_child);
        shmcoll_heap_nonce();
        return 0;
    }
    region_failed = 1;
    shmcoll_log_warn("cannot reserve address space for the shared heap (%zu bytes per arena): "
                     "buffers come from the system allocator",
                     slot);
    return -1;
}

/* Reserves [at, at + bytes) again, inaccessible: no other mapping may take an arena's place. */
static void rereserve(void *at, size_t bytes) {
    mmap(at, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
}

shmcoll_heap_arena_t *shmcoll_heap_arena_at(const void *p) {
    if (!shmcoll_heap_in_region(p)) return NULL;
    const size_t slot =
        ((uintptr_t)p - atomic_load_explicit(&region_base, memory_order_relaxed)) / slot_bytes;
    return arena_of_slot[slot];
}

shmcoll_heap_arena_t *shmcoll_heap_arena_create(size_t bytes) {
    if (region_reserve() != 0) return NULL;
    const size_t want = bytes ? (bytes + slot_bytes - 1) / slot_bytes : 1;
    if (want > (size_t)nslots) return NULL;
    int first = -1;
    for (int i = 0, run = 0; i < nslots; i++) {
        run = arena_of_slot[i] ? 0 : run + 1;
        if ((size_t)run == want) {
            first = i + 1 - run;
            break;
        }
    }
    if (first < 0) return NULL;
    shmcoll_heap_arena_t *a = &arenas[first];
    char *base = (char *)atomic_load_explicit(&region_base, memory_order_relaxed) +
                 (size_t)first * slot_bytes;
    const size_t reserve = want * slot_bytes;
    int fd = memfd_create("shmcoll-heap", MFD_CLOEXEC);
    if (fd < 0) {
        shmcoll_log_verbose("shared heap: memfd_create: %s", strerror(errno));
        return NULL;
    }
    if (mmap(base, reserve, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
        shmcoll_log_verbose("shared heap: mmap of an arena: %s", strerror(errno));
        close(fd);
        rereserve(base, reserve);
        return NULL;
    }
    *a = (shmcoll_heap_arena_t){
        .id = next_id++, .fd = fd, .base = base, .reserve = reserve, .size = 0, .top = 0};
    for (size_t i = 0; i < want; i++) arena_of_slot[first + i] = a;
    counters.created++;
    counters.live++;
    return a;
}

int shmcoll_heap_arena_grow(shmcoll_heap_arena_t *a, size_t end) {
    if (end <= a->size) return 0;
    if (end > a->reserve || a->fd < 0) return -1;
    size_t size = a->size ? a->size : GROW_MIN;
    while (size < end) size *= 2;
    if (size > a->reserve) size = a->reserve;
    if (ftruncate(a->fd, (off_t)size) != 0) {
        shmcoll_log_verbose("shared heap: growing an arena to %zu bytes: %s", size,
                            strerror(errno));
        return -1;
    }
    counters.file_bytes += size - a->size;
    a->size = size;
    return 0;
}

void shmcoll_heap_arena_release(shmcoll_heap_arena_t *a, size_t from, size_t to) {
    from = (from + PAGE - 1) / PAGE * PAGE;
    to = to / PAGE * PAGE;
    if (to > a->size) to = a->size;
    if (from >= to) return;
    if (a->fd < 0 || fallocate(a->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)from,
                               (off_t)(to - from)) != 0)
        madvise(a->base + from, to - from, MADV_DONTNEED); /* private (see fork_child) */
}

void shmcoll_heap_arena_destroy(shmcoll_heap_arena_t *a) {
    const size_t first = (size_t)(a - arenas);
    rereserve(a->base, a->reserve);
    if (a->fd >= 0) close(a->fd);
    for (size_t i = 0; i < a->reserve / slot_bytes; i++) arena_of_slot[first + i] = NULL;
    counters.destroyed++;
    counters.live--;
    counters.file_bytes -= a->size;
    *a = (shmcoll_heap_arena_t){.fd = -1};
}

shmcoll_heap_arena_t *shmcoll_heap_arena_next(const shmcoll_heap_arena_t *prev) {
    for (int i = prev ? (int)(prev - arenas) + 1 : 0; i < nslots; i++)
        if (arenas[i].id) return &arenas[i];
    return NULL;
}

void shmcoll_heap_arena_stats(shmcoll_heap_arena_stats_t *out) {
    pthread_mutex_lock(&heap_lock);
    *out = counters;
    pthread_mutex_unlock(&heap_lock);
}
