/* One collective call on its way through shmcoll, the same way for every collective:
 *
 *     begin     is the communicator handled? (its group, or why not)
 *     payload   the statistics' bytes of the call (stats.h)
 *     prepare   the collective's own part: check the MPI arguments, translate datatype and op,
 *               lay out (or pack) the buffers as bytes, and describe the call to the group
 *               (call->args); or serve it at once without the group (one process, nothing to
 *               move), or reject it (NOT_SUPPORTED, with a reason)
 *     run       the group's one entry (group/group.h), with every member
 *     finish    unpack what was received into the user's layout
 *     end       count it, or raise the failure through the communicator's error handler
 *   or fallback the MPI library's own collective (PMPI_*), counted as such.
 * A collective is a descriptor (its name, prepare, payload and fallback) and a struct of its MPI
 * arguments. prepare may reject a call only from arguments every rank shares, before anything is
 * communicated, so that all ranks take the same path.
 *
 * The three forms of a collective take this one path. A blocking call runs it through at once
 * (shmcoll_mpi_coll_run, blocking.h). A non-blocking one (MPI_Iallreduce) begins and prepares it,
 * starts it on the group and returns a request; the request completes it later with finish and end
 * (request.h). A persistent one (MPI_Allreduce_init) begins and prepares it once; every MPI_Start
 * starts it and completes it the same way. Fallback is per call and per form: the MPI library's
 * PMPI_I* or PMPI_*_init then returns the request itself. */
#ifndef SHMCOLL_MPI_CALL_H
#define SHMCOLL_MPI_CALL_H

#include "mpi/blocks.h"
#include "mpi/comm_state.h"
#include "mpi/express.h"
#include "mpi/op.h"
#include "mpi/stats.h"

#include "core/coll_args.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The persistent collectives of the MPI library underneath: MPI-4's MPI_*_init, or Open MPI
 * 4's extension MPIX_*_init (same arguments). */
#if defined(OPEN_MPI) && MPI_VERSION < 4
#include <mpi-ext.h>
#endif
#if MPI_VERSION >= 4
#define SHMCOLL_MPI_HAVE_PERSISTENT 1
#define SHMCOLL_MPI_INIT(Name)      MPI_##Name##_init
#define SHMCOLL_PMPI_INIT(Name)     PMPI_##Name##_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define SHMCOLL_MPI_HAVE_PERSISTENT 1
#define SHMCOLL_MPI_INIT(Name)      MPIX_##Name##_init
#define SHMCOLL_PMPI_INIT(Name)     PMPIX_##Name##_init
#else
#define SHMCOLL_MPI_HAVE_PERSISTENT 0
#endif

/* How a call was made: the form, and for the non-blocking and persistent forms the request the
 * caller gets (and the info of *_init). */
typedef struct shmcoll_mpi_how {
    shmcoll_mpi_form_t form;
    MPI_Info info;
    MPI_Request *request;
} shmcoll_mpi_how_t;

#define SHMCOLL_MPI_NONBLOCKING_HOW(req)                                                           \
    (&(const shmcoll_mpi_how_t){SHMCOLL_MPI_NONBLOCKING, MPI_INFO_NULL, (req)})
#define SHMCOLL_MPI_PERSISTENT_HOW(info, req)                                                      \
    (&(const shmcoll_mpi_how_t){SHMCOLL_MPI_PERSISTENT, (info), (req)})

/* The MPI library's collective `Name` in the form `how` asks for (NULL: blocking), with the
 * arguments of the blocking one; _C: the large-count twins (MPI-4). */
#if SHMCOLL_MPI_HAVE_PERSISTENT
#define SHMCOLL_PMPI_PERSISTENT(how, Name, ...)                                                    \
    SHMCOLL_PMPI_INIT(Name)(__VA_ARGS__, (how)->info, (how)->request)
