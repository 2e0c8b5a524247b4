/* Fork-based team harness: see team_harness.h for what it guarantees.
 *
 * The bootstrap region is one anonymous MAP_SHARED mapping made before the fork. Its barrier is a
 * generation counter: each arriving child reads the generation, then increments the arrival
 * count; the last one resets the count and advances the generation, which releases the others.
 * (A read-modify-write here is fine: the harness is not what is being measured.) The allgather
 * goes through per-rank slots in rounds of SLOT_BYTES, two barriers per round: one after the
 * writes, one after the reads, so the next round cannot overwrite a slot still being read. */
#include "team_harness.h"

#include "base/config.h"
#include "base/log.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <sched.h>
#include <unistd.h>

#define SLOT_BYTES 4096

typedef struct bootstrap_region {
    _Atomic uint32_t arrived;
    char pad0[60];
    _Atomic uint32_t generation;
    char pad1[60];
    _Atomic int aborted; /* set by the parent when a child ended abnormally */
    int p;
    double deadline; /* CLOCK_MONOTONIC is system-wide, so one deadline serves every child */
    unsigned char slots[];
} bootstrap_region_t;

/* State of the current run; in a child it is that child's copy. */
static bootstrap_region_t *region;
static size_t region_bytes;
static void *shared_area;
static size_t shared_area_bytes;
static int my_rank = -1;
static int my_size;
static int allgather_index;
static int log_quiet;

/* For the parent's termination handler: the running children and the private directory. */
static volatile sig_atomic_t running_children_n;
static pid_t running_pids[TEAM_HARNESS_MAX_P];
static char running_dir[512];

double team_harness_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int team_harness_rank(void) {
    return my_rank;
}
int team_harness_size(void) {
    return my_size;
}
void *team_harness_shared(void) {
    return shared_area;
}

void team_harness_log_quiet(int quiet) {
    log_quiet = quiet;
}

void team_harness_log(const char *fmt, ...) {
    char text[1024];
    if (log_quiet) return;
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    if (my_rank >= 0)
        fprintf(stderr, "rank %d/%d: %s\n", my_rank, my_size, text);
    else
        fprintf(stderr, "harness: %s\n", text);
}

int team_harness_sanitized(void) {
#if defined(__SANITIZE_ADDRESS__)
    return 1;
#else
    return 0;
#endif
}

int team_harness_scale_down(void) {
    const char *text = getenv("SHMCOLL_TEST_SCALE");
    if (text && atoi(text) >= 1) return atoi(text);
    return team_harness_sanitized() ? 4 : 1;
}

/* Waits until the generation moves past `gen`: spins briefly, then yields, then sleeps in short
 * naps, since up to 64 children may share two cores with the process they wait for. */
static int wait_generation(uint32_t gen) {
    for (unsigned i = 0;; i++) {
        /* acquire: pairs with the release of the last arriver, so slot writes are visible. */
        if (atomic_load_explicit(&region->generation, memory_order_acquire) != gen) return 0;
        if (atomic_load_explicit(&region->aborted, memory_order_relaxed)) return -1;
        if ((i & 63) == 0 && team_harness_now() > region->deadline) return -1;
        if (i < 16) continue;
        if (i < 1000) {
            sched_yield();
        } else {
            struct timespec nap = {0, 50000};
            nanosleep(&nap, NULL);
        }
    }
}

int team_harness_barrier(void) {
    if (!region) return -1;
    if (region->p == 1) return 0;
    uint32_t gen = atomic_load_explicit(&region->generation, memory_order_acquire);
    /* acq_rel: the last arriver must see every other child's slot writes before it releases. */
    if (atomic_fetch_add_explicit(&region->arrived, 1, memory_order_acq_rel) ==
        (uint32_t)region->p - 1) {
        atomic_store_explicit(&region->arrived, 0, memory_order_relaxed);
        atomic_store_explicit(&region->generation, gen + 1, memory_order_release);
        return 0;
    }
    return wait_generation(gen);
}

int team_harness_allgather(const void *in, void *out, size_t bytes) {
    if (!region) return -1;
    if (bytes == 0) return team_harness_barrier();
    for (size_t offset = 0; offset < bytes; offset += SLOT_BYTES) {
        size_t n = bytes - offset < SLOT_BYTES ? bytes - offset : SLOT_BYTES;
        memcpy(region->slots + (size_t)my_rank * SLOT_BYTES, (const char *)in + offset, n);
        if (team_harness_barrier()) return -1;
        for (int r = 0; r < region->p; r++)
            memcpy((char *)out + (size_t)r * bytes + offset, region->slots + (size_t)r * SLOT_BYTES,
                   n);
        if (team_harness_barrier()) return -1;
    }
    return 0;
}

/* The bootstrap callback handed to shmcoll_team_create. */
static int bootstrap_allgather(void *ctx, const void *in, void *out, size_t bytes) {
    const team_harness_spec_t *spec = ctx;
    if (spec->allgather_hook) spec->allgather_hook(my_rank, allgather_index, spec->arg);
    allgather_index++;
    return team_harness_allgather(in, out, bytes);
}

