/* The shared heap's allocator: boundary-tagged blocks over the arenas. See alloc.h.
 *
 * An arena's blocks tile [0, top) of it: each starts with its header (its size and the size of
 * the block before it), used and free blocks alternate at least every other block (neighbours
 * merge when freed), and [top, reserve) — the wilderness — is all zero and has no header. */
#include "heap/alloc.h"
#include "heap/arena.h"
#include "base/log.h"

#include <stdlib.h>
#include <string.h>

#define HDR       64
#define MIN_BLOCK (2 * HDR)
#define TRIM_MIN  ((size_t)1 << 20) /* free blocks this large give their whole pages back */
#define NBINS     64
#define PAGE      4096

#define MAGIC_USED 0x53484d55u /* "SHMU" */
#define MAGIC_FREE 0x53484d46u /* "SHMF" */

typedef struct block {
    size_t size;      /* header included; a multiple of HDR */
    size_t prev_size; /* of the block ending where this one starts; 0 for an arena's first */
    uint32_t magic;
    uint32_t clean;            /* the bytes after the header are all zero */
    struct block *next, *prev; /* in its bin, while free */
    shmcoll_heap_arena_t *arena;
    uint64_t pad[2];
} block_t;

_Static_assert(sizeof(block_t) == HDR, "a block header is one cache line");

static block_t *bins[NBINS];
static uint64_t bin_bits; /* bit k: bins[k] is not empty */
static shmcoll_heap_alloc_stats_t counters;

static size_t round_up(size_t n, size_t to) {
    return (n + to - 1) / to * to;
}

static int bin_of(size_t size) {
    return 63 - __builtin_clzll((unsigned long long)size);
}

static size_t offset_of(const block_t *b) {
    return (size_t)((const char *)b - b->arena->base);
}

static block_t *after(const block_t *b) {
    return offset_of(b) + b->size < b->arena->top ? (block_t *)((char *)b + b->size) : NULL;
}

static block_t *before(const block_t *b) {
    return b->prev_size ? (block_t *)((char *)b - b->prev_size) : NULL;
}

static void bin_insert(block_t *b) {
    const int k = bin_of(b->size);
    b->magic = MAGIC_FREE;
    b->prev = NULL;
    b->next = bins[k];
    if (b->next) b->next->prev = b;
    bins[k] = b;
    bin_bits |= 1ull << k;
}

static void bin_remove(block_t *b) {
    const int k = bin_of(b->size);
    if (b->prev)
        b->prev->next = b->next;
    else
        bins[k] = b->next;
    if (b->next) b->next->prev = b->prev;
    if (!bins[k]) bin_bits &= ~(1ull << k);
}

/* A block of `size` bytes at `at` of `arena`. */
static block_t *make(shmcoll_heap_arena_t *arena, char *at, size_t size, size_t prev_size) {
    block_t *b = (block_t *)(void *)at;
    *b = (block_t){.size = size, .prev_size = prev_size, .arena = arena};
    return b;
}

/* Sets the prev_size of the block after `b` (if any) to b's size. */
static void link_after(block_t *b) {
    block_t *n = after(b);
    if (n) n->prev_size = b->size;
}

/* Where a block of `need` bytes, its memory aligned to `align`, starts in a free span at `start`:
 * the lead before it is 0 or a block of its own (MIN_BLOCK or more). */
static size_t lead_of(const char *start, size_t align) {
    const uintptr_t s = (uintptr_t)start;
    size_t lead = round_up(s + HDR, align) - HDR - s;
    if (lead && lead < MIN_BLOCK) lead = round_up(s + HDR + MIN_BLOCK, align) - HDR - s;
    return lead;
}

/* Cuts the used block `b` down to `need` bytes when the rest makes a block; the rest is free. */
static void trim_tail(block_t *b, size_t need);

/* The free block b (out of its bin) becomes a used block of `need` bytes at its lead: the lead
 * and the tail, when there are any, go back to the bins. */
static block_t *carve(block_t *b, size_t need, size_t lead) {
    if (lead) {
        block_t *rest = make(b->arena, (char *)b + lead, b->size - lead, lead);
        b->size = lead;
        link_after(rest);
        bin_insert(b);
        b = rest;
    }
    b->magic = MAGIC_USED;
    b->clean = 0;
    trim_tail(b, need);
    return b;
}

static block_t *from_bins(size_t need, size_t align) {
    for (uint64_t bits = bin_bits & ~((1ull << bin_of(need)) - 1); bits; bits &= bits - 1) {
        for (block_t *b = bins[__builtin_ctzll(bits)]; b; b = b->next) {
            const size_t lead = lead_of((char *)b, align);
            if (lead + need > b->size) continue;
            bin_remove(b);
            return carve(b, need, lead);
        }
    }
    return NULL;
}