#else
#define SHMCOLL_PMPI_PERSISTENT(how, Name, ...) MPI_ERR_OTHER
#endif
#define SHMCOLL_PMPI_FORMS(how, Name, IName, ...)                                                  \
    (!(how)                                   ? PMPI_##Name(__VA_ARGS__)                           \
     : (how)->form == SHMCOLL_MPI_NONBLOCKING ? PMPI_##IName(__VA_ARGS__, (how)->request)          \
                                              : SHMCOLL_PMPI_PERSISTENT(how, Name, __VA_ARGS__))
#define SHMCOLL_PMPI_FORMS_C(how, Name, IName, ...)                                                \
    (!(how) ? PMPI_##Name##_c(__VA_ARGS__)                                                         \
     : (how)->form == SHMCOLL_MPI_NONBLOCKING                                                      \
         ? PMPI_##IName##_c(__VA_ARGS__, (how)->request)                                           \
         : PMPI_##Name##_init_c(__VA_ARGS__, (how)->info, (how)->request))
/* The same for a call whose counts are `large` (its _c twin) or not: one argument list serves
 * both, the counts of a call that is not large converting back to the ints it was made with. */
#if MPI_VERSION >= 4
#define SHMCOLL_PMPI_CALL(how, large, Name, IName, ...)                                            \
    ((large) ? SHMCOLL_PMPI_FORMS_C(how, Name, IName, __VA_ARGS__)                                 \
             : SHMCOLL_PMPI_FORMS(how, Name, IName, __VA_ARGS__))
#else
#define SHMCOLL_PMPI_CALL(how, large, Name, IName, ...)                                            \
    SHMCOLL_PMPI_FORMS(how, Name, IName, __VA_ARGS__)
#endif

#define SHMCOLL_MPI_CALL_ARRAYS 4 /* alltoallv's counts and displacements of both sides */

typedef struct shmcoll_mpi_call {
    MPI_Comm comm;
    shmcoll_mpi_coll_t coll;
    shmcoll_mpi_form_t form;
    const char *function;      /* "MPI_Allgather_c", for messages */
    shmcoll_mpi_comm_t *state; /* NULL when unknown (MPI_COMM_NULL, MPI not initialised) */
    shmcoll_group_t *group;    /* the group serving the call; NULL on one process */
    const char *reason;        /* why the call goes to the MPI library */
    int invalid;               /* ... where it is an argument the MPI library refuses */
    int quiet;                 /* ... not to be logged (SHMCOLL_VERBOSE): said once elsewhere */
    const char *algo;          /* set when served without the group: done at once */
    int derived;               /* prepare met a derived datatype or a user op (repeat.h) */
    int narrays;               /* count and displacement arrays prepare read (repeat.h) */
    uint64_t bytes;            /* payload, counted by the counting rank (stats.h) */
    uint64_t share;            /* this rank's share of a payload no rank knows whole */
    uint64_t dav;              /* DAV of copies made without the group (one process) */
    uint64_t team_dav;         /* the node team's DAV when the call began */
    uint64_t net_bytes;        /* the group's network bytes when the call began */

    /* The call as the group runs it, filled by prepare. */
    shmcoll_coll_args_t args;
    /* From here on shmcoll_mpi_call_clear leaves fields uncleared unless it names them: a new
     * field that must start zeroed goes above, or into that function. */
    shmcoll_reduce_op_t rop;     /* reductions: the op as the kernels see it */
    shmcoll_mpi_op_ctx_t op_ctx; /* ... and what its trampoline needs */
    shmcoll_mpi_blocks_t send;   /* the send side as bytes */
    shmcoll_mpi_blocks_t recv;   /* the receive side as bytes, unpacked by finish */
    int unpack;                  /* finish unpacks recv ... */
    int unpack_skip;             /* ... but its block unpack_skip (-1: none) */
    size_t *sizes;               /* 4 x size of scratch for per-block bytes and offsets */
    struct {
        const void *at;
        size_t bytes;
    } arrays[SHMCOLL_MPI_CALL_ARRAYS]; /* the first of those arrays (narrays may count more) */
} shmcoll_mpi_call_t;

/* A collective of the MPI layer. */
typedef struct shmcoll_mpi_coll_desc {
    shmcoll_mpi_coll_t coll;
    /* The C names of each form (blocking, non-blocking, persistent): plain and large-count. */
    const char *names[SHMCOLL_MPI_FORM_COUNT][2];
    shmcoll_status_t (*prepare)(shmcoll_mpi_call_t *call, const void *margs);
    /* The statistics' bytes of the call (stats.h); called only when they are counted (not on
     * an intercommunicator for the collectives stats.h names). */
    void (*payload)(shmcoll_mpi_call_t *call, const void *margs);
    /* The MPI library's collective in the form `how` asks for (NULL: blocking). */
    int (*fallback)(const void *margs, MPI_Comm comm, int large, const shmcoll_mpi_how_t *how);
    size_t margs_size; /* a request keeps a copy of the arguments */
    /* The size every rank of the communicator knows alike (the message, one block, the whole
     * vector: as select/select_args.h counts it), which calibration keys its size bands by
     * (calibrate.h); see key_local for the collectives whose sizes only some ranks know. */
    size_t (*key)(const void *margs, const shmcoll_mpi_comm_t *state);
    /* Where the datatype fields of `margs` are: the i-th (0, 1), or NULL past the last. A request
     * duplicates the derived ones for its life (request.c). NULL: the collective has none. */
    MPI_Datatype *(*types)(void *margs, int i);
    /* Where the count and displacement arrays of `margs` significant at `rank` of `size` are:
     * the i-th (0..3), with *bytes its size, or NULL (none at i, or not significant here). A
     * request copies them for its life: MPI lets the application keep them only that long, and
     * a binding may pass temporaries (mpi4py's recvcounts=None). NULL: the collective has none. */
    const void **(*arrays)(void *margs, int i, int rank, int size, size_t *bytes);
    /* 1 where key is only this rank's share of the sizes (gatherv, scatterv, alltoallv: the
     * others' are not known here): calibration agrees on the ranks' mean now and then. */
    int key_local;
} shmcoll_mpi_coll_desc_t;

/* The names of a collective's three forms, e.g. SHMCOLL_MPI_NAMES(Allreduce, Iallreduce). */
#define SHMCOLL_MPI_NAMES(Name, IName)                                                             \
    {                                                                                              \
        {"MPI_" #Name, "MPI_" #Name "_c"}, {"MPI_" #IName, "MPI_" #IName "_c"}, {                  \
            "MPI_" #Name "_init", "MPI_" #Name "_init_c"                                           \
        }                                                                                          \
    }

/* ---- The C entry points ------------------------------------------------------------------ */

/* A parenthesised list without its parentheses. */
#define SHMCOLL_MPI_UNPAREN(...) __VA_ARGS__

/* The blocking, non-blocking and persistent entry points `Blocking`, `Nonblocking` and
 * `Persistent` of a collective, with the parameters `plist` (in parentheses; `names` their names),
 * the request, and the info and the request: each returns entry(args..., large, how), `args` in
 * parentheses; the blocking one first takes the express path (express.h) to the MPI library's
 * `PBlocking` where it can. The three forms are written once, so they cannot drift apart. */
#define SHMCOLL_MPI_FORMS_DEFINE(Blocking, PBlocking, Nonblocking, Persistent, plist, names,       \
                                 large, entry, args)                                               \
    SHMCOLL_MPI_EXPRESS_DEFINE(Blocking, PBlocking, plist, names,                                  \
                               entry(SHMCOLL_MPI_UNPAREN args, large, NULL))                       \
    SHMCOLL_API int Nonblocking(SHMCOLL_MPI_UNPAREN plist, MPI_Request *request) {                 \
        return entry(SHMCOLL_MPI_UNPAREN args, large, SHMCOLL_MPI_NONBLOCKING_HOW(request));       \
    }                                                                                              \
    SHMCOLL_MPI_PERSISTENT_DEFINE(Persistent, plist, large, entry, args)