static void apply_env(const char *const *env) {
    for (; env && *env; env++) {
        char name[256];
        const char *eq = strchr(*env, '=');
        if (!eq || (size_t)(eq - *env) >= sizeof name) continue;
        memcpy(name, *env, (size_t)(eq - *env));
        name[eq - *env] = '\0';
        setenv(name, eq + 1, 1);
    }
}

static void child_main(const team_harness_spec_t *spec, int rank, const char *dir, pid_t parent) {
    my_rank = rank;
    my_size = spec->p;
    allgather_index = 0;
    /* Die with the parent: a killed test must not leave children spinning until the deadline. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(99);
    shmcoll_log_set_rank(rank);
    setenv("SHMCOLL_SHM_DIR", dir, 1);
    /* No tuning file of the machine's: the tests choose their algorithms themselves. */
    setenv("SHMCOLL_TUNE_DIR", dir, 1);
    apply_env(spec->env);
    shmcoll_config_reload();

    shmcoll_bootstrap_t bootstrap = {
        .rank = rank, .size = spec->p, .allgather = bootstrap_allgather, .ctx = (void *)spec};
    shmcoll_team_t *team = NULL;
    shmcoll_status_t status = shmcoll_team_create(&bootstrap, &team);
    int code;
    if (status != SHMCOLL_OK) {
        if (spec->create_failed) {
            code = spec->create_failed(rank, spec->p, status, spec->arg);
        } else {
            team_harness_log("shmcoll_team_create failed: %s", shmcoll_status_string(status));
            code = 1;
        }
    } else if (team->rank != rank || team->size != spec->p) {
        team_harness_log("team has rank %d size %d, expected %d/%d", team->rank, team->size, rank,
                         spec->p);
        code = 1;
        shmcoll_team_destroy(team);
    } else {
        code = spec->body(team, spec->arg);
        shmcoll_team_destroy(team);
    }
    fflush(stdout);
    fflush(stderr);
    _exit(code == 0 ? 0 : (code & 0xff) ? code & 0xff : 1);
}

static void describe_child(const team_harness_child_t *c, int rank, double timeout_s) {
    if (c->watchdog)
        team_harness_log("rank %d did not finish within %.1f s (killed by the watchdog)", rank,
                         timeout_s);
    else if (c->signal)
        team_harness_log("rank %d killed by signal %d (%s)", rank, c->signal, strsignal(c->signal));
    else if (c->exit_code)
        team_harness_log("rank %d exited with code %d", rank, c->exit_code);
}

int team_harness_dir_leftovers(const char *dir, const char *keep) {
    DIR *d = opendir(dir);
    if (!d) {
        team_harness_log("cannot open %s: %s", dir, strerror(errno));
        return -1;
    }
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (keep && !strcmp(e->d_name, keep)) continue;
        team_harness_log("file left in the segment directory: %s/%s", dir, e->d_name);
        count++;
    }
    closedir(d);
    return count;
}

