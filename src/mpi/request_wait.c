/* The request calls over shmcoll's requests and the MPI library's alike: MPI_Wait, MPI_Test and
 * their -all, -any and -some forms, MPI_Request_get_status, MPI_Request_free, MPI_Start and
 * MPI_Startall.
 *
 * Without shmcoll requests anywhere in the process every call goes straight to the MPI library.
 * Otherwise shmcoll's are told apart by their handle (request.h) and driven here, and the MPI
 * library sees a copy of the array in which they are MPI_REQUEST_NULL. A wait that involves the
 * MPI library's requests while shmcoll operations are in flight polls both, pausing in between
 * (shm/wait.h: it spins as a wait does, then yields), rather than blocking inside the MPI library:
 * a peer on the node may be waiting for one of this process's operations. Only once nothing of
 * shmcoll's is in flight does it block there. Completion order within an array is whatever each
 * side completes first, as MPI allows. */
#include "mpi/request.h"

#include "shm/wait.h"
#include "shmcoll.h"

#include <stdlib.h>

static MPI_Status *status_at(MPI_Status *statuses, int i) {
    return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

/* ---- One request --------------------------------------------------------------------------- */

SHMCOLL_API int MPI_Wait(MPI_Request *request, MPI_Status *status) {
    if (!shmcoll_mpi_request_any()) return PMPI_Wait(request, status);
    shmcoll_mpi_op_t *op = shmcoll_mpi_request_find(*request);
    if (op) {
        shmcoll_mpi_op_wait(op);
        return shmcoll_mpi_op_report(op, request, status);
    }
    shmcoll_shm_pace_t pace = {0};
    for (;;) {
        shmcoll_mpi_request_progress();
        if (!shmcoll_mpi_request_inflight()) break;
        int flag = 0;
        const int rc = PMPI_Test(request, &flag, status);
        if (rc != MPI_SUCCESS || flag) {
            shmcoll_shm_pace_end(&pace);
            return rc;
        }
        shmcoll_shm_pace(&pace);
    }
    shmcoll_shm_pace_end(&pace);
    return PMPI_Wait(request, status);
}

SHMCOLL_API int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
    if (!shmcoll_mpi_request_any()) return PMPI_Test(request, flag, status);
    shmcoll_mpi_request_progress();
    shmcoll_mpi_op_t *op = shmcoll_mpi_request_find(*request);
    if (!op) return PMPI_Test(request, flag, status);
    if (!(*flag = shmcoll_mpi_op_test(op))) return MPI_SUCCESS;
    return shmcoll_mpi_op_report(op, request, status);
}

SHMCOLL_API int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) {
    if (!shmcoll_mpi_request_any()) return PMPI_Request_get_status(request, flag, status);
    shmcoll_mpi_request_progress();
    shmcoll_mpi_op_t *op = shmcoll_mpi_request_find(request);
    if (!op) return PMPI_Request_get_status(request, flag, status);
    *flag = shmcoll_mpi_op_test(op);
    if (*flag) shmcoll_mpi_status_empty(status);
    return MPI_SUCCESS;
}

/* A call on one request: `ours` for shmcoll's, `theirs` (the MPI library's) for any other. */
static int one(MPI_Request *request, int (*ours)(shmcoll_mpi_op_t *, MPI_Request *),
               int (*theirs)(MPI_Request *)) {
    if (!shmcoll_mpi_request_any()) return theirs(request);
    shmcoll_mpi_op_t *op = shmcoll_mpi_request_find(*request);
    return op ? ours(op, request) : theirs(request);
}

static int start_ours(shmcoll_mpi_op_t *op, MPI_Request *request) {
    (void)request;
    return shmcoll_mpi_op_start(op);
}

SHMCOLL_API int MPI_Request_free(MPI_Request *request) {
    return one(request, shmcoll_mpi_op_free, PMPI_Request_free);
}

SHMCOLL_API int MPI_Start(MPI_Request *request) {
    return one(request, start_ours, PMPI_Start);
}