#if SHMCOLL_MPI_HAVE_PERSISTENT
#define SHMCOLL_MPI_PERSISTENT_DEFINE(Persistent, plist, large, entry, args)                       \
    SHMCOLL_API int Persistent(SHMCOLL_MPI_UNPAREN plist, MPI_Info info, MPI_Request *request) {   \
        return entry(SHMCOLL_MPI_UNPAREN args, large, SHMCOLL_MPI_PERSISTENT_HOW(info, request));  \
    }
#else
#define SHMCOLL_MPI_PERSISTENT_DEFINE(Persistent, plist, large, entry, args)
#endif

/* Every C entry point of the collective MPI_<Name> (MPI_<IName> its non-blocking form): the
 * three forms with the parameters params(int, int), and with MPI-4 their large-count twins
 * (MPI_<Name>_c, ...) with params(MPI_Count, MPI_Aint); `params` is a macro of the count type
 * and the displacement type that gives the parameter list in parentheses, `names` the
 * parameters' names in parentheses. */
#if MPI_VERSION >= 4
#define SHMCOLL_MPI_ENTRIES_C(Name, IName, params, names, entry, args)                             \
    SHMCOLL_MPI_FORMS_DEFINE(MPI_##Name##_c, PMPI_##Name##_c, MPI_##IName##_c,                     \
                             MPI_##Name##_init_c, params(MPI_Count, MPI_Aint), names, 1, entry,    \
                             args)