/* A block at the top of `arena`, its file grown to hold it. */
static block_t *from_top(shmcoll_heap_arena_t *a, size_t need, size_t align) {
    char *start = a->base + a->top;
    const size_t lead = lead_of(start, align);
    if (a->fd < 0 || lead + need > a->reserve - a->top ||
        shmcoll_heap_arena_grow(a, a->top + lead + need) != 0)
        return NULL;
    size_t prev = a->last;
    if (lead) {
        block_t *l = make(a, start, lead, prev);
        bin_insert(l);
        prev = lead;
    }
    block_t *b = make(a, start + lead, need, prev);
    b->magic = MAGIC_USED;
    b->clean = 1; /* the wilderness is zero */
    a->top += lead + need;
    a->last = need;
    return b;
}

static block_t *alloc_locked(size_t need, size_t align) {
    block_t *b = from_bins(need, align);
    for (shmcoll_heap_arena_t *a = NULL; !b && (a = shmcoll_heap_arena_next(a));)
        b = from_top(a, need, align);
    if (!b) {
        shmcoll_heap_arena_t *a = shmcoll_heap_arena_create(need + align + MIN_BLOCK);
        if (a) b = from_top(a, need, align);
    }
    if (!b) return NULL;
    b->arena->blocks++;
    counters.allocs++;
    counters.live_blocks++;
    counters.live_bytes += b->size;
    if (counters.live_bytes > counters.peak_bytes) counters.peak_bytes = counters.live_bytes;
    return b;
}

/* Free span [b] returns to the arena: merged with free neighbours, then into a bin, or into the
 * wilderness when it ends at the top; whole pages go back to the system. */
static void release_span(block_t *b) {
    shmcoll_heap_arena_t *a = b->arena;
    b->magic = 0; /* no longer a live block: a second free of it is caught */
    block_t *n = after(b);
    if (n && n->magic == MAGIC_FREE) {
        bin_remove(n);
        n->magic = 0;
        b->size += n->size;
    }
    block_t *p = before(b);
    if (p && p->magic == MAGIC_FREE) {
        bin_remove(p);
        p->size += b->size;
        b = p;
    }
    const size_t at = offset_of(b);
    if (at + b->size == a->top) {
        const size_t old_top = a->top;
        a->top = at;
        a->last = b->prev_size;
        /* The wilderness stays zero: clear the partial page the release leaves, drop the rest. */
        const size_t page_end = round_up(at, PAGE) < old_top ? round_up(at, PAGE) : old_top;
        memset(a->base + at, 0, page_end - at);
        shmcoll_heap_arena_release(a, at, a->size);
        return;
    }
    b->clean = 0;
    link_after(b);
    bin_insert(b);
    if (b->size >= TRIM_MIN) shmcoll_heap_arena_release(a, at + HDR, at + b->size);
}

static void trim_tail(block_t *b, size_t need) {
    if (b->size < need + MIN_BLOCK) return;
    block_t *tail = make(b->arena, (char *)b + need, b->size - need, need);
    b->size = need;
    link_after(tail);
    release_span(tail);
}

/* Drops an empty arena, unless it is the only one: that one keeps its address space and its
 * (emptied) file for the next allocation. */
static void maybe_destroy(shmcoll_heap_arena_t *a) {
    if (a->blocks) return;
    const int alone = shmcoll_heap_arena_next(NULL) == a && !shmcoll_heap_arena_next(a);
    if (!alone || a->fd < 0) shmcoll_heap_arena_destroy(a);
}

/* The header of a live block at `p`, or NULL (the caller holds the lock). */
static block_t *block_of(const void *p) {
    const char *at = (const char *)p - HDR;
    shmcoll_heap_arena_t *a = shmcoll_heap_arena_at(at);
    if (!a || at < a->base || (size_t)(at - a->base) >= a->top || (uintptr_t)p % HDR) return NULL;
    block_t *b = (block_t *)(void *)at;
    return b->magic == MAGIC_USED && b->arena == a ? b : NULL;
}

static void invalid(const char *what, const void *p) {
    shmcoll_log_error("%s(%p): not a live block of the shared heap (freed twice, or never "
                      "allocated)",
                      what, p);
    abort();
}

static size_t need_of(size_t bytes) {
    return round_up(bytes ? bytes : 1, HDR) + HDR;
}

