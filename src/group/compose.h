/* Collectives of a group that spans nodes, composed of node phases (tasks on the node team, with
 * every algorithm of coll/) and network steps (group/net.h) between the nodes' leaders.
 *
 * A composed collective is a resumable state machine like a task (core/task.h): `progress`
 * starts node phases and network steps and returns IN_PROGRESS while one is in flight. A
 * blocking driver (shmcoll_group_run) waits for the phase in flight: a node phase with
 * the node task's bounded wait, a network step by testing it (the MPI library progresses it),
 * yielding the CPU in between. Every member runs the same sequence of node phases (a node task
 * per phase, started in the same order on all members of a node, as the node team requires);
 * only leaders run network steps. The plan of a composition is a function of the arguments every
 * member shares and of the group's map: no member decides alone. */
#ifndef SHMCOLL_GROUP_COMPOSE_H
#define SHMCOLL_GROUP_COMPOSE_H

#include "group/group.h"

#define SHMCOLL_COMPOSE_STATE_BYTES 512

typedef struct shmcoll_group_task shmcoll_group_task_t;

typedef struct shmcoll_compose_ops {
    /* Before anything is started: NOT_SUPPORTED (every member alike) or OK. */
    shmcoll_status_t (*init)(shmcoll_group_task_t *t);
    /* OK when done, IN_PROGRESS, or a failure; never waits (but see shmcoll_compose_node). */
    shmcoll_status_t (*progress)(shmcoll_group_task_t *t);
    void (*fini)(shmcoll_group_task_t *t); /* may be NULL */
} shmcoll_compose_ops_t;

struct shmcoll_group_task {
    shmcoll_group_t *group;
    const shmcoll_coll_args_t *args;
    const shmcoll_compose_ops_t *ops;
    const char *name; /* "allreduce", for messages */
    int pc;
    int blocking;        /* the driver waits: node phases and network steps wait where they stand */
    shmcoll_task_t node; /* the node phase in flight */
    shmcoll_coll_args_t node_args; /* its arguments */
    shmcoll_net_coll_t net;        /* the network step in flight (leaders) */
    void *net_request;
    double net_started;
    uint64_t dav; /* of the node phases done */
    _Alignas(16) unsigned char state[SHMCOLL_COMPOSE_STATE_BYTES];
};

#define SHMCOLL_COMPOSE_STATE(t, type) ((type *)(void *)(t)->state)

/* The composition serving `args` on `group`, or NULL (the call falls back). */
const shmcoll_compose_ops_t *shmcoll_group_compose_find(const shmcoll_group_t *group,
                                                        const shmcoll_coll_args_t *args);

/* The group's one entry for every collective: runs `args` (ranks, counts and displacements in
 * the group's terms) to its end, on the node team when the group is one node, else composed.
 * SHMCOLL_ERR_NOT_SUPPORTED: nothing was done, on any member (the caller falls back). */
shmcoll_status_t shmcoll_group_run(shmcoll_group_t *group, const shmcoll_coll_args_t *args);

/* ---- For the compositions (compose_*.c) ------------------------------------------------- */

/* Starts t->node_args as the node phase. A phase the node team cannot serve is a failure here
 * (too late to fall back: a composition's init checks that it will be served). */
shmcoll_status_t shmcoll_compose_node_start(shmcoll_group_task_t *t);
/* OK once the node phase is done, else IN_PROGRESS (a blocking task waits for it here). */
shmcoll_status_t shmcoll_compose_node_test(shmcoll_group_task_t *t);

/* Starts t->net as a network step (this member leads its channel). */
shmcoll_status_t shmcoll_compose_net_start(shmcoll_group_task_t *t);
/* OK once the step is done, else IN_PROGRESS (a blocking task waits for it here, bounded by
 * SHMCOLL_TIMEOUT). */
shmcoll_status_t shmcoll_compose_net_test(shmcoll_group_task_t *t);

/* Whether this member leads channel c of its node (node rank c). */
static inline int shmcoll_compose_leads(const shmcoll_group_task_t *t, int channel) {
    return t->group->map.node_rank[t->group->rank] == channel;
}

/* The compositions. */
extern const shmcoll_compose_ops_t shmcoll_compose_allreduce_ops; /* compose_allreduce.c */

#endif
