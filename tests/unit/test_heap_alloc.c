/* The shared heap's allocator (heap/alloc.h) in one process: sizes from 1 byte to several arenas,
 * alignments up to 2 MiB, blocks that never overlap, reuse of freed blocks, growth into new
 * arenas (SHMCOLL_HEAP_ARENA=64M here, so a few hundred MiB span several), zeroed calloc after
 * reuse, realloc in place and across arenas, ownership (one comparison: foreign pointers are
 * not the heap's), buffer references for peers, memory and descriptors given back, fork (the
 * child gets a copy, not a shared view), invalid frees caught, and threads allocating at once. */
#include "check.h"
#include "base/config.h"
#include "heap/heap.h"
#include "proc_counts.h"

#include <stdint.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)

/* Bytes of pages the process holds in memory files (shared memory it owns): /proc/self/status
 * RssShmem, in KiB. */
static void fill(void *p, size_t n, unsigned seed) {
    unsigned char *c = p;
    for (size_t i = 0; i < n; i += 61) c[i] = (unsigned char)(seed + i / 61);
    if (n) c[n - 1] = (unsigned char)seed;
}

static int filled(const void *p, size_t n, unsigned seed) {
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i += 61)
        if (c[i] != (unsigned char)(seed + i / 61) && !(i == n - 1)) return 0;
    return !n || c[n - 1] == (unsigned char)seed;
}

static void test_sizes_and_alignment(void) {
    static const size_t sizes[] = {0, 1, 63, 64, 65, 4095, 4096, 100000, MIB, 10 * MIB, 100 * MIB};
    static const size_t aligns[] = {1, 64, 128, 4096, 2 * MIB};
    enum { N = sizeof sizes / sizeof sizes[0], A = sizeof aligns / sizeof aligns[0] };
    void *blocks[N][A];
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < A; j++) {
            void *p = blocks[i][j] = shmcoll_heap_alloc(sizes[i], aligns[j]);
            CHECK(p, "alloc %zu align %zu", sizes[i], aligns[j]);
            if (!p) continue;
            const size_t want = aligns[j] < 64 ? 64 : aligns[j];
            CHECK((uintptr_t)p % want == 0, "%p aligned to %zu", p, want);
            CHECK(shmcoll_heap_owns(p), "the heap owns its block");
            CHECK(shmcoll_heap_usable(p) >= sizes[i], "usable %zu >= %zu", shmcoll_heap_usable(p),
                  sizes[i]);
            fill(p, sizes[i], (unsigned)(i * A + j));
        }
    for (size_t i = 0; i < N; i++) /* no block overwrote another */
        for (size_t j = 0; j < A; j++)
            if (blocks[i][j])
                CHECK(filled(blocks[i][j], sizes[i], (unsigned)(i * A + j)), "block %zu/%zu intact",
                      sizes[i], aligns[j]);
    shmcoll_heap_arena_stats_t arenas;
    shmcoll_heap_arena_stats(&arenas);
    CHECK(arenas.live >= 3, "hundreds of MiB in 64 MiB arenas: %llu arenas",
          (unsigned long long)arenas.live);
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < A; j++) shmcoll_heap_free(blocks[i][j]);
}

static void test_reuse_and_calloc(void) {
    void *a = shmcoll_heap_alloc(300000, 64), *b = shmcoll_heap_alloc(300000, 64);
    memset(a, 0xff, 300000);
    shmcoll_heap_free(a);
    void *c = shmcoll_heap_alloc(300000, 64);
    CHECK(c == a, "a freed block is reused for the same size (%p, %p)", a, c);
    memset(c, 0xff, 300000);
    shmcoll_heap_free(c);
    unsigned char *z = shmcoll_heap_calloc(1000, 300);
    CHECK(z == a, "calloc reuses it too");
    size_t nonzero = 0;
    for (size_t i = 0; i < 300000; i++) nonzero += z[i] != 0;
    CHECK(nonzero == 0, "calloc of a reused block is zero (%zu bytes were not)", nonzero);
    CHECK(shmcoll_heap_calloc(SIZE_MAX / 2, 4) == NULL, "calloc overflow is NULL");
    shmcoll_heap_free(z);
    shmcoll_heap_free(b);
}

static void test_realloc(void) {
    char *p = shmcoll_heap_alloc(200000, 64);
    fill(p, 200000, 7);
    char *q = shmcoll_heap_realloc(p, 400000);
    CHECK(q == p, "realloc of the last block grows in place");
    CHECK(filled(q, 200000, 7), "contents kept");
    char *blocker = shmcoll_heap_alloc(1000, 64); /* now q cannot grow in place */
    fill(q, 400000, 8);
    char *r = shmcoll_heap_realloc(q, 150 * MIB); /* beyond a 64 MiB arena: another arena */
    CHECK(r && r != q, "realloc moves");
    CHECK(r && shmcoll_heap_arena_at(r) != shmcoll_heap_arena_at(blocker), "realloc across arenas");
    CHECK(r && filled(r, 400000, 8), "contents kept across arenas");
    char head[1000];
    memcpy(head, r, sizeof head);
    char *s = shmcoll_heap_realloc(r, 1000);
    CHECK(s == r && !memcmp(s, head, sizeof head), "shrinking stays in place");
    shmcoll_heap_free(s);
    shmcoll_heap_free(blocker);
}

