/* The heap's mode and its counters. See heap.h. */
#include "heap/heap.h"
#include "base/config.h"
#include "base/log.h"

#include <stdatomic.h>
#include <string.h>

static shmcoll_heap_mode_t parse(const char *text) {
    if (!strcmp(text, "off")) return SHMCOLL_HEAP_OFF;
    if (!strcmp(text, "malloc")) return SHMCOLL_HEAP_MALLOC;
    if (strcmp(text, "alloc-mem"))
        shmcoll_log_warn("SHMCOLL_HEAP=%s is not off, alloc-mem or malloc; using alloc-mem", text);
    return SHMCOLL_HEAP_ALLOC_MEM;
}

/* Parsed once per value of the knob (tests read the environment again between cases). */
shmcoll_heap_mode_t shmcoll_heap_mode(void) {
    static _Atomic(const char *) parsed_text;
    static _Atomic int parsed_mode;
    const char *text = shmcoll_config()->heap;
    if (atomic_load_explicit(&parsed_text, memory_order_acquire) != text) {
        atomic_store_explicit(&parsed_mode, parse(text), memory_order_relaxed);
        atomic_store_explicit(&parsed_text, text, memory_order_release);
    }
    return (shmcoll_heap_mode_t)atomic_load_explicit(&parsed_mode, memory_order_relaxed);
}

void shmcoll_heap_stats(shmcoll_heap_stats_t *out) {
    shmcoll_heap_alloc_stats(&out->alloc);
    shmcoll_heap_arena_stats(&out->arenas);
    shmcoll_heap_peer_stats(&out->peers);
}