#else
#define SHMCOLL_MPI_ENTRIES_C(Name, IName, params, names, entry, args)
#endif
#define SHMCOLL_MPI_ENTRIES(Name, IName, params, names, entry, args)                               \
    SHMCOLL_MPI_FORMS_DEFINE(MPI_##Name, PMPI_##Name, MPI_##IName, SHMCOLL_MPI_INIT(Name),         \
                             params(int, int), names, 0, entry, args)                              \
    SHMCOLL_MPI_ENTRIES_C(Name, IName, params, names, entry, args)

/* ---- The halves of the sequence, for the requests (request.c) ---------------------------- */

/* A call record cleared for begin (what must start zeroed). */
void shmcoll_mpi_call_clear(shmcoll_mpi_call_t *call);

/* Only the head of the record, before the arguments: for a call whose arguments, op and op
 * context are then written whole and that neither prepares nor finishes (a repeat, repeat.h). */
static inline void shmcoll_mpi_call_clear_head(shmcoll_mpi_call_t *call) {
    memset(call, 0, offsetof(shmcoll_mpi_call_t, args));
}

/* begin, then the payload when counted. */
shmcoll_status_t shmcoll_mpi_call_begin(shmcoll_mpi_call_t *call,
                                        const shmcoll_mpi_coll_desc_t *desc, const void *margs,
                                        MPI_Comm comm, int large, shmcoll_mpi_form_t form);
/* The call runs on the group of `comm` (a duplicate of call->comm with the same ranks: a
 * persistent request's own), which is set up now if need be (collective), or without a group on
 * one process. NOT_SUPPORTED with the reason when that group is not handled. */
shmcoll_status_t shmcoll_mpi_call_rebind(shmcoll_mpi_call_t *call, MPI_Comm comm);
/* A prepared call runs again (a persistent start): its DAV and network bytes count from now.
 * Returns the group's failure, if any. */
shmcoll_status_t shmcoll_mpi_call_restart(shmcoll_mpi_call_t *call);
/* prepare (call->sizes: 4 x size); a local failure fails the node team, so the others stop too. */
shmcoll_status_t shmcoll_mpi_call_prepare(shmcoll_mpi_call_t *call,
                                          const shmcoll_mpi_coll_desc_t *desc, const void *margs);