void *shmcoll_heap_alloc(size_t bytes, size_t align) {
    if (align < HDR) align = HDR;
    if (bytes > SIZE_MAX / 4 || align > SIZE_MAX / 4 || (align & (align - 1))) return NULL;
    shmcoll_heap_lock();
    block_t *b = alloc_locked(need_of(bytes), align);
    shmcoll_heap_unlock();
    return b ? (char *)b + HDR : NULL;
}

void *shmcoll_heap_calloc(size_t count, size_t size) {
    if (size && count > SIZE_MAX / size) return NULL;
    const size_t bytes = count * size;
    shmcoll_heap_lock();
    block_t *b = alloc_locked(need_of(bytes), HDR);
    const int clean = b && b->clean;
    shmcoll_heap_unlock();
    if (!b) return NULL;
    if (!clean) memset((char *)b + HDR, 0, bytes);
    return (char *)b + HDR;
}

int shmcoll_heap_owns(const void *p) {
    return shmcoll_heap_in_region(p);
}

/* Takes the lock and finds the live block at `p`, or ends the process naming `what`. */
static block_t *lock_block(const void *p, const char *what) {
    shmcoll_heap_lock();
    block_t *b = block_of(p);
    if (!b) {
        shmcoll_heap_unlock();
        invalid(what, p);
    }
    return b;
}

/* Frees the live block `b` (the lock held). */
static void free_locked(block_t *b) {
    shmcoll_heap_arena_t *a = b->arena;
    counters.frees++;
    counters.live_blocks--;
    counters.live_bytes -= b->size;
    a->blocks--;
    release_span(b);
    maybe_destroy(a);
}

void shmcoll_heap_free(void *p) {
    free_locked(lock_block(p, "free"));
    shmcoll_heap_unlock();
}

size_t shmcoll_heap_usable(const void *p) {
    const size_t usable = lock_block(p, "malloc_usable_size")->size - HDR;
    shmcoll_heap_unlock();
    return usable;
}

/* Grows `b` in place to `need` bytes: into a free block after it, or into the wilderness. */
static int grow_in_place(block_t *b, size_t need) {
    shmcoll_heap_arena_t *a = b->arena;
    block_t *n = after(b);
    if (n && n->magic == MAGIC_FREE && b->size + n->size >= need) {
        bin_remove(n);
        n->magic = 0;
        b->size += n->size;
        link_after(b);
        trim_tail(b, need);
        return 1;
    }
    const size_t at = offset_of(b);
    if (!n && at + need <= a->reserve && shmcoll_heap_arena_grow(a, at + need) == 0) {
        a->top = at + need;
        a->last = need;
        b->size = need;
        return 1;
    }
    return 0;
}

void *shmcoll_heap_realloc(void *p, size_t bytes) {
    if (bytes > SIZE_MAX / 4) return NULL;
    const size_t need = need_of(bytes);
    block_t *b = lock_block(p, "realloc");
    const size_t old = b->size;
    if (need <= old) {
        trim_tail(b, need);
    } else if (!grow_in_place(b, need)) {
        block_t *moved = alloc_locked(need, HDR);
        shmcoll_heap_unlock();
        if (!moved) return NULL;
        /* The old block stays the caller's until freed: copied without the lock. */
        memcpy((char *)moved + HDR, p, old - HDR);
        shmcoll_heap_lock();
        free_locked(b);
        shmcoll_heap_unlock();
        return (char *)moved + HDR;
    }
    counters.live_bytes += b->size - old;
    if (counters.live_bytes > counters.peak_bytes) counters.peak_bytes = counters.live_bytes;
    shmcoll_heap_unlock();
    return p;
}

void shmcoll_heap_ref(const void *p, shmcoll_heap_ref_t *ref) {
    *ref = (shmcoll_heap_ref_t){0};
    if (!p || !shmcoll_heap_in_region(p)) return;
    shmcoll_heap_lock();
    const shmcoll_heap_arena_t *a = shmcoll_heap_arena_at(p);
    const size_t at = a ? (size_t)((const char *)p - a->base) : 0;
    if (a && a->fd >= 0 && (const char *)p >= a->base && at < a->top)
        *ref = (shmcoll_heap_ref_t){.nonce = shmcoll_heap_nonce(),
                                    .arena = a->id,
                                    .fd = a->fd,
                                    .offset = at,
                                    .limit = a->top - at};
    shmcoll_heap_unlock();
}

void shmcoll_heap_alloc_stats(shmcoll_heap_alloc_stats_t *out) {
    shmcoll_heap_lock();
    *out = counters;
    shmcoll_heap_unlock();
}
