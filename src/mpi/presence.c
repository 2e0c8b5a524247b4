/* Whether every process of the job loaded shmcoll, asked of the PMIx launcher. See presence.h. */
#include "mpi/presence.h"

#include <mpi.h>

#if defined(OPEN_MPI) && defined(SHMCOLL_HAVE_PMIX)

#include "shm/wait.h"

#include <dlfcn.h>
#include <pmix.h>
#include <stdlib.h>
#include <time.h>

#define PRESENCE_KEY "shmcoll.loaded"

/* The PMIx client functions used, from the library the MPI library loaded. */
typedef struct pmix_calls {
    pmix_status_t (*init)(pmix_proc_t *, pmix_info_t[], size_t);
    pmix_status_t (*finalize)(const pmix_info_t[], size_t);
    pmix_status_t (*put)(pmix_scope_t, const char[], pmix_value_t *);
    pmix_status_t (*commit)(void);
    pmix_status_t (*get)(const pmix_proc_t *, const char[], const pmix_info_t[], size_t,
                         pmix_value_t **);
    pmix_status_t (*info_load)(pmix_info_t *, const char *, const void *, pmix_data_type_t);
    void (*value_destruct)(pmix_value_t *);
} pmix_calls_t;

/* 1 when the PMIx library is loaded already (by the MPI library, never by this call) and has
 * every function. */
static int calls_find(pmix_calls_t *c) {
    void *lib = dlopen("libpmix.so.2", RTLD_NOW | RTLD_NOLOAD);
    if (!lib) return 0;
    *(void **)&c->init = dlsym(lib, "PMIx_Init");
    *(void **)&c->finalize = dlsym(lib, "PMIx_Finalize");
    *(void **)&c->put = dlsym(lib, "PMIx_Put");
    *(void **)&c->commit = dlsym(lib, "PMIx_Commit");
    *(void **)&c->get = dlsym(lib, "PMIx_Get");
    *(void **)&c->info_load = dlsym(lib, "PMIx_Info_load");
    *(void **)&c->value_destruct = dlsym(lib, "PMIx_Value_destruct");
    dlclose(lib); /* the MPI library's reference keeps it loaded */
    return c->init && c->finalize && c->put && c->commit && c->get && c->info_load &&
           c->value_destruct;
}

/* One lookup of the key of `who`, waiting at most a second: its status. */
static pmix_status_t lookup(const pmix_calls_t *c, const pmix_proc_t *who) {
    pmix_info_t timeout;
    const int seconds = 1;
    PMIX_INFO_CONSTRUCT(&timeout);
    pmix_status_t rc = c->info_load(&timeout, PMIX_TIMEOUT, &seconds, PMIX_INT);
    pmix_value_t *value = NULL;
    if (rc == PMIX_SUCCESS) rc = c->get(who, PRESENCE_KEY, &timeout, 1, &value);
    c->value_destruct(&timeout.value);
    if (value) {
        c->value_destruct(value);
        free(value);
    }
    return rc;
}

/* Rank `rank` of the namespace posted the key: 1; it did not within the timeout: 0; the lookup
 * failed otherwise: -1. A key posted after MPI_Init's fence is not in what the fence gathered:
 * a lookup before its rank posted it may end at once as not found, or wait, so lookups repeat
 * until the key is found or the timeout has passed. */
static int posted(const pmix_calls_t *c, const pmix_proc_t *self, int rank) {
    pmix_proc_t who;
    PMIX_LOAD_PROCID(&who, self->nspace, (pmix_rank_t)rank);
    const double start = shmcoll_shm_now();
    for (;;) {
        const pmix_status_t rc = lookup(c, &who);
        if (rc == PMIX_SUCCESS) return 1;
        if (rc != PMIX_ERR_TIMEOUT && rc != PMIX_ERR_NOT_FOUND) return -1;
        if (shmcoll_shm_now() - start > SHMCOLL_MPI_PRESENCE_TIMEOUT) return 0;
        nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL); /* the launcher's time */
    }
}

int shmcoll_mpi_presence_missing(int *rank) {
    pmix_calls_t c;
    pmix_proc_t self;
    if (!getenv("PMIX_NAMESPACE") || !calls_find(&c) || c.init(&self, NULL, 0) != PMIX_SUCCESS)
        return -1;
    int missing = -1, size = 0;
    pmix_value_t mine;
    PMIX_VALUE_CONSTRUCT(&mine);
    mine.type = PMIX_BOOL;
    mine.data.flag = true;
    if (PMPI_Comm_size(MPI_COMM_WORLD, &size) == MPI_SUCCESS &&
        c.put(PMIX_GLOBAL, PRESENCE_KEY, &mine) == PMIX_SUCCESS && c.commit() == PMIX_SUCCESS) {
        missing = 0;
        /* One missing rank decides it (every other lookup of one would wait the timeout too). */
        for (int r = 0; r < size && missing == 0; r++) {
            const int found = posted(&c, &self, r);
            if (found < 0) missing = -1;
            if (found == 0) missing = 1, *rank = r;
        }
    }
    c.finalize(NULL, 0); /* this call's reference; the MPI library's stays */
    return missing;
}

#else

int shmcoll_mpi_presence_missing(int *rank) {
    (void)rank;
    return -1;
}

#endif
