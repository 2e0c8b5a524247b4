/* Segment lifecycle: create/attach/unlink leave no file behind, names are unpredictable and never
 * reused, a failed reservation (no space) is a clean error with nothing left, and a segment of
 * the wrong size is refused at attach. */
#include "check.h"
#include "shm/segment.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int count_files(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.') n++;
    if (d) closedir(d);
    return n;
}

int main(void) {
    char dir[] = "/dev/shm/shmcolltest-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char error[256];
    shmcoll_segment_t a, b, c;
    char path[SHMCOLL_SEGMENT_PATH_MAX], path2[SHMCOLL_SEGMENT_PATH_MAX];
    uint64_t bits[2];
#define NEW_PATH(p)                                                                                \
    do {                                                                                           \
        CHECK(shmcoll_shm_segment_random(bits) == SHMCOLL_OK, "random bits");                      \
        CHECK(shmcoll_shm_segment_path(p, sizeof p, dir, bits), "path fits");                      \
    } while (0)

    NEW_PATH(path);
    CHECK(shmcoll_shm_segment_create(path, 1 << 20, &a, error, sizeof error) == SHMCOLL_OK, "%s",
          error);
    CHECK(shmcoll_shm_segment_create(path, 4096, &b, error, sizeof error) == SHMCOLL_ERR_SYSTEM,
          "O_EXCL: an existing name is never reused");
    CHECK(count_files(dir) == 1, "created segment is visible until unlinked");
    CHECK(strstr(a.path, SHMCOLL_SEGMENT_PREFIX) != NULL, "name has the prefix: %s", a.path);
    CHECK(shmcoll_shm_segment_attach(a.path, 1 << 20, &b, error, sizeof error) == SHMCOLL_OK, "%s",
          error);
    CHECK(shmcoll_shm_segment_attach(a.path, 4096, &c, error, sizeof error) != SHMCOLL_OK,
          "attach with the wrong size must fail");
    ((volatile char *)a.base)[12345] = 42;
    CHECK(((volatile char *)b.base)[12345] == 42, "both mappings share memory");
    shmcoll_shm_segment_unlink(&a);
    CHECK(count_files(dir) == 0, "no file after unlink (both still attached)");
    ((volatile char *)b.base)[(1 << 20) - 1] = 1; /* still mapped and backed: no SIGBUS */
    shmcoll_shm_segment_detach(&b);
    shmcoll_shm_segment_detach(&a);

    /* Two segments never share a name. */
    NEW_PATH(path);
    NEW_PATH(path2);
    CHECK(strcmp(path, path2) != 0, "random names differ");
    CHECK(shmcoll_shm_segment_create(path, 4096, &a, error, sizeof error) == SHMCOLL_OK, "%s",
          error);
    CHECK(shmcoll_shm_segment_create(path2, 4096, &b, error, sizeof error) == SHMCOLL_OK, "%s",
          error);
    shmcoll_shm_segment_detach(&a);
    shmcoll_shm_segment_detach(&b);
    CHECK(count_files(dir) == 0, "detach of the creator unlinks");

    /* Reservation failure: far more than the machine has. Clean error, nothing left. */
    NEW_PATH(path);
    shmcoll_status_t st =
        shmcoll_shm_segment_create(path, (size_t)1 << 50, &a, error, sizeof error);
    CHECK(st == SHMCOLL_ERR_NO_SPACE, "1 PiB reservation gives NO_SPACE, got %d (%s)", st, error);
    CHECK(strstr(error, dir) != NULL, "the error names the directory: %s", error);
    CHECK(count_files(dir) == 0, "nothing left after a failed reservation");

    /* A directory that does not exist. */
    st = shmcoll_shm_segment_create("/nonexistent-shmcoll-dir/shmcoll-x", 4096, &a, error,
                                    sizeof error);
    CHECK(st == SHMCOLL_ERR_SYSTEM && strstr(error, "/nonexistent-shmcoll-dir"),
          "missing directory is a named error: %s", error);

    rmdir(dir);
    if (check_failures()) {
        fprintf(stderr, "segment: %ld failures\n", check_failures());
        return 1;
    }
    printf("segment: all checks passed\n");
    return 0;
}