static void test_ownership_and_refs(void) {
    char stack = 0;
    void *system = malloc(1 << 20);
    CHECK(!shmcoll_heap_owns(system), "the system allocator's memory is not the heap's");
    CHECK(!shmcoll_heap_owns(&stack) && !shmcoll_heap_owns(NULL), "stack and NULL are not");
    shmcoll_heap_ref_t ref;
    shmcoll_heap_ref(system, &ref);
    CHECK(ref.nonce == 0, "no reference for foreign memory");
    free(system);
    char *p = shmcoll_heap_alloc(5000, 64);
    shmcoll_heap_ref(p + 100, &ref);
    CHECK(ref.nonce == shmcoll_heap_nonce() && ref.arena && ref.fd >= 0, "a heap buffer's ref");
    shmcoll_heap_arena_t *a = shmcoll_heap_arena_at(p);
    CHECK(a && ref.offset == (uint64_t)(p + 100 - a->base), "offset in its arena");
    CHECK(ref.limit >= 4900, "limit covers the rest of the block: %llu",
          (unsigned long long)ref.limit);
    shmcoll_heap_free(p);
}

/* Everything freed: one empty arena kept, no page held, no descriptor beyond it. */
static void test_given_back(int fds_before) {
    shmcoll_heap_alloc_stats_t alloc;
    shmcoll_heap_arena_stats_t arenas;
    shmcoll_heap_alloc_stats(&alloc);
    shmcoll_heap_arena_stats(&arenas);
    CHECK(alloc.live_blocks == 0 && alloc.live_bytes == 0, "nothing live: %llu blocks",
          (unsigned long long)alloc.live_blocks);
    CHECK(arenas.live == 1, "one empty arena kept: %llu", (unsigned long long)arenas.live);
    CHECK(proc_open_fds() <= fds_before + 1, "descriptors: %d, before %d", proc_open_fds(),
          fds_before);
    CHECK(proc_rss_shmem_kib() < 1024, "pages given back: RssShmem %ld kB", proc_rss_shmem_kib());
}

/* fork: the child sees the heap as it was at fork, the parent's later writes never reach it,
 * and the child's writes never reach the parent. */
static void test_fork(void) {
    char *p = shmcoll_heap_alloc(3 * MIB, 64);
    memset(p, 'A', 3 * MIB);
    int go[2], done[2];
    if (pipe(go) || pipe(done)) return;
    pid_t child = fork();
    if (child == 0) {
        char c;
        if (read(go[0], &c, 1) != 1) _exit(2);
        int ok = p[0] == 'A' && p[3 * MIB - 1] == 'A';
        memset(p, 'B', 3 * MIB);
        char *more = shmcoll_heap_alloc(MIB, 64); /* the child's heap works */
        ok &= more != NULL && shmcoll_heap_owns(more);
        if (more) shmcoll_heap_free(more);
        if (write(done[1], "x", 1) != 1) _exit(2);
        _exit(ok ? 0 : 1);
    }
    memset(p, 'C', 3 * MIB); /* after fork, before the child looks */
    if (write(go[1], "x", 1) != 1) return;
    char c;
    CHECK(read(done[0], &c, 1) == 1, "child done");
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the child saw the heap as at fork and could allocate (status %d)", status);
    CHECK(p[0] == 'C' && p[3 * MIB - 1] == 'C', "the child's writes stay in the child");
    close(go[0]), close(go[1]), close(done[0]), close(done[1]);
    shmcoll_heap_free(p);
}

/* A pointer of the region that is not a live block ends the process (as free() does). */
static void test_invalid_free(void) {
    char *p = shmcoll_heap_alloc(1000, 64);
    for (int kind = 0; kind < 2; kind++) {
        pid_t child = fork();
        if (child == 0) {
            FILE *quiet = freopen("/dev/null", "w", stderr); /* the message is expected */
            (void)quiet;
            if (kind == 0)
                shmcoll_heap_free(p + 64);
            else
                shmcoll_heap_free(p), shmcoll_heap_free(p);
            _exit(0);
        }
        int status = 0;
        waitpid(child, &status, 0);
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "%s is caught (status %d)",
              kind ? "a double free" : "an interior pointer", status);
    }
    shmcoll_heap_free(p);
}

static void *thread_body(void *arg) {
    unsigned seed = (unsigned)(uintptr_t)arg;
    void *held[16] = {0};
    size_t sizes[16] = {0};
    for (int i = 0; i < 2000; i++) {
        const int k = (int)(rand_r(&seed) % 16);
        if (held[k]) {
            if (!filled(held[k], sizes[k], (unsigned)k)) return (void *)1;
            shmcoll_heap_free(held[k]);
            held[k] = NULL;
        } else {
            sizes[k] = 64 + rand_r(&seed) % (512 * 1024);
            held[k] = shmcoll_heap_alloc(sizes[k], 64);
            if (!held[k]) return (void *)1;
            fill(held[k], sizes[k], (unsigned)k);
        }
    }
    for (int k = 0; k < 16; k++)
        if (held[k]) shmcoll_heap_free(held[k]);
    return NULL;
}

static void test_threads(void) {
    pthread_t threads[4];
    for (int t = 0; t < 4; t++)
        pthread_create(&threads[t], NULL, thread_body, (void *)(uintptr_t)(t + 1));
    for (int t = 0; t < 4; t++) {
        void *result;
        pthread_join(threads[t], &result);
        CHECK(result == NULL, "thread %d: blocks intact, allocations served", t);
    }
}

int main(void) {
    setenv("SHMCOLL_HEAP_ARENA", "64M", 1);
    shmcoll_config_reload();
    const int fds = proc_open_fds();
    test_sizes_and_alignment();
    test_reuse_and_calloc();
    test_realloc();
    test_ownership_and_refs();
    test_threads();
    test_given_back(fds);
    test_fork();
    test_invalid_free();
    test_given_back(fds);
    printf("test_heap_alloc: %ld checks, %ld failed\n", check_total(), check_failures());
    return check_failures() != 0;
}
