/* The cost model behind the selector: modelled microseconds = synchronisations x their latency
 * + bytes the busiest member loads and stores / its bandwidth, the bytes coming from each
 * algorithm's data-access volume (DAV, asserted in tests/unit/test_dav.c). The constants are
 * rough — what matters is where the curves cross — and SHMCOLL_TUNE or a tuning file written by
 * shmcoll-tune override the model where measurements disagree. */
#include "select/cost.h"

/* A flag hop between two running cores, and the same when waiters must yield their CPU. */
#define SYNC_US                0.3
#define SYNC_OVERSUBSCRIBED_US 5.0
/* Bytes one member loads plus stores per microsecond (about 8 GB/s). */
#define BYTES_PER_US 8000.0
/* process_vm_readv: fixed cost of a call, and bandwidth relative to a user-space copy. */
#define CMA_CALL_US    1.0
#define CMA_EFFICIENCY 0.4

double shmcoll_cost_sync(const shmcoll_select_team_t *team) {
    return team->oversubscribed ? SYNC_OVERSUBSCRIBED_US : SYNC_US;
}

double shmcoll_cost_bytes(double bytes) {
    return bytes / BYTES_PER_US;
}

double shmcoll_cost_cma(double bytes) {
    /* A system call, and the kernel's copy pins and maps the other process's pages one by one:
     * measured at 0.4-0.6 of the bandwidth of our AVX2 copy loop for buffers in memory. */
    return CMA_CALL_US + shmcoll_cost_bytes(2.0 * bytes) / CMA_EFFICIENCY;
}

double shmcoll_cost_chunks(size_t bytes, size_t chunk) {
    return chunk ? (double)((bytes + chunk - 1) / chunk) : 1.0;
}

double shmcoll_cost_sync_all(const shmcoll_select_team_t *team) {
    /* Waiting for every member reads p flag lines, which grows with the team. */
    return shmcoll_cost_sync(team) * (1.0 + team->size / 16.0);
}

double shmcoll_cost_source(double bytes, int readers) {
    /* Readers of one member's buffer share its cache or memory: about half a copy each. */
    return shmcoll_cost_bytes(0.5 * bytes * readers);
}

double shmcoll_cost_spread(int levels) {
    /* A topology-blind algorithm moves data across NUMA and socket boundaries freely. */
    return 1.0 + 0.25 * (levels - 1);
}
