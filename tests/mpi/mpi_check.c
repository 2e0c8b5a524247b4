/* Helpers shared by the MPI integration tests; see mpi_check.h. Uses PMPI_* for its own
 * communication so that it neither depends on nor disturbs what is being tested. */
#include "mpi_check.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int check_rank, check_size;
static _Atomic long failures;               /* CHECK may run in several threads */
static uint64_t tally[CHECK_COLL_COUNT][3]; /* calls, bytes, fallbacks */
static uint64_t handled_ops, fallback_ops;

static const char *const coll_names[CHECK_COLL_COUNT] = {
    "barrier",        "bcast",   "reduce",  "allreduce", "reduce_scatter_block",
    "reduce_scatter", "scan",    "exscan",  "allgather", "allgatherv",
    "gather",         "gatherv", "scatter", "scatterv",  "alltoall",
    "alltoallv"};

const char *check_coll_name(check_coll_t coll) {
    return coll < CHECK_COLL_COUNT ? coll_names[coll] : "?";
}

int check_fail(const char *file, int line, const char *fmt, ...) {
    if (failures++ < 20) {
        char text[512];
        va_list args;
        va_start(args, fmt);
        vsnprintf(text, sizeof text, fmt, args);
        va_end(args);
        fprintf(stderr, "FAIL rank %d %s:%d: %s\n", check_rank, file, line, text);
    }
    return 0;
}

uint32_t check_hash(int rank, size_t index, int salt) {
    uint64_t x = (uint64_t)(rank + 1) * 0x9E3779B97F4A7C15ull ^
                 (uint64_t)index * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)(salt + 7) * 0x165667B19E3779F9ull;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return (uint32_t)(x >> 16);
}

void *check_alloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) abort();
    return p;
}

void check_guard_set(void *end) {
    memset(end, 0xA5, CHECK_GUARD);
}

int check_guard_intact(const void *end) {
    const unsigned char *guard = end;
    for (int i = 0; i < CHECK_GUARD; i++)
        if (guard[i] != 0xA5) return 0;
    return 1;
}

int check_use_large(size_t k) {
#if MPI_VERSION >= 4
    return k % 2 == 1;
#else
    (void)k;
    return 0;
#endif
}

unsigned long long check_dav_on(MPI_Comm comm) {
    typedef int (*dav_fn)(MPI_Comm, unsigned long long *);
    static dav_fn dav;
    if (!dav) dav = (dav_fn)dlsym(RTLD_DEFAULT, "shmcoll_stats_dav");
    unsigned long long bytes = 0;
    if (CHECK(dav != NULL, "shmcoll_stats_dav is not exported")) dav(comm, &bytes);
    return bytes;
}

unsigned long long check_dav(void) {
    return check_dav_on(MPI_COMM_WORLD);
}

int check_same_ways(const char *ours, int calls) {
    char *all = check_alloc((size_t)calls * check_size);
    PMPI_Allgather(ours, calls, MPI_CHAR, all, calls, MPI_CHAR, MPI_COMM_WORLD);
    int took = 0;
    for (int i = 0; i < calls; i++) {
        took += ours[i] == 1;
        for (int r = 0; r < check_size; r++)
            if (!CHECK(all[(size_t)r * calls + i] == ours[i], "call %d: rank %d took another way",
                       i, r))
                i = calls;
    }
    free(all);
    return took;
}

int check_disabled(void) {
    const char *disabled = getenv("SHMCOLL_DISABLE");
    return disabled && !strcmp(disabled, "1");
}

static void check_started(void);

void check_init(int *argc, char ***argv) {
    MPI_Init(argc, argv);
    check_started();
}

int check_init_thread(int *argc, char ***argv, int required) {
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(argc, argv, required, &provided);
    check_started();
    return provided;
}

static void check_started(void) {
    PMPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &check_size);
    const char *expect = getenv("SHMCOLL_TEST_EXPECT_ACTIVE");
    if (expect && !strcmp(expect, "1")) check_interposed();
}