SHMCOLL_API int MPI_Startall(int count, MPI_Request requests[]) {
    if (!shmcoll_mpi_request_any()) return PMPI_Startall(count, requests);
    int rc = MPI_SUCCESS;
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++) {
        shmcoll_mpi_op_t *op = shmcoll_mpi_request_find(requests[i]);
        rc = op ? shmcoll_mpi_op_start(op) : PMPI_Start(&requests[i]);
    }
    return rc;
}

/* ---- Arrays -------------------------------------------------------------------------------- */

/* An array split into shmcoll's operations and the MPI library's requests. */
typedef struct split {
    int n, ours;
    shmcoll_mpi_op_t **ops; /* [n]: NULL for the MPI library's */
    MPI_Request *native;    /* what the MPI library sees: the array, or a copy with ours NULL */
    MPI_Request *user;
    char *done;              /* [n]: the MPI library's request i is complete (all) */
    shmcoll_shm_pace_t pace; /* between the polls of a wait */
    shmcoll_mpi_op_t *ops_small[16];
    MPI_Request native_small[16];
    char done_small[16];
} split_t;

static int split_init(split_t *s, int n, MPI_Request *requests) {
    s->n = n;
    s->ours = 0;
    s->pace = (shmcoll_shm_pace_t){0};
    s->user = requests;
    s->native = NULL;
    s->done = n <= 16 ? s->done_small : calloc((size_t)n, 1);
    s->ops = n <= 16 ? s->ops_small : malloc((size_t)n * sizeof *s->ops);
    if (!s->ops || !s->done) return 0;
    for (int i = 0; i < n; i++)
        if ((s->ops[i] = shmcoll_mpi_request_find(requests[i]))) s->ours++;
    s->native = requests;
    if (!s->ours) return 1;
    s->native = n <= 16 ? s->native_small : malloc((size_t)n * sizeof *s->native);
    if (!s->native) return 0;
    for (int i = 0; i < n; i++) s->native[i] = s->ops[i] ? MPI_REQUEST_NULL : requests[i];
    return 1;
}

static void split_fini(split_t *s) {
    shmcoll_shm_pace_end(&s->pace);
    if (s->ops && s->ops != s->ops_small) free(s->ops);
    if (s->done && s->done != s->done_small) free(s->done);
    if (s->native && s->native != s->user && s->native != s->native_small) free(s->native);
}

/* Ends a call over an array: frees the split, returns rc. */
static int split_close(split_t *s, int rc) {
    split_fini(s);
    return rc;
}

static int no_memory(void) {
    PMPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    return MPI_ERR_NO_MEM;
}

/* Begins a call over an array: splits it. Returns MPI_SUCCESS, or MPI_ERR_NO_MEM (raised; the
 * split freed again). */
static int split_open(split_t *s, int n, MPI_Request *requests) {
    return split_init(s, n, requests) ? MPI_SUCCESS : split_close(s, no_memory());
}

/* The MPI library's request i after it completed there (freed or inactive now). */
static void split_native_back(split_t *s, int i) {
    if (s->native != s->user) s->user[i] = s->native[i];
}

/* The first of our active operations from index `from` on that is done (completed now), or -1;
 * *active counts the active ones it passes, that one included. */
static int split_next_done(split_t *s, int from, int *active) {
    for (int i = from; i < s->n; i++) {
        if (!s->ops[i] || !shmcoll_mpi_op_active(s->ops[i])) continue;
        ++*active;
        if (shmcoll_mpi_op_test(s->ops[i])) return i;
    }
    return -1;
}

/* Completes every operation of ours that is done; returns how many active ones are not. */
static int split_test_ours(split_t *s) {
    int pending = 0;
    for (int i = 0; i < s->n; i++)
        if (s->ops[i] && !shmcoll_mpi_op_test(s->ops[i])) pending++;
    return pending;
}

/* Reports operation i into status (may be MPI_STATUS_IGNORE); a failure goes to its status'
 * MPI_ERROR. Returns its code. */