/* After the group's run ended with `status`: finish (unpack) and free the packed blocks. */
shmcoll_status_t shmcoll_mpi_call_finish(shmcoll_mpi_call_t *call, shmcoll_status_t status);
/* end: counts the call, or raises the failure; returns the MPI code. */
int shmcoll_mpi_call_end(shmcoll_mpi_call_t *call, shmcoll_status_t status);
/* Logs and counts a call that goes to the MPI library. */
void shmcoll_mpi_call_fallback(shmcoll_mpi_call_t *call);

/* ---- For prepare ------------------------------------------------------------------------- */

/* Sends the call to the MPI library for `reason`: returns SHMCOLL_ERR_NOT_SUPPORTED. */
shmcoll_status_t shmcoll_mpi_call_reject(shmcoll_mpi_call_t *call, const char *reason);

/* The same for arguments the MPI library refuses (a negative count, a root out of range, a null
 * datatype or op): the MPI library gives the error, in every form, persistent ones at their init
 * (request.c). Returns SHMCOLL_ERR_NOT_SUPPORTED. */
shmcoll_status_t shmcoll_mpi_call_invalid(shmcoll_mpi_call_t *call, const char *reason);

/* The call is served without the group (one process, or nothing to move), under the name `algo`:
 * returns SHMCOLL_OK. */
shmcoll_status_t shmcoll_mpi_call_local(shmcoll_mpi_call_t *call, const char *algo);

/* The core's send buffer: NULL means in place there, so a user's NULL send buffer (valid with
 * nothing to send) becomes a pointer to nothing instead; a rank sending nothing is then not
 * read as one whose blocks are in its receive buffer. */
const void *shmcoll_mpi_call_sendbuf(int in_place, const void *sendbuf);

/* Describes the call to the group (call->args, core/coll_args.h) as `kind` from `sendbuf` to
 * `recvbuf`, `count` bytes a block, with the blocks of the two sides as call->send and call->recv
 * lay them out (each kind reads those it needs). Returns SHMCOLL_OK. */
shmcoll_status_t shmcoll_mpi_call_describe(shmcoll_mpi_call_t *call, shmcoll_coll_kind_t kind,
                                           const void *sendbuf, void *recvbuf, size_t count,
                                           int root);

/* One process: the call is served without the group as "self", its blocks copied from src to dst
 * (counted in the DAV like the kernels' copies). Returns SHMCOLL_OK. */
shmcoll_status_t shmcoll_mpi_call_self(shmcoll_mpi_call_t *call, void *dst, const void *src,
                                       size_t bytes);

/* Translates (datatype, op) into call->rop (call->args.op and net_op point at it); NOT_SUPPORTED
 * with the reason when shmcoll cannot reduce them. */
shmcoll_status_t shmcoll_mpi_call_op(shmcoll_mpi_call_t *call, MPI_Datatype datatype, MPI_Op op);

/* Records that prepare read `bytes` of the user's array at `at` (per-block counts or
 * displacements): a repeated call is the same only while they are (repeat.h). */
void shmcoll_mpi_call_array(shmcoll_mpi_call_t *call, const void *at, size_t bytes);

/* Whether statistics want this call's payload (stats on and the communicator's state known). */
int shmcoll_mpi_call_counted(const shmcoll_mpi_call_t *call);

/* Bytes of count elements of datatype for statistics; 0 when statistics are off or the type is
 * invalid (the MPI library will say so). */
uint64_t shmcoll_mpi_call_bytes(MPI_Datatype datatype, MPI_Count count);

/* The same for the sum of n counts (int, or MPI_Count when wide). */
uint64_t shmcoll_mpi_call_bytes_sum(MPI_Datatype datatype, const void *counts, int wide, int n);

#endif
