/* The plan of an allreduce across nodes: which form, how many leaders share the vector, and its
 * segments. A pure function of values every member shares (the count, the element size, the
 * leaders per node, whether network steps block, the knobs), used by the composition
 * (compose_allreduce.c) and shown by shmcoll-info. */
#ifndef SHMCOLL_GROUP_ALLREDUCE_PLAN_H
#define SHMCOLL_GROUP_ALLREDUCE_PLAN_H

#include <stddef.h>

typedef enum shmcoll_allreduce_form {
    /* Node reduce to each node's first member, one allreduce of the whole vector among them
     * (channel 0), node bcast. The fewest steps: what latency asks for, and what one leader per
     * node does at any size. */
    SHMCOLL_ALLREDUCE_ONE_LEADER,
    /* Node reduce-scatter into the L leaders' shares, the L leaders' allreduces of their shares
     * at once (one per channel), node allgather: L network streams per node. Where network steps
     * block (the MPI library's blocking collectives), which cannot overlap node phases. */
    SHMCOLL_ALLREDUCE_SHARES,
    /* The same in segments, pipelined: the node phases of segment k+1 and k-1 run while the
     * network step of segment k is in flight (non-blocking steps). */
    SHMCOLL_ALLREDUCE_SEGMENTS,
} shmcoll_allreduce_form_t;

typedef struct shmcoll_allreduce_plan {
    shmcoll_allreduce_form_t form;
    int shares;      /* leaders that own a share: 1 for ONE_LEADER */
    size_t segment;  /* elements per segment (the last may be shorter) */
    size_t segments; /* 1 but for SEGMENTS */
} shmcoll_allreduce_plan_t;

/* The plan for `count` elements of `extent` bytes with `leaders` leaders per node; `steps_block`:
 * a network step nothing overlaps is the MPI library's blocking collective. Sizes from
 * SHMCOLL_NET_SPLIT on are shared among the leaders (shares where steps block, else segments of
 * SHMCOLL_NET_SEGMENT bytes). `asked`: a form a tuning rule chose (its number + 1), or 0; a form
 * with shares needs two leaders (else one leader), and shares a share that fits an int (else
 * segments). */
void shmcoll_allreduce_plan(size_t count, size_t extent, int leaders, int steps_block, int asked,
                            shmcoll_allreduce_plan_t *plan);

/* Share c of n elements among `shares` leaders: its first element (shares as even as can be, in
 * leader order). */
static inline size_t shmcoll_allreduce_share_at(size_t n, int c, int shares) {
    return n * (size_t)c / (size_t)shares;
}

/* Elements this plan hands to the network through channel c in one call (its share of every
 * segment; channel 0 all of a ONE_LEADER plan). */
size_t shmcoll_allreduce_plan_channel(const shmcoll_allreduce_plan_t *plan, size_t count, int c);

/* "one leader", "shares", "segments". */
const char *shmcoll_allreduce_form_name(shmcoll_allreduce_form_t form);

#endif
