/* SHMCOLL_HEAP=malloc: large allocations of malloc and its relatives come from the shared heap.
 *
 * For programs that do not call MPI_Alloc_mem: with libshmcoll preloaded or linked, malloc,
 * calloc, realloc, posix_memalign, aligned_alloc, memalign, valloc and pvalloc of at least
 * SHMCOLL_HEAP_THRESHOLD bytes (default 128 KiB, glibc's mmap threshold) are served from the
 * shared heap (heap/alloc.h), whose memory peers can map, so the collectives on such buffers move
 * each block once (docs/HEAP.md). free, realloc and malloc_usable_size tell the heap's pointers
 * from the others by one comparison.
 *
 * What must not change, does not: these definitions interpose the C library's for the whole
 * process (ELF interposition, as glibc's manual describes for replacing malloc), but every call
 * outside the mode, below the threshold, or for a pointer the heap does not own goes straight to
 * the C library's own implementation (__libc_malloc and friends): a branch and a call, nothing
 * else. Calls made before this library's constructor ran (the dynamic loader, other constructors)
 * see the mode off. Within the heap's own code (a log line while it holds its lock) a thread's
 * allocations go to the C library whatever their size, so the heap never re-enters itself.
 *
 * realloc across the two: a heap block stays in the heap (grown in place, or moved to any
 * arena); a C library block that grows to the threshold moves into the heap; one that stays below
 * stays where it is. Thread-safe and fork-safe as the heap is (heap/arena.h). The threshold is
 * at least 16 KiB: what the C library's own small-object paths serve never changes. */
#include "mpi/alloc_mem.h"

#include "base/config.h"
#include "heap/heap.h"
#include "shmcoll.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define THRESHOLD_MIN ((size_t)16 << 10)

extern void *__libc_malloc(size_t bytes);
extern void __libc_free(void *p);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *p, size_t bytes);
extern void *__libc_memalign(size_t align, size_t bytes);
extern void *__libc_valloc(size_t bytes);
extern void *__libc_pvalloc(size_t bytes);

/* 0 until the constructor enables the mode; then the smallest size the heap serves. */
static size_t threshold;
/* This thread is inside the heap (its allocations go to the C library). */
static __thread int inside __attribute__((tls_model("initial-exec")));

__attribute__((constructor)) static void heap_malloc_init(void) {
    const shmcoll_config_t *config = shmcoll_config();
    if (config->disable || shmcoll_heap_mode() != SHMCOLL_HEAP_MALLOC) return;
    threshold = config->heap_threshold > THRESHOLD_MIN ? config->heap_threshold : THRESHOLD_MIN;
}

/* Whether an allocation of `bytes` comes from the heap. */
static inline int to_heap(size_t bytes) {
    return __builtin_expect(threshold != 0, 0) && bytes >= threshold && !inside;
}

static void *heap_alloc(size_t bytes, size_t align) {
    inside = 1;
    void *p = shmcoll_heap_alloc(bytes, align);
    inside = 0;
    return p;
}

static void *heap_calloc(size_t count, size_t size) {
    inside = 1;
    void *p = shmcoll_heap_calloc(count, size);
    inside = 0;
    return p;
}

static void heap_free(void *p) {
    inside = 1;
    shmcoll_heap_free(p);
    inside = 0;
}

void *shmcoll_mpi_heap_alloc(size_t bytes) {
    return heap_alloc(bytes, 64);
}

void shmcoll_mpi_heap_free(void *p) {
    heap_free(p);
}

SHMCOLL_API void *malloc(size_t bytes) {
    if (to_heap(bytes)) {
        void *p = heap_alloc(bytes, 64);
        if (p) return p;
    }
    return __libc_malloc(bytes);
}

SHMCOLL_API void free(void *p) {
    if (__builtin_expect(shmcoll_heap_owns(p), 0))
        heap_free(p);
    else
        __libc_free(p);
}

SHMCOLL_API void *calloc(size_t count, size_t size) {
    if (!size || count <= SIZE_MAX / size) {
        if (to_heap(count * size)) {
            void *p = heap_calloc(count, size);
            if (p) return p;
        }
    }
    return __libc_calloc(count, size);
}

/* The C library's malloc_usable_size, found once (dlsym itself may allocate: from the C library,
 * since this function is not the heap's). */
static size_t libc_usable(void *p) {
    static _Atomic(size_t(*)(void *)) fn;
    size_t (*usable)(void *) = atomic_load_explicit(&fn, memory_order_acquire);
    if (!usable) {
        usable = (size_t(*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
        atomic_store_explicit(&fn, usable, memory_order_release);
    }
    return usable ? usable(p) : 0;
}

SHMCOLL_API void *realloc(void *p, size_t bytes) {
    if (!p) return malloc(bytes);
    if (shmcoll_heap_owns(p)) {
        if (!bytes) {
            heap_free(p);
            return NULL;
        }
        inside = 1;
        void *q = shmcoll_heap_realloc(p, bytes);
        inside = 0;
        if (q) return q;
        /* No room in the heap: the C library's, as malloc would (the block keeps its contents,
         * and stays valid where neither has room). */
        const size_t old = shmcoll_heap_usable(p);
        q = __libc_malloc(bytes);
        if (!q) return NULL;
        memcpy(q, p, old < bytes ? old : bytes);
        heap_free(p);
        return q;
    }
    if (to_heap(bytes)) { /* a C library block grown to the threshold moves into the heap */
        const size_t old = libc_usable(p);
        void *q = old ? heap_alloc(bytes, 64) : NULL;
        if (q) {
            memcpy(q, p, old < bytes ? old : bytes);
            __libc_free(p);
            return q;
        }
    }
    return __libc_realloc(p, bytes);
}

static int valid_alignment(size_t align) {
    return align && !(align & (align - 1));
}

SHMCOLL_API void *memalign(size_t align, size_t bytes) {
    if (to_heap(bytes) && valid_alignment(align)) {
        void *p = heap_alloc(bytes, align);
        if (p) return p;
    }
    return __libc_memalign(align, bytes);
}

SHMCOLL_API void *aligned_alloc(size_t align, size_t bytes) {
    return memalign(align, bytes);
}

SHMCOLL_API int posix_memalign(void **out, size_t align, size_t bytes) {
    if (!valid_alignment(align) || align % sizeof(void *)) return EINVAL;
    void *p = memalign(align, bytes);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

SHMCOLL_API void *valloc(size_t bytes) {
    if (to_heap(bytes)) {
        void *p = heap_alloc(bytes, (size_t)sysconf(_SC_PAGESIZE));
        if (p) return p;
    }
    return __libc_valloc(bytes);
}

SHMCOLL_API void *pvalloc(size_t bytes) {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (bytes <= SIZE_MAX - page && to_heap(bytes)) {
        void *p = heap_alloc((bytes + page - 1) / page * page, page);
        if (p) return p;
    }
    return __libc_pvalloc(bytes);
}

SHMCOLL_API size_t malloc_usable_size(void *p) {
    if (!p) return 0;
    if (shmcoll_heap_owns(p)) return shmcoll_heap_usable(p);
    return libc_usable(p);
}
