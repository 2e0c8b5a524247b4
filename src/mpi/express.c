/* The express path's records (express.h): per thread, a slot per blocking entry point. */
#include "mpi/express.h"

#include <pthread.h>
#include <stdlib.h>

__thread shmcoll_mpi_express_run_t *shmcoll_mpi_express_grant
    __attribute__((tls_model("initial-exec")));
__thread shmcoll_mpi_express_t *shmcoll_mpi_express_records
    __attribute__((tls_model("initial-exec")));

int shmcoll_mpi_express_straight;

static atomic_int slots_given;
static pthread_key_t records_key; /* frees a thread's records when it exits */
static pthread_once_t records_key_once = PTHREAD_ONCE_INIT;
static int records_key_made;

static void records_key_make(void) {
    records_key_made = pthread_key_create(&records_key, free) == 0;
}

shmcoll_mpi_express_t *shmcoll_mpi_express_record(atomic_int *slot) {
    int mine = atomic_load(slot);
    if (mine < 0) { /* the entry point's first record in the process: a slot of its own */
        const int fresh = atomic_fetch_add(&slots_given, 1);
        if (fresh >= SHMCOLL_MPI_EXPRESS_SLOTS) return NULL;
        /* where another thread gave it one meanwhile, that one (in `mine`) */
        if (atomic_compare_exchange_strong(slot, &mine, fresh)) mine = fresh;
    }
    if (!shmcoll_mpi_express_records) {
        pthread_once(&records_key_once, records_key_make);
        shmcoll_mpi_express_t *records = calloc(SHMCOLL_MPI_EXPRESS_SLOTS, sizeof *records);
        if (!records) return NULL;
        if (!records_key_made || pthread_setspecific(records_key, records) != 0) {
            free(records); /* it could not be freed at the thread's exit */
            return NULL;
        }
        shmcoll_mpi_express_records = records;
    }
    return &shmcoll_mpi_express_records[mine];
}