int team_harness_dir_create(char *path, size_t len) {
    const char *base = getenv("SHMCOLL_SHM_DIR");
    if (!base || !*base) base = "/dev/shm";
    if ((size_t)snprintf(path, len, "%s/shmcoll-test.XXXXXX", base) >= len) return -1;
    if (!mkdtemp(path)) {
        team_harness_log("mkdtemp %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Removes a private segment directory, with whatever a failed run leaked into it. */
static void remove_dir(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[1024];
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d) closedir(d);
    if (rmdir(dir) != 0) team_harness_log("rmdir %s: %s", dir, strerror(errno));
}

static void reap(team_harness_child_t *children, int p, pid_t pid, int wstatus, double t) {
    for (int r = 0; r < p; r++) {
        if (children[r].pid != pid || children[r].finished) continue;
        children[r].finished = 1;
        children[r].end_s = t;
        if (WIFSIGNALED(wstatus)) {
            children[r].signal = WTERMSIG(wstatus);
            children[r].exit_code = -1;
        } else {
            children[r].exit_code = WEXITSTATUS(wstatus);
        }
        /* A sibling died: release everyone still in the bootstrap instead of letting them wait
         * for the deadline. */
        if (children[r].signal || children[r].exit_code)
            atomic_store_explicit(&region->aborted, 1, memory_order_relaxed);
        return;
    }
}

/* Reaps until every child has ended, running the monitor and the watchdog in between. */
static void supervise(team_harness_spec_t *spec, team_harness_child_t *children, int running,
                      double start) {
    int p = spec->p;
    int killed = 0;
    while (running > 0) {
        int wstatus;
        pid_t pid = waitpid(-1, &wstatus, WNOHANG);
        double t = team_harness_now() - start;
        if (pid > 0) {
            reap(children, p, pid, wstatus, t);
            running--;
            continue; /* reap every ended child before anything else */
        }
        if (pid < 0 && errno != EINTR) break; /* no child left */
        if (!killed && spec->monitor) spec->monitor(children, p, t, spec->arg);
        if (!killed && t > spec->timeout_s) {
            for (int r = 0; r < p; r++) {
                if (children[r].finished) continue;
                children[r].watchdog = 1;
                kill(children[r].pid, SIGKILL);
            }
            killed = 1;
        }
        struct timespec nap = {0, 1000000};
        nanosleep(&nap, NULL);
    }
}

/* A test killed from outside (ctest's timeout, ^C) takes its children and its empty private
 * directory with it, then dies of the same signal. Only async-signal-safe calls here. */
static void on_termination(int sig) {
    for (int r = 0; r < running_children_n; r++) kill(running_pids[r], SIGKILL);
    if (running_dir[0]) rmdir(running_dir);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void watch_termination(int on) {
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (int i = 0; i < 3; i++) signal(sigs[i], on ? on_termination : SIG_DFL);
}

int team_harness_run_spec(team_harness_spec_t *spec) {
    int p = spec->p, failed = 0;
    if (p < 1 || p > TEAM_HARNESS_MAX_P) {
        team_harness_log("team size %d out of range", p);
        return 1;
    }
    char private_dir[512];
    const char *dir = spec->segment_dir;
    if (!dir) {
        if (team_harness_dir_create(private_dir, sizeof private_dir)) return 1;
        dir = private_dir;
    }

    region_bytes = sizeof(bootstrap_region_t) + (size_t)p * SLOT_BYTES;
    region = mmap(NULL, region_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    shared_area_bytes = spec->shared_bytes ? spec->shared_bytes : 1;
    shared_area =
        mmap(NULL, shared_area_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED || shared_area == MAP_FAILED) {
        team_harness_log("mmap: %s", strerror(errno));
        if (!spec->segment_dir) remove_dir(dir);
        return 1;
    }
    region->p = p;
    double start = team_harness_now();
    region->deadline = start + spec->timeout_s;

    team_harness_child_t local[TEAM_HARNESS_MAX_P];
    team_harness_child_t *children = spec->children ? spec->children : local;
    memset(children, 0, (size_t)p * sizeof *children);
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    snprintf(running_dir, sizeof running_dir, "%s", spec->segment_dir ? "" : dir);
    watch_termination(1);
    int forked = 0;
    for (; forked < p; forked++) {
        pid_t pid = fork();
        if (pid == 0) child_main(spec, forked, dir, parent);
        if (pid < 0) {
            /* Without all members there is no team: stop the ones started, report the rest. */
            team_harness_log("fork: %s", strerror(errno));
            atomic_store(&region->aborted, 1);
            for (int k = forked; k < p; k++) children[k].finished = 1, children[k].exit_code = -1;
            for (int k = 0; k < forked; k++) kill(children[k].pid, SIGKILL);
            break;
        }
        children[forked].pid = pid;
        running_pids[forked] = pid;
        running_children_n = forked + 1;
    }
    supervise(spec, children, forked, start);
    watch_termination(0);
    running_children_n = 0;

    for (int r = 0; r < p; r++) {
        const team_harness_child_t *c = &children[r];
        if (c->watchdog || c->signal || c->exit_code) {
            failed = 1;
            if (!spec->expect_failures || c->watchdog) describe_child(c, r, spec->timeout_s);
        }
    }
    spec->leftover_files = team_harness_dir_leftovers(dir, spec->keep_file);
    if (spec->leftover_files != 0) failed = 1;
    if (!spec->segment_dir) remove_dir(dir);

    if (spec->shared_out && spec->shared_bytes)
        memcpy(spec->shared_out, shared_area, spec->shared_bytes);
    munmap(region, region_bytes);
    munmap(shared_area, shared_area_bytes);
    region = NULL;
    shared_area = NULL;
    return failed;
}

int team_harness_run(int p, team_harness_body_fn body, void *arg, double timeout_s) {
    team_harness_spec_t spec = {.p = p, .body = body, .arg = arg, .timeout_s = timeout_s};
    return team_harness_run_spec(&spec);
}

int team_harness_check_chunk(const shmcoll_team_t *team, size_t bytes) {
    if (team->chunk == bytes) return 0;
    team_harness_log("SHMCOLL_CHUNK gave a chunk of %zu bytes, not %zu", team->chunk, bytes);
    return 1;
}

int team_harness_for_sizes(int argc, char **argv, const int *sizes, int n,
                           team_harness_body_fn body, void *arg, double timeout_s) {
    const team_harness_spec_t spec = {.body = body, .arg = arg, .timeout_s = timeout_s};
    return team_harness_for_sizes_spec(argc, argv, sizes, n, &spec);
}

int team_harness_for_sizes_spec(int argc, char **argv, const int *sizes, int n,
                                const team_harness_spec_t *spec) {
    int failures = 0, count = argc > 1 ? argc - 1 : n;
    const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    for (int i = 0; i < count; i++) {
        team_harness_spec_t run = *spec;
        run.p = argc > 1 ? atoi(argv[i + 1]) : sizes[i];
        double start = team_harness_now();
        int failed = team_harness_run_spec(&run);
        printf("%s p=%d: %s (%.2f s)\n", name, run.p, failed ? "FAILED" : "ok",
               team_harness_now() - start);
        fflush(stdout);
        failures += failed != 0;
    }
    return failures;
}