static int split_report(split_t *s, int i, MPI_Status *status) {
    const int code = shmcoll_mpi_op_report(s->ops[i], &s->user[i], status);
    s->ops[i] = NULL;
    if (code != MPI_SUCCESS && status != MPI_STATUS_IGNORE) status->MPI_ERROR = code;
    return code;
}

/* A call that returns MPI_ERR_IN_STATUS sets the error field of every status it fills: those of
 * the requests that failed hold their code (failed[i] set), the others MPI_SUCCESS. */
static void statuses_complete(MPI_Status statuses[], int n, const char *failed) {
    if (statuses == MPI_STATUSES_IGNORE) return;
    for (int i = 0; i < n; i++)
        if (!failed[i]) statuses[i].MPI_ERROR = MPI_SUCCESS;
}

/* Waitall and Testall: ours and the MPI library's, the latter one by one (a wait), or at once
 * when all are complete (a test, all or nothing). The MPI library's own -all calls are avoided:
 * MPICH 4.0's Testall reports MPI_ERR_IN_STATUS for a persistent collective that completed. */
static int all(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]) {
    split_t s;
    int rc = split_open(&s, count, requests);
    if (rc != MPI_SUCCESS) return rc;
    if (!s.ours && !shmcoll_mpi_request_inflight()) /* nothing of ours to drive */
        return split_close(&s, flag ? PMPI_Testall(count, requests, flag, statuses)
                                    : PMPI_Waitall(count, requests, statuses));
    char *done = s.done;
    for (int i = 0; i < count; i++) {
        done[i] = s.native[i] == MPI_REQUEST_NULL;
        if (done[i]) shmcoll_mpi_status_empty(status_at(statuses, i));
    }
    for (;;) {
        shmcoll_mpi_request_progress();
        const int pending = split_test_ours(&s);
        int left = 0;
        for (int i = 0; i < count; i++) {
            if (done[i]) continue;
            int complete = 0;
            if (flag) { /* a test completes nothing unless everything is complete */
                if (!pending) PMPI_Request_get_status(s.native[i], &complete, MPI_STATUS_IGNORE);
                left += !complete;
                continue;
            }
            const int code = PMPI_Test(&s.native[i], &complete, status_at(statuses, i));
            if (code != MPI_SUCCESS) {
                if (statuses != MPI_STATUSES_IGNORE) statuses[i].MPI_ERROR = code;
                rc = MPI_ERR_IN_STATUS;
            }
            done[i] = code != MPI_SUCCESS ? 2 : complete;
            left += !done[i];
        }
        if (!pending && !left) break;
        if (flag) { /* Testall: not everything is complete */
            *flag = 0;
            return split_close(&s, rc);
        }
        shmcoll_shm_pace(&s.pace);
    }
    for (int i = 0; i < count; i++) {
        int code = MPI_SUCCESS;
        if (s.ops[i]) {
            code = split_report(&s, i, status_at(statuses, i));
        } else {
            if (!done[i]) { /* Testall: complete now */
                int complete = 0;
                code = PMPI_Test(&s.native[i], &complete, status_at(statuses, i));
                if (code != MPI_SUCCESS && statuses != MPI_STATUSES_IGNORE)
                    statuses[i].MPI_ERROR = code;
            }
            split_native_back(&s, i);
        }
        if (code != MPI_SUCCESS) {
            done[i] = 2;
            rc = MPI_ERR_IN_STATUS;
        }
    }
    /* done[i] == 2: request i failed, its status holds the code already */
    for (int i = 0; i < count; i++) done[i] = done[i] == 2;
    if (rc == MPI_ERR_IN_STATUS) statuses_complete(statuses, count, done);
    if (flag) *flag = 1;
    return split_close(&s, rc);
}

SHMCOLL_API int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
    if (!shmcoll_mpi_request_any()) return PMPI_Waitall(count, requests, statuses);
    return all(count, requests, NULL, statuses);
}

