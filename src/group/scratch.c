/* The compositions' scratch pool. See scratch.h. */
#include "group/scratch.h"
#include "base/config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/* Each buffer is preceded by a header of one cache line that records its size. */
#define HEADER 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *kept[SHMCOLL_SCRATCH_KEPT]; /* headers, the oldest freed first */
static int nkept;
static size_t kept_bytes;

static size_t size_of(void *header) {
    return *(size_t *)header;
}

/* Removes kept[i] (lock held). */
static void *take(int i) {
    void *header = kept[i];
    kept_bytes -= size_of(header);
    for (int j = i + 1; j < nkept; j++) kept[j - 1] = kept[j];
    nkept--;
    return header;
}

void *shmcoll_scratch_get(size_t bytes) {
    if (!bytes) bytes = 1;
    void *header = NULL;
    if (bytes >= SHMCOLL_SCRATCH_MIN) {
        pthread_mutex_lock(&lock);
        int best = -1;
        for (int i = 0; i < nkept; i++)
            if (size_of(kept[i]) >= bytes && (best < 0 || size_of(kept[i]) < size_of(kept[best])))
                best = i;
        if (best >= 0) header = take(best);
        pthread_mutex_unlock(&lock);
    }
    if (!header) {
        if (bytes > SIZE_MAX - HEADER || posix_memalign(&header, HEADER, HEADER + bytes))
            return NULL;
        *(size_t *)header = bytes;
    }
    return (char *)header + HEADER;
}

size_t shmcoll_scratch_keep(void) {
    return shmcoll_config()->scratch_keep;
}

void shmcoll_scratch_put(void *buf) {
    if (!buf) return;
    void *header = (char *)buf - HEADER;
    const size_t bytes = size_of(header), keep = shmcoll_scratch_keep();
    if (bytes < SHMCOLL_SCRATCH_MIN || bytes > keep) {
        free(header);
        return;
    }
    void *evicted[SHMCOLL_SCRATCH_KEPT + 1];
    int nevicted = 0;
    pthread_mutex_lock(&lock);
    while (nkept && (nkept == SHMCOLL_SCRATCH_KEPT || kept_bytes + bytes > keep))
        evicted[nevicted++] = take(0);
    kept[nkept++] = header;
    kept_bytes += bytes;
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < nevicted; i++) free(evicted[i]);
}

void shmcoll_scratch_release(void) {
    pthread_mutex_lock(&lock);
    while (nkept) free(take(0));
    pthread_mutex_unlock(&lock);
}
