/* The step protocol (shm/channel.h) and bounded waits (shm/wait.h), below any collective:
 *  - rotating single writers stream patterned data through every kind of slot (both parities of
 *    the buffer, the post blocks' payloads, the eager slots, chosen step by step) while readers
 *    verify every byte; each writer keeps the pen for stretches of steps, so it runs as far ahead
 *    as its claims let it: a writer that reused a slot before all readers were done would be
 *    caught; again
 *    with every wait sleeping at once (shm/sleep.h: every post and ack wakes), where a lost
 *    wake-up would cost a sleep slice, never a hang;
 *  - a waiter that sleeps is woken by the writer and uses far less CPU than the time it waited
 *    (a polling wait uses whatever CPU it gets);
 *  - a wait for a flag nobody writes times out with a message naming the peer and operation;
 *  - a wait for a dead process fails fast as PEER_DEAD, even when it is an unreaped zombie. */
#include "check.h"
#include "core/team.h"
#include "shm/channel.h"
#include "shm/sleep.h"
#include "shm/wait.h"
#include "team_harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STEPS 4000

static uint8_t pattern(uint64_t step, size_t i) {
    return (uint8_t)(step * 131 + i * 7);
}

/* Member r's slot of kind `slot` in step s. */
static uint8_t *slot_of(const shmcoll_channel_t *ch, int r, uint64_t s, shmcoll_slot_t slot) {
    return slot == SHMCOLL_SLOT_INLINE  ? shmcoll_channel_inline(ch, r, s)
           : slot == SHMCOLL_SLOT_EAGER ? shmcoll_channel_eager(ch, r, s)
                                        : shmcoll_channel_buffer(ch, r, s);
}

/* Writer of step s is member (s / 40) % p (stretches of 40 steps, longer than every slot ring);
 * it fills `len` bytes of the step's slot kind, readers check them (a claim of the eager slots
 * that waited for one step too few failed every run). `arg` non-NULL: every wait
 * sleeps at once. */
static int stream_body(shmcoll_team_t *team, void *arg) {
    shmcoll_channel_t *ch = &team->lanes[0].channel;
    if (arg) shmcoll_channel_set_sleep(ch, 0);
    const int p = ch->size, me = ch->rank;
    unsigned seed = (unsigned)(me * 7919 + 1);
    for (int k = 0; k < STEPS; k++) {
        uint64_t s = shmcoll_channel_next_step(ch);
        int writer = (int)(s / 40 % (uint64_t)p);
        const uint64_t h = s * 2654435761u;
        /* a kind for 20 steps, mostly: a writer runs ahead only as far as all its claims let it */
        const shmcoll_slot_t slot = (shmcoll_slot_t)((s / 20 + (h >> 16) % 8 / 7) % 3);
        const size_t most = slot == SHMCOLL_SLOT_INLINE  ? SHMCOLL_POST_PAYLOAD_BYTES
                            : slot == SHMCOLL_SLOT_EAGER ? ch->eager
                                                         : ch->chunk;
        size_t len = 1 + (size_t)(h % most);
        if (rand_r(&seed) % 8 == 0) usleep(rand_r(&seed) % 50);
        if (me == writer) {
            if (shmcoll_channel_claim_slot(ch, s, slot) != SHMCOLL_OK) return 1;
            uint8_t *buf = slot_of(ch, me, s, slot);
            for (size_t i = 0; i < len; i++) buf[i] = pattern(s, i);
            shmcoll_channel_post(ch, s);
        } else {
            if (shmcoll_channel_wait_post(ch, writer, s) != SHMCOLL_OK) return 1;
            const uint8_t *buf = slot_of(ch, writer, s, slot);
            for (size_t i = 0; i < len; i++) {
                if (buf[i] != pattern(s, i)) {
                    team_harness_log("step %llu byte %zu: got %u want %u (slot reused too early)",
                                     (unsigned long long)s, i, buf[i], pattern(s, i));
                    return 1;
                }
            }
        }
        shmcoll_channel_ack(ch, s);
    }
    return 0;
}

/* Mailboxes: every member posts rounds 1..MAIL_ROUNDS in every box (values made of its rank, the
 * box and the round) and takes each box's sums after posting the round in every box, with random
 * pauses; every sum is checked, so a block rewritten before a slow member read it (or read before
 * it was posted) would be caught. */
#define MAIL_ROUNDS 2000

static uint64_t mail_value(int rank, int box, uint64_t round, int i) {
    return (uint64_t)rank * 1000003u + (uint64_t)box * 7919u + round * 31u + (uint64_t)i;
}

static int mail_body(shmcoll_team_t *team, void *arg) {
    (void)arg;
    shmcoll_channel_t *ch = &team->lanes[0].channel;
    const int p = ch->size, me = ch->rank;
    unsigned seed = (unsigned)(me * 104729 + 3);
    for (uint64_t n = 1; n <= MAIL_ROUNDS; n++) {
        for (int b = 0; b < SHMCOLL_MAIL_BOXES; b++) {
            uint64_t mine[SHMCOLL_MAIL_VALUES];
            for (int i = 0; i < SHMCOLL_MAIL_VALUES; i++) mine[i] = mail_value(me, b, n, i);
            shmcoll_channel_mail_post(ch, b, n, mine);
        }
        if (rand_r(&seed) % 8 == 0) usleep(rand_r(&seed) % 50);
        for (int b = 0; b < SHMCOLL_MAIL_BOXES; b++) {
            uint64_t sums[SHMCOLL_MAIL_VALUES];
            if (shmcoll_channel_mail_sum(ch, b, n, sums, &ch->waiter) != SHMCOLL_OK) return 1;
            for (int i = 0; i < SHMCOLL_MAIL_VALUES; i++) {
                uint64_t want = 0;
                for (int r = 0; r < p; r++) want += mail_value(r, b, n, i);
                if (sums[i] != want) {
                    team_harness_log("box %d round %llu value %d: sum %llu, want %llu", b,
                                     (unsigned long long)n, i, (unsigned long long)sums[i],
                                     (unsigned long long)want);
                    return 1;
                }
            }
        }
    }
    return 0;
}