SHMCOLL_API int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]) {
    if (!shmcoll_mpi_request_any()) return PMPI_Testall(count, requests, flag, statuses);
    return all(count, requests, flag, statuses);
}

/* Waitany and Testany: the first of ours that is done, else whatever the MPI library completes.
 */
static int any(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status) {
    split_t s;
    int rc = split_open(&s, count, requests);
    if (rc != MPI_SUCCESS) return rc;
    for (;;) {
        shmcoll_mpi_request_progress();
        int active = 0;
        const int found = split_next_done(&s, 0, &active);
        if (found >= 0) {
            *index = found;
            rc = split_report(&s, found, status);
            break;
        }
        int done = 0, at = MPI_UNDEFINED;
        rc = PMPI_Testany(count, s.native, &at, &done, status);
        if (rc != MPI_SUCCESS || (done && at != MPI_UNDEFINED)) {
            *index = at;
            if (at != MPI_UNDEFINED) split_native_back(&s, at);
            break;
        }
        if (done && !active) { /* nothing active anywhere */
            *index = MPI_UNDEFINED;
            shmcoll_mpi_status_empty(status);
            break;
        }
        if (flag) {
            *flag = 0;
            return split_close(&s, rc);
        }
        shmcoll_shm_pace(&s.pace);
    }
    if (flag) *flag = 1;
    return split_close(&s, rc);
}

SHMCOLL_API int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status) {
    if (!shmcoll_mpi_request_any()) return PMPI_Waitany(count, requests, index, status);
    return any(count, requests, index, NULL, status);
}

SHMCOLL_API int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag,
                            MPI_Status *status) {
    if (!shmcoll_mpi_request_any()) return PMPI_Testany(count, requests, index, flag, status);
    return any(count, requests, index, flag, status);
}

/* Waitsome and Testsome: ours that are done, then those the MPI library completes. */
static int some(int count, MPI_Request requests[], int *outcount, int indices[],
                MPI_Status statuses[], int wait) {
    split_t s;
    int rc = split_open(&s, count, requests);
    if (rc != MPI_SUCCESS) return rc;
    for (;;) {
        shmcoll_mpi_request_progress();
        int k = 0, active = 0;
        char *failed = s.done; /* [k]: output k failed, its status holds the code */
        for (int i = split_next_done(&s, 0, &active); i >= 0;
             i = split_next_done(&s, i + 1, &active)) {
            indices[k] = i;
            failed[k] = split_report(&s, i, status_at(statuses, k)) != MPI_SUCCESS;
            if (failed[k]) rc = MPI_ERR_IN_STATUS;
            k++;
        }
        int completed = 0;
        const int code = PMPI_Testsome(count, s.native, &completed, indices + k,
                                       statuses == MPI_STATUSES_IGNORE ? statuses : statuses + k);
        if (code != MPI_SUCCESS) rc = code;
        if (completed != MPI_UNDEFINED) {
            for (int j = 0; j < completed; j++) {
                split_native_back(&s, indices[k + j]);
                /* the MPI library set the error fields of its own when it failed some */
                failed[k + j] = code == MPI_ERR_IN_STATUS;
            }
            k += completed;
        }
        if (rc == MPI_ERR_IN_STATUS) statuses_complete(statuses, k, failed);
        if (k > 0 || (completed == MPI_UNDEFINED && !active) || code != MPI_SUCCESS || !wait) {
            *outcount = k > 0 || active || completed != MPI_UNDEFINED ? k : MPI_UNDEFINED;
            break;
        }
        shmcoll_shm_pace(&s.pace);
    }
    return split_close(&s, rc);
}

SHMCOLL_API int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                             MPI_Status statuses[]) {
    if (!shmcoll_mpi_request_any())
        return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
    return some(incount, requests, outcount, indices, statuses, 1);
}

SHMCOLL_API int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                             MPI_Status statuses[]) {
    if (!shmcoll_mpi_request_any())
        return PMPI_Testsome(incount, requests, outcount, indices, statuses);
    return some(incount, requests, outcount, indices, statuses, 0);
}
