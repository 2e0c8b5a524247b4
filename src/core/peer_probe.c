/* Probes of peer processes, each answer kept per peer (see peer_probe.h). */
#include "core/peer_probe.h"
#include "heap/pidfd.h"
#include "shm/cma.h"
#include "shm/segment.h"

#include <pthread.h>

#define KEPT 64 /* peers whose answers are kept; beyond, the oldest is probed again */

typedef struct answers {
    pid_t pid;
    uint64_t token;
    int8_t cma, heap; /* 1 yes, 0 no, -1 not asked yet */
} answers_t;

static answers_t kept[KEPT];
static int next_place;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t token_once = PTHREAD_ONCE_INIT;
static uint64_t token;

static void token_make(void) {
    uint64_t bits[2] = {0, 0};
    if (shmcoll_shm_segment_random(bits) != SHMCOLL_OK) bits[0] = 0;
    token = bits[0] | 1; /* 0 marks a place never used */
}

uint64_t shmcoll_peer_token(void) {
    pthread_once(&token_once, token_make);
    return token;
}

/* The peer's answers, a fresh place (nothing asked) when it has none yet. Under the lock. */
static answers_t *answers_of(pid_t pid, uint64_t peer_token) {
    for (int i = 0; i < KEPT; i++)
        if (kept[i].token == peer_token && kept[i].pid == pid) return &kept[i];
    answers_t *a = &kept[next_place];
    next_place = (next_place + 1) % KEPT;
    *a = (answers_t){.pid = pid, .token = peer_token, .cma = -1, .heap = -1};
    return a;
}

/* The kept answer (heap: the heap probe's, else cross-memory attach's), or -1 when not asked yet.
 */
static int recall(pid_t pid, uint64_t peer_token, int heap) {
    pthread_mutex_lock(&lock);
    const answers_t *a = answers_of(pid, peer_token);
    const int answer = heap ? a->heap : a->cma;
    pthread_mutex_unlock(&lock);
    return answer;
}

static void remember(pid_t pid, uint64_t peer_token, int heap, int answer) {
    pthread_mutex_lock(&lock);
    answers_t *a = answers_of(pid, peer_token);
    if (heap)
        a->heap = (int8_t)answer;
    else
        a->cma = (int8_t)answer;
    pthread_mutex_unlock(&lock);
}

int shmcoll_peer_probe_cma(pid_t pid, uint64_t peer_token, uintptr_t remote, uint64_t expected) {
    int answer = recall(pid, peer_token, 0);
    if (answer < 0) {
        answer = shmcoll_cma_probe(pid, remote, expected);
        remember(pid, peer_token, 0, answer);
    }
    return answer;
}

int shmcoll_peer_probe_heap(pid_t pid, uint64_t peer_token, int fd, uint64_t inode) {
    if (fd < 0) return 0; /* the peer has no heap now: nothing to remember */
    int answer = recall(pid, peer_token, 1);
    if (answer < 0) {
        answer = shmcoll_heap_pidfd_probe(pid, fd, inode);
        remember(pid, peer_token, 1, answer);
    }
    return answer;
}