int check_interposed(void) {
    Dl_info info;
    void *symbol = dlsym(RTLD_DEFAULT, "MPI_Allreduce");
    int interposed =
        symbol && dladdr(symbol, &info) && info.dli_fname && strstr(info.dli_fname, "libshmcoll");
    CHECK(interposed, "MPI_Allreduce resolves to %s, not libshmcoll",
          symbol && dladdr(symbol, &info) ? info.dli_fname : "nothing");
    const int versioned =
        CHECK(dlsym(RTLD_DEFAULT, "shmcoll_version") != NULL, "shmcoll_version not found");
    return interposed && versioned;
}

/* The library's counting rule: rank 0 of an intracommunicator; for an intercommunicator the local
 * rank 0 whose MPI_COMM_WORLD rank is below the remote group's rank 0. */
static int counting_rank(MPI_Comm comm) {
    int rank, inter;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_test_inter(comm, &inter);
    if (rank != 0) return 0;
    if (!inter) return 1;
    MPI_Group remote, world;
    int zero = 0, remote_world;
    PMPI_Comm_remote_group(comm, &remote);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_translate_ranks(remote, 1, &zero, world, &remote_world);
    PMPI_Group_free(&remote);
    PMPI_Group_free(&world);
    return check_rank < remote_world;
}

void check_expect_bytes(check_coll_t coll, MPI_Comm comm, int handled, uint64_t bytes) {
    if (!counting_rank(comm)) return;
    tally[coll][0]++;
    tally[coll][1] += bytes;
    tally[coll][2] += !handled;
    if (handled)
        handled_ops++;
    else
        fallback_ops++;
}

void check_expect(check_coll_t coll, MPI_Comm comm, int handled, MPI_Count count,
                  MPI_Datatype datatype) {
    MPI_Count size = 0;
    if (count) PMPI_Type_size_x(datatype, &size);
    check_expect_bytes(coll, comm, handled, (uint64_t)(count * size));
}

void check_expect_share(check_coll_t coll, MPI_Comm comm, int handled, uint64_t share) {
    tally[coll][1] += share;
    check_expect_bytes(coll, comm, handled, 0);
}

static uint64_t heap_ops;
static int heap_tallied;

void check_expect_heap(MPI_Comm comm, int taken) {
    int rank;
    PMPI_Comm_rank(comm, &rank);
    heap_tallied = 1;
    if (rank == 0 && taken) heap_ops++;
}

int check_finish(const char *test_name) {
    long total_failures = 0, mine_failures = failures;
    uint64_t mine[3 + 3 * CHECK_COLL_COUNT], sum[3 + 3 * CHECK_COLL_COUNT];
    mine[0] = handled_ops;
    mine[1] = fallback_ops;
    mine[2] = heap_ops;
    memcpy(mine + 3, tally, sizeof tally);
    PMPI_Reduce(mine, sum, 3 + 3 * CHECK_COLL_COUNT, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Allreduce(&mine_failures, &total_failures, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (check_rank == 0) {
        printf("expect: handled=%llu fellback=%llu\n", (unsigned long long)sum[0],
               (unsigned long long)sum[1]);
        if (heap_tallied) printf("expect: heap calls=%llu\n", (unsigned long long)sum[2]);
        for (int coll = 0; coll < CHECK_COLL_COUNT; coll++) {
            const uint64_t *t = sum + 3 + 3 * coll;
            if (t[0])
                printf("expect: %s calls=%llu bytes=%llu pmpi=%llu\n", coll_names[coll],
                       (unsigned long long)t[0], (unsigned long long)t[1],
                       (unsigned long long)t[2]);
        }
        printf("%s %s: %ld failure(s) on %d ranks\n", total_failures ? "FAIL" : "PASS", test_name,
               total_failures, check_size);
        fflush(stdout);
    }
    MPI_Finalize();
    return total_failures ? 1 : 0;
}
