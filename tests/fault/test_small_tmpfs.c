/* A segment directory with little or no room: a 1 MiB tmpfs mounted for the test (root only)
 * and named by SHMCOLL_SHM_DIR. A full or small /dev/shm is the classic SIGBUS of shared-memory
 * collectives; shmcoll reserves its space up front and must either work in the room there is or
 * fail cleanly and together. p = 4:
 *   1. the empty 1 MiB tmpfs: team creation either succeeds (with smaller chunks) — and then a
 *      16 MiB allreduce of doubles must be correct — or returns SHMCOLL_ERR_NO_SPACE on every
 *      member (falling back is then the caller's job);
 *   2. the tmpfs with only ~40 KiB left: the same choice, with a 1 MiB allreduce;
 *   3. the tmpfs filled up completely: SHMCOLL_ERR_NO_SPACE on every member.
 * Never a SIGBUS or another crash, never a disagreement between members, never a wrong result,
 * and after each case no file but the test's own filler in the directory. */
#include "select/team_coll.h"
#include "coll_check.h"
#include "team_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#define P      4
#define FILLER "filler"

typedef struct shared {
    int status[P];   /* team creation status per member */
    size_t chunk[P]; /* chunk size of the team (when created) */
} shared_t;

typedef struct tcase {
    const char *name;
    long long leave_free; /* bytes the filler leaves free; -1: no filler */
    size_t count;         /* doubles in the allreduce when the team is created */
} tcase_t;

static int on_create_failed(int rank, int size, int status, void *arg) {
    shared_t *shared = team_harness_shared();
    shared->status[rank] = status;
    if (status != SHMCOLL_ERR_NO_SPACE) {
        team_harness_log("team creation returned %s; expected success or NO_SPACE",
                         shmcoll_status_string((shmcoll_status_t)status));
        return 1;
    }
    return 0;
}

static int body(shmcoll_team_t *team, void *arg) {
    const tcase_t *tc = arg;
    shared_t *shared = team_harness_shared();
    shared->status[team->rank] = SHMCOLL_OK;
    shared->chunk[team->rank] = team->chunk;
    coll_case_t c = {
        .dtype = SHMCOLL_DT_DOUBLE, .op = SHMCOLL_OP_SUM, .count = tc->count, .seed = 42};
    return coll_check_allreduce(team, &c);
}

/* Writes FILLER into dir until only `leave_free` bytes (rounded to pages) remain. */
static int fill(const char *dir, long long leave_free) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, FILLER);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    if (fd < 0) {
        printf("  cannot create %s: %s\n", path, strerror(errno));
        return 1;
    }
    static char page[4096];
    long long written = 0;
    while (write(fd, page, sizeof page) == (ssize_t)sizeof page) written += sizeof page;
    /* Now full: give back what should stay free. */
    long long keep = written - leave_free;
    int failed = ftruncate(fd, keep > 0 ? keep : 0) != 0;
    close(fd);
    return failed;
}

static int run_case(const char *dir, const tcase_t *tc) {
    if (tc->leave_free >= 0 && fill(dir, tc->leave_free)) return 1;
    char env_dir[600];
    snprintf(env_dir, sizeof env_dir, "SHMCOLL_SHM_DIR=%s", dir);
    const char *const env[] = {env_dir, NULL};
    static shared_t out;
    team_harness_child_t children[P];
    team_harness_spec_t spec = {.p = P,
                                .body = body,
                                .arg = (void *)tc,
                                .timeout_s = 60.0,
                                .env = env,
                                .segment_dir = dir,
                                .keep_file = tc->leave_free >= 0 ? FILLER : NULL,
                                .create_failed = on_create_failed,
                                .shared_bytes = sizeof(shared_t),
                                .shared_out = &out,
                                .children = children};
    double start = team_harness_now();
    int problems = team_harness_run_spec(&spec) != 0;
    for (int r = 1; r < P; r++)
        if (out.status[r] != out.status[0]) {
            printf("  rank 0 got %s but rank %d got %s\n",
                   shmcoll_status_string((shmcoll_status_t)out.status[0]), r,
                   shmcoll_status_string((shmcoll_status_t)out.status[r]));
            problems++;
        }
    if (tc->leave_free == 0 && out.status[0] != SHMCOLL_ERR_NO_SPACE) {
        printf("  a full directory gave %s instead of NO_SPACE\n",
               shmcoll_status_string((shmcoll_status_t)out.status[0]));
        problems++;
    }
    printf("test_small_tmpfs: %s: %s", tc->name,
           shmcoll_status_string((shmcoll_status_t)out.status[0]));
    if (out.status[0] == SHMCOLL_OK) printf(" with %zu-byte chunks", out.chunk[0]);
    printf(" on every rank: %s (%.2f s)\n", problems ? "FAILED" : "ok", team_harness_now() - start);
    if (tc->leave_free >= 0) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, FILLER);
        unlink(path);
    }
    if (team_harness_dir_leftovers(dir, NULL) != 0) problems++;
    return problems;
}

int main(void) {
    const tcase_t cases[] = {
        {"empty 1 MiB tmpfs, 16 MiB allreduce", -1, (size_t)2 << 20},
        {"1 MiB tmpfs with 40 KiB free, 1 MiB allreduce", 40 << 10, (size_t)128 << 10},
        {"full 1 MiB tmpfs", 0, 1000},
    };
    char dir[512];
    if (team_harness_dir_create(dir, sizeof dir)) return 1;
    if (mount("tmpfs", dir, "tmpfs", 0, "size=1m,mode=0700") != 0) {
        printf("test_small_tmpfs: cannot mount a 1 MiB tmpfs on %s: %s (the test needs root)\n",
               dir, strerror(errno));
        rmdir(dir);
        return 1;
    }
    int failures = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        failures += run_case(dir, &cases[i]);
    if (umount(dir) != 0) {
        printf("test_small_tmpfs: umount %s: %s\n", dir, strerror(errno));
        failures++;
    }
    if (rmdir(dir) != 0) {
        printf("test_small_tmpfs: rmdir %s: %s\n", dir, strerror(errno));
        failures++;
    }
    return failures != 0;
}
