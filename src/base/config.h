/* The knob table: every tunable of shmcoll is one line here (name, environment variable, type,
 * default, documentation). Values are read from the environment once, on first use. */
#ifndef SHMCOLL_BASE_CONFIG_H
#define SHMCOLL_BASE_CONFIG_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* X(field, ENV_NAME, kind, scope, default-as-string, doc); kind is BOOL, INT, SIZE, SECONDS or
 * STRING. The scope says which ranks must hold the same value (mpi/agree.h): LOCAL (a choice of
 * this process alone, or one its team's setup reconciles), COMM (decides a communicator's path:
 * agreed when shmcoll sets a communicator up), JOB (decides whether and when communicators are
 * set up at all: agreed by the whole job in MPI_Init), RULES (compared as the tuning rules in
 * force, which a tuning file's fingerprint may switch off on some machines). */
#define SHMCOLL_KNOBS(X)                                                                           \
    X(disable, "SHMCOLL_DISABLE", BOOL, JOB, "0", "1: pass every call through to the MPI library") \
    X(stats, "SHMCOLL_STATS", BOOL, JOB, "0",                                                      \
      "1: rank 0 of MPI_COMM_WORLD prints call/byte/DAV counts at MPI_Finalize")                   \
    X(verbose, "SHMCOLL_VERBOSE", BOOL, LOCAL, "0",                                                \
      "1: log setup and every fallback with its reason")                                           \
    X(shm_dir, "SHMCOLL_SHM_DIR", STRING, LOCAL, "/dev/shm",                                       \
      "directory for shared segments (tmpfs)")                                                     \
    X(timeout, "SHMCOLL_TIMEOUT", SECONDS, LOCAL, "0",                                             \
      "seconds a rank waits for a live peer before failing with an error naming it; 0: as long "   \
      "as the peer lives, as the MPI library waits (a dead peer fails the wait within 50 ms)")     \
    X(chunk, "SHMCOLL_CHUNK", SIZE, LOCAL, "256k",                                                 \
      "bytes per pipeline chunk and per-rank slot (shrunk automatically to fit the directory)")    \
    X(lanes, "SHMCOLL_LANES", INT, COMM, "1",                                                      \
      "lanes per communicator: collectives that may be in flight at once with slots of their own") \
    X(colls_threshold, "SHMCOLL_COLLS_THRESHOLD", INT, JOB, "5",                                   \
      "a communicator gets shared memory at its Nth collective; the ones before go to the MPI "    \
      "library (1: from the first)")                                                               \
    X(shm_budget, "SHMCOLL_SHM_BUDGET", SIZE, LOCAL, "8M",                                         \
      "shared memory per process over all its communicators (its share of every segment and "      \
      "16 KiB per team): beyond it chunks shrink, then the MPI library serves")                    \
    X(keep_segments, "SHMCOLL_KEEP_SEGMENTS", INT, LOCAL, "4",                                     \
      "segments of freed communicators each process keeps mapped, within SHMCOLL_SHM_BUDGET, for " \
      "the next communicator of the same ranks, whose setup then maps nothing new (0: none)")      \
    X(check, "SHMCOLL_CHECK", BOOL, JOB, "0",                                                      \
      "1: every collective first checks that its arguments agree on all ranks; a difference "      \
      "aborts the job with an error naming the argument and two ranks")                            \
    X(sim_nodes, "SHMCOLL_SIM_NODES", STRING, COMM, "",                                            \
      "testing: split every communicator into N virtual nodes, ranks in blocks (N) or "            \
      "round-robin (N:cyclic), instead of the machine's nodes")                                    \
    X(net_leaders, "SHMCOLL_NET_LEADERS", INT, COMM, "0",                                          \
      "leaders per node that run network steps of collectives across nodes, each its share (0: "   \
      "two, or one where several nodes share a machine's CPUs)")                                   \
    X(net_split, "SHMCOLL_NET_SPLIT", SIZE, COMM, "64k",                                           \
      "allreduce across nodes from this size shares the data among the leaders (node "             \
      "reduce-scatter, one allreduce per leader, node allgather), pipelined in segments")          \
    X(net_segment, "SHMCOLL_NET_SEGMENT", SIZE, COMM, "1M",                                        \
      "bytes per segment of a pipelined collective across nodes: the node phases of one "          \
      "segment overlap the network step of the one before")                                        \
    X(net_alltoall_max, "SHMCOLL_NET_ALLTOALL_MAX", SIZE, COMM, "128k",                            \
      "alltoall across nodes gathers a node's blocks at its leader (one message per pair of "      \
      "nodes) up to this many bytes of the node's send side; larger calls go to the MPI library")  \
    X(scratch_keep, "SHMCOLL_SCRATCH_KEEP", SIZE, COMM, "64M",                                     \
      "across nodes: bytes of large scratch buffers each process keeps between calls (reused "     \
      "instead of faulted in again; larger calls use their own buffers or none)")                  \
    X(net_bounded, "SHMCOLL_NET_BOUNDED", BOOL, COMM, "0",                                         \
      "1: every network step is a non-blocking MPI call waited for at most SHMCOLL_TIMEOUT (a "    \
      "node that never joins fails the call with an error); 0: a step nothing overlaps is the "    \
      "MPI library's blocking collective, faster, and waits as long as the MPI library would")     \
    X(progress_thread, "SHMCOLL_PROGRESS_THREAD", BOOL, LOCAL, "0",                                \
      "1: a thread per process advances non-blocking and persistent collectives during "           \
      "computation (it never calls MPI)")                                                          \
    X(spin, "SHMCOLL_SPIN", INT, LOCAL, "1000",                                                    \
      "microseconds a waiting rank polls before it starts to yield, at most 50000 (0 when the "    \
      "node is oversubscribed)")                                                                   \
    X(sleep, "SHMCOLL_SLEEP", INT, LOCAL, "50",                                                    \
      "oversubscribed nodes: microseconds a waiting rank yields before it sleeps until woken "     \
      "(-1: never sleeps)")                                                                        \
    X(topo, "SHMCOLL_TOPO", STRING, LOCAL, "",                                                     \
      "topology: empty = this machine (hwloc), an hwloc synthetic description, or an XML file")    \
    X(map, "SHMCOLL_MAP", STRING, LOCAL, "",                                                       \
      "rank placement: empty = each rank's CPU binding, or linear, numa-rr, a PU list 0,8,...")    \
    X(hier_reduce, "SHMCOLL_HIER_REDUCE", STRING, COMM, "l3,numa,socket",                          \
      "topology levels (sensitivity list) of hierarchical reductions")                             \
    X(hier_bcast, "SHMCOLL_HIER_BCAST", STRING, COMM, "numa,socket",                               \
      "topology levels (sensitivity list) of hierarchical bcast and barrier")                      \
    X(tune, "SHMCOLL_TUNE", STRING, RULES, "",                                                     \
      "algorithm overrides, e.g. allreduce:0-4k:@flat,4k-:@ma;bcast:@pipeline")                    \
    X(tune_file, "SHMCOLL_TUNE_FILE", STRING, RULES, "",                                           \
      "file of overrides in the SHMCOLL_TUNE grammar (written by shmcoll-tune)")                   \
    X(calibrate, "SHMCOLL_CALIBRATE", INT, COMM, "16",                                             \
      "timed calls of each candidate before a collective's size band is settled on a "             \
      "communicator (from 1 MiB one block each, the trials spread when measured again): the "      \
      "node team's choice, the other ways of moving blocks, the MPI library's own; the fastest "   \
      "serves, measured again now and then (0: the node team's choice, unmeasured; none under "    \
      "SHMCOLL_TUNE or a tuning file)")                                                            \
    X(calibrate_margin, "SHMCOLL_CALIBRATE_MARGIN", INT, COMM, "2",                                \
      "percent by which the MPI library's own way must be faster than shmcoll's fastest to serve " \
      "a "                                                                                         \
      "size band (negative: it serves unless that much slower; -100000 makes it serve every "      \
      "measured band, for testing)")                                                               \
    X(calibrate_max, "SHMCOLL_CALIBRATE_MAX", SIZE, COMM, "1024G",                                 \
      "largest message whose size band is measured (above it the node team's choice serves)")      \
    X(isa, "SHMCOLL_ISA", STRING, LOCAL, "",                                                       \
      "cap the reduction kernels' ISA: scalar, avx2 or avx512")                                    \
    X(nt, "SHMCOLL_NT", STRING, LOCAL, "auto",                                                     \
      "non-temporal stores: auto (by working set and streaming cores), always, never")             \
    X(nt_min_cores, "SHMCOLL_NT_MIN_CORES", INT, LOCAL, "8",                                       \
      "auto streams when the team runs on at least this many cores per memory domain; with "       \
      "fewer, it takes the stores the process measured faster")                                    \
    X(cma, "SHMCOLL_CMA", STRING, LOCAL, "auto",                                                   \
      "single-copy transfers between ranks' own buffers (Linux cross-memory attach): auto = "      \
      "gather and scatter, where they spread the root's copies, allgather and alltoall, and "      \
      "bcast as a candidate the measurement weighs, from SHMCOLL_CMA_MIN; all = every "            \
      "data-movement collective; off")                                                             \
    X(cma_min, "SHMCOLL_CMA_MIN", SIZE, COMM, "32k",                                               \
      "smallest block that moves single-copy (below it, copy-in/copy-out through shared slots)")   \
    X(cma_max, "SHMCOLL_CMA_MAX", SIZE, COMM, "1024G",                                             \
      "largest block of allgather and alltoall that moves single-copy with SHMCOLL_CMA=auto "      \
      "(beyond it only the slot pipelines; by default none: measurement decides, calibrate.h)")    \
    X(heap, "SHMCOLL_HEAP", STRING, LOCAL, "alloc-mem",                                            \
      "shared heap that peers map (single copy without a kernel module): alloc-mem = the memory "  \
      "of MPI_Alloc_mem; malloc = also large malloc/calloc/realloc/aligned allocations; off")      \
    X(heap_threshold, "SHMCOLL_HEAP_THRESHOLD", SIZE, LOCAL, "128k",                               \
      "SHMCOLL_HEAP=malloc: smallest allocation served from the shared heap")                      \
    X(heap_min, "SHMCOLL_HEAP_MIN", SIZE, COMM, "128k",                                            \
      "smallest message for which a collective agrees whether every buffer is in a shared heap "   \
      "(then each block moves once)")                                                              \
    X(heap_chunks, "SHMCOLL_HEAP_CHUNKS", INT, COMM, "16",                                         \
      "bcast, reduce and allreduce agree on shared heaps only from this many pipeline chunks "     \
      "(on ordinary buffers the agreement step costs their pipelines about a chunk per call); "    \
      "0: from SHMCOLL_HEAP_MIN")                                                                  \
    X(heap_cache, "SHMCOLL_HEAP_CACHE", INT, LOCAL, "64",                                          \
      "peers' heap arenas a process keeps mapped (least recently used unmapped beyond); 0: "       \
      "never map, copy with cross-memory attach")                                                  \
    X(heap_arena, "SHMCOLL_HEAP_ARENA", SIZE, LOCAL, "1G",                                         \
      "address space each shared-heap arena reserves and grows its file inside")

/* The C type of a knob of each kind. */
#define SHMCOLL_KNOB_TYPE_BOOL    int
#define SHMCOLL_KNOB_TYPE_INT     long
#define SHMCOLL_KNOB_TYPE_SIZE    size_t
#define SHMCOLL_KNOB_TYPE_SECONDS double /* 0 in the environment: no limit, read as INFINITY */
#define SHMCOLL_KNOB_TYPE_STRING  const char *

/* Every knob's value: a field of the table's name, of its kind's type. */
typedef struct shmcoll_config {
#define SHMCOLL_KNOB_FIELD(field, env, kind, scope, deflt, doc) SHMCOLL_KNOB_TYPE_##kind field;
    SHMCOLL_KNOBS(SHMCOLL_KNOB_FIELD)
#undef SHMCOLL_KNOB_FIELD
} shmcoll_config_t;

/* The configuration, read from the environment on the first call. Asked a dozen times per
 * collective, so the loaded case is one load and no call (pthread_once through the PLT cost
 * some 80 instructions per small collective). */
extern shmcoll_config_t shmcoll_config_values;
extern atomic_int shmcoll_config_loaded;
const shmcoll_config_t *shmcoll_config_load(void);
static inline const shmcoll_config_t *shmcoll_config(void) {
    if (__builtin_expect(atomic_load_explicit(&shmcoll_config_loaded, memory_order_acquire), 1))
        return &shmcoll_config_values;
    return shmcoll_config_load();
}

/* Re-read the environment (tests change variables between cases). Not thread-safe. */
void shmcoll_config_reload(void);

/* Iterate the knob table for listings: returns 0 past the end. */
int shmcoll_config_knob(int index, const char **env, const char **deflt, const char **scope,
                        const char **doc);

/* The knobs of `scope` ("JOB", "COMM", ...: the table's scopes), in table order: their
 * environment names and a hash of each value, at most `max`; returns how many. */
int shmcoll_config_scope(const char *scope, const char **envs, uint64_t *hashes, int max);

/* FNV-1a over n bytes, continuing from `hash` (the knobs' value hashes are made of it); a new
 * hash starts from SHMCOLL_CONFIG_HASH_SEED, FNV-1a's offset basis. */
#define SHMCOLL_CONFIG_HASH_SEED 0xcbf29ce484222325ull
uint64_t shmcoll_config_hash(uint64_t hash, const void *bytes, size_t n);

/* Parse "64k", "2M", "1g", "4096" into bytes; returns -1 on a malformed string. */
long long shmcoll_config_parse_size(const char *text);

#endif