typedef struct shared {
    _Alignas(SHMCOLL_FLAG_ALIGN) shmcoll_flag_t flag;
    shmcoll_sleep_block_t sleepers;
} shared_t;

static double cpu_seconds(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static void check_sleeper(void) {
    shared_t *sh =
        mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(sh != MAP_FAILED, "shared mapping");
    if (sh == MAP_FAILED) return;
    memset(sh, 0, sizeof *sh);
    pid_t child = fork();
    if (child == 0) {
        char error[256] = "";
        const pid_t pids[1] = {getppid()};
        shmcoll_waiter_t waiter = {.timeout = 30,
                                   .pids = pids,
                                   .op = "test",
                                   .error = error,
                                   .error_len = sizeof error,
                                   .sleep_after = 0,
                                   .sleepers = &sh->sleepers};
        const double cpu0 = cpu_seconds();
        const shmcoll_status_t st = shmcoll_shm_wait_geq(&sh->flag, 1, 0, &waiter);
        const double cpu = cpu_seconds() - cpu0;
        if (st != SHMCOLL_OK) fprintf(stderr, "sleeping wait: %s\n", error);
        if (cpu > 0.06) fprintf(stderr, "sleeping wait used %.3f s of CPU in 0.3 s\n", cpu);
        _exit(st == SHMCOLL_OK && cpu <= 0.06 ? 0 : 1);
    }
    usleep(300 * 1000);
    shmcoll_flag_store(&sh->flag, 1);
    shmcoll_shm_wake(&sh->flag, &sh->sleepers);
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "a waiter that sleeps is woken and uses little CPU (status %d)", status);
    CHECK(atomic_load(&sh->sleepers.sleepers) == 0, "no sleeper left counted");
    munmap(sh, sizeof *sh);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void check_waits(void) {
    char error[256] = "";
    shmcoll_flag_t flag = 5;
    pid_t pids[2] = {getpid(), getpid()};
    shmcoll_waiter_t waiter = {.timeout = 0.3,
                               .spin = 100e-6,
                               .pids = pids,
                               .op = "testop",
                               .error = error,
                               .error_len = sizeof error};
    CHECK(shmcoll_shm_wait_geq(&flag, 5, 1, &waiter) == SHMCOLL_OK, "satisfied wait returns");
    double t0 = now();
    shmcoll_status_t st = shmcoll_shm_wait_geq(&flag, 6, 1, &waiter);
    double dt = now() - t0;
    CHECK(st == SHMCOLL_ERR_TIMEOUT, "unsatisfied wait times out, got %d", st);
    CHECK(dt >= 0.3 && dt < 3, "timeout after about 0.3 s, took %.2f s", dt);
    CHECK(strstr(error, "rank 1") && strstr(error, "testop"), "message names peer and op: %s",
          error);

    /* A child that exits and stays an unreaped zombie is dead to the liveness check. */
    pid_t child = fork();
    if (child == 0) _exit(0);
    usleep(100 * 1000);
    CHECK(!shmcoll_shm_process_alive(child), "a zombie is not alive");
    pids[1] = child;
    waiter.timeout = 30;
    waiter.spin = 1000; /* seconds asked for: a wait spins 50 ms at most, then checks its peer */
    error[0] = '\0';
    t0 = now();
    st = shmcoll_shm_wait_geq(&flag, 6, 1, &waiter);
    dt = now() - t0;
    CHECK(st == SHMCOLL_ERR_PEER_DEAD, "wait on a dead peer fails, got %d", st);
    CHECK(dt < 2, "dead peer detected within 2 s, took %.2f s", dt);
    CHECK(strstr(error, "rank 1") && strstr(error, "died"), "message: %s", error);
    waitpid(child, NULL, 0);
    CHECK(!shmcoll_shm_process_alive(child), "a reaped process is not alive");
    CHECK(shmcoll_shm_process_alive(getpid()), "this process is alive");
}

int main(void) {
    check_waits();
    check_sleeper();
    static const int sizes[] = {2, 3, 5};
    static int sleeping = 1;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        CHECK(team_harness_run(sizes[i], stream_body, NULL, 120) == 0,
              "streaming %d steps through p=%d members", STEPS, sizes[i]);
        CHECK(team_harness_run(sizes[i], stream_body, &sleeping, 120) == 0,
              "streaming %d steps through p=%d sleeping members", STEPS, sizes[i]);
        CHECK(team_harness_run(sizes[i], mail_body, NULL, 120) == 0,
              "%d rounds of mail in %d boxes through p=%d members", MAIL_ROUNDS, SHMCOLL_MAIL_BOXES,
              sizes[i]);
    }
    if (check_failures()) {
        fprintf(stderr, "channel: %ld failures\n", check_failures());
        return 1;
    }
    printf("channel: all checks passed\n");
    return 0;
}
