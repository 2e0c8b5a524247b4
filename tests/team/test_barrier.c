/* Barrier over teams of forked processes, p in {1,2,3,4,5,7,8,13,16}.
 *
 * In round k every member sleeps a random short time (so arrival orders vary), records k in its
 * own word of the harness's shared memory and enters the barrier; after leaving it, it checks
 * that every member has recorded at least k. A member that leaves before all arrived sees a
 * smaller value. Nobody can be two rounds ahead of a slow member (that would need the slow member
 * to have passed barrier k+1), so the test also checks every word is at most k+1. Team sizes may
 * be given on the command line. Every registered barrier algorithm is run, forced through
 * SHMCOLL_TUNE; the hierarchical one on an injected 4-NUMA, 2-socket machine (SHMCOLL_TOPO), and
 * the test checks each call really took the forced algorithm. */
#include "select/team_coll.h"
#include "team_harness.h"
#include "test_data.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

static int body(shmcoll_team_t *team, void *arg) {
    const char *algo = arg;
    _Atomic long *arrived = team_harness_shared();
    const int p = team->size, me = team->rank;
    const long rounds = 200 / team_harness_scale_down();
    for (long k = 1; k <= rounds; k++) {
        uint64_t h = test_data_mix((uint64_t)k, (uint64_t)me, 9);
        if (h % 4 == 0) { /* a quarter of the members come late, by up to 0.5 ms */
            struct timespec nap = {0, (long)(h % 500000)};
            nanosleep(&nap, NULL);
        }
        atomic_store(&arrived[me], k);
        shmcoll_status_t status = shmcoll_barrier(team);
        if (status != SHMCOLL_OK) {
            team_harness_log("barrier %ld returned %s (%s)", k, shmcoll_status_string(status),
                             team->error);
            return 1;
        }
        if (p > 1 && strcmp(team->last_algo, algo)) {
            team_harness_log("barrier took %s, not the forced %s", team->last_algo, algo);
            return 1;
        }
        for (int r = 0; r < p; r++) {
            long seen = atomic_load(&arrived[r]);
            if (seen < k || seen > k + 1) {
                team_harness_log("after barrier %ld rank %d has recorded round %ld", k, r, seen);
                return 1;
            }
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    static const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 13, 16};
    static const char *const algos[] = {"flat", "root-first", "dissem", "knomial", "hier"};
    int count = argc > 1 ? argc - 1 : (int)NELEMS(sizes), failures = 0;
    for (size_t a = 0; a < NELEMS(algos); a++) {
        char tune[64];
        snprintf(tune, sizeof tune, "SHMCOLL_TUNE=barrier:@%s", algos[a]);
        const int hier = !strcmp(algos[a], "hier");
        /* The others run on the real (flat) machine: the list ends after the tuning. */
        const char *env[] = {tune, hier ? "SHMCOLL_TOPO=pack:2 numa:2 l3:1 core:4 pu:1" : NULL,
                             "SHMCOLL_MAP=linear", NULL};
        for (int i = 0; i < count; i++) {
            int p = argc > 1 ? atoi(argv[i + 1]) : sizes[i];
            if (hier && p < 5) continue; /* a hierarchy needs members on two NUMA nodes */
            team_harness_spec_t spec = {.p = p,
                                        .body = body,
                                        .arg = (void *)algos[a],
                                        .timeout_s = 120.0,
                                        .env = env,
                                        .shared_bytes = (size_t)p * sizeof(_Atomic long)};
            double start = team_harness_now();
            int failed = team_harness_run_spec(&spec);
            printf("test_barrier %s p=%d: %s (%.2f s)\n", algos[a], p, failed ? "FAILED" : "ok",
                   team_harness_now() - start);
            failures += failed != 0;
        }
    }
    return failures != 0;
}
