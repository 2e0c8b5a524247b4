/* The algorithms of coll/: each one a task (core/task.h) whose ops the registry
 * (select/registry.c) lists with what it supports and what it costs. MPI-agnostic: buffers are
 * bytes, or elements described by a shmcoll_reduce_op_t (core/coll_args.h says which arguments
 * each kind reads).
 *
 * init returns SHMCOLL_ERR_NOT_SUPPORTED (decided from arguments every member shares, before any
 * step) or OK; progress returns OK, IN_PROGRESS or a failure (TIMEOUT, PEER_DEAD) whose message
 * is in team->error. Each algorithm's file starts with what it moves where, in which order, and
 * why it is fast. */
#ifndef SHMCOLL_COLL_COLL_H
#define SHMCOLL_COLL_COLL_H

#include "core/task.h"

/* barrier */
extern const shmcoll_task_ops_t shmcoll_coll_barrier_flat_ops;       /* barrier.c */
extern const shmcoll_task_ops_t shmcoll_coll_barrier_root_first_ops; /* barrier.c */
extern const shmcoll_task_ops_t shmcoll_coll_barrier_dissem_ops;     /* dissem.c */
extern const shmcoll_task_ops_t shmcoll_coll_barrier_knomial_ops;    /* knomial.c, params.radix */
extern const shmcoll_task_ops_t shmcoll_coll_barrier_hier_ops;       /* hier_barrier.c */

/* bcast */
extern const shmcoll_task_ops_t shmcoll_coll_bcast_pipeline_ops; /* bcast.c */
extern const shmcoll_task_ops_t shmcoll_coll_bcast_knomial_ops;  /* knomial.c, params.radix */
extern const shmcoll_task_ops_t shmcoll_coll_bcast_hier_ops;     /* hier_bcast.c */
extern const shmcoll_task_ops_t shmcoll_coll_bcast_single_ops;   /* single_copy.c */

/* reduce and allreduce (the root of reduce; every member for allreduce); flat and ma also
 * reduce_scatter and reduce_scatter_block (each member its block) */
extern const shmcoll_task_ops_t shmcoll_coll_reduce_flat_ops;       /* reduce_flat.c */
extern const shmcoll_task_ops_t shmcoll_coll_reduce_ma_ops;         /* reduce_ma.c */
extern const shmcoll_task_ops_t shmcoll_coll_reduce_ma2_ops;        /* reduce_ma2.c */
extern const shmcoll_task_ops_t shmcoll_coll_reduce_split_ops;      /* reduce_split.c */
extern const shmcoll_task_ops_t shmcoll_coll_reduce_knomial_ops;    /* knomial.c (reduce only) */
extern const shmcoll_task_ops_t shmcoll_coll_reduce_hier_ops;       /* hier_reduce.c */
extern const shmcoll_task_ops_t shmcoll_coll_allreduce_recexch_ops; /* recexch.c, params.factors */
extern const shmcoll_task_ops_t shmcoll_coll_allreduce_cyclic_ops;  /* cyclic.c, params.factors */

/* reduce_scatter and reduce_scatter_block */
extern const shmcoll_task_ops_t shmcoll_coll_reduce_scatter_canonical_ops; /* reduce_scatter.c */

/* scan and exscan */
extern const shmcoll_task_ops_t shmcoll_coll_scan_flat_ops; /* scan.c */

/* The data movements, each with its v-variant: the slot pipeline's and the single-copy rows (the
 * bodies of single_copy.c) share a progress, and the pipelines' v-variants agree on the longest
 * block first, then move single-copy or in rounds */
extern const shmcoll_task_ops_t shmcoll_coll_allgather_pipeline_ops; /* allgather.c */
extern const shmcoll_task_ops_t shmcoll_coll_allgather_single_ops;   /* allgather.c */
extern const shmcoll_task_ops_t shmcoll_coll_rooted_pipeline_ops;    /* rooted.c: gather, scatter */
extern const shmcoll_task_ops_t shmcoll_coll_rooted_single_ops;      /* rooted.c, + one-step */
extern const shmcoll_task_ops_t shmcoll_coll_alltoall_rotated_ops;   /* alltoall.c */
extern const shmcoll_task_ops_t shmcoll_coll_alltoall_single_ops;    /* alltoall.c */
extern const shmcoll_task_ops_t shmcoll_coll_alltoallv_one_step_ops; /* alltoall.c */

#endif
