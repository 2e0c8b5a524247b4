/* SHMCOLL_TUNE and tuning files: explicit choices that override the cost model.
 *
 * Grammar (the same in the variable and in a file, where newlines also separate rules and '#'
 * starts a comment):
 *     rules  := rule { ';' rule }
 *     rule   := coll ':' choice { ',' choice }
 *     choice := [ band ':' ] '@' algorithm { '|' algorithm }
 *     band   := size '-' [ size ]          sizes like 0, 512, 4k, 2M, 1g; [lo, hi) in bytes
 * e.g. "allreduce:0-4k:@flat,4k-:@ma|split;bcast:@pipeline". A choice without a band covers every
 * size; "@a|b" is a fallback chain: the first of them that supports the call serves it. "@mpi"
 * names the MPI library's own algorithm (the call goes to PMPI_*, on every member alike).
 * Bytes mean the message: bcast payload, reduction vector. Later rules win over earlier ones, the
 * variable over the file. A choice whose algorithm cannot serve a call (supports() says no) is
 * skipped for that call and the cost model decides. */
#ifndef SHMCOLL_SELECT_TUNE_H
#define SHMCOLL_SELECT_TUNE_H

#include "select/registry.h"

#include <stddef.h>

#define SHMCOLL_TUNE_MAX_RULES 128
#define SHMCOLL_TUNE_MAX_CHAIN 4

typedef struct shmcoll_tune_rule {
    shmcoll_coll_kind_t kind;
    int members;   /* the team (or group) size it applies to; 0: any */
    int nodes;     /* the nodes the communicator spans; 0: any */
    size_t lo, hi; /* [lo, hi) */
    int nalgos;
    const shmcoll_algo_t *algos[SHMCOLL_TUNE_MAX_CHAIN]; /* tried in order */
} shmcoll_tune_rule_t;

typedef struct shmcoll_tune {
    int members; /* while parsing: the team size the next rules apply to (0: any) */
    int nodes;   /* while parsing: the node count the next rules apply to (0: any) */
    int nrules;
    int file; /* a tuning file is in force (even one without rules: what it measured is shmcoll's
               * own choice everywhere) */
    shmcoll_tune_rule_t rules[SHMCOLL_TUNE_MAX_RULES];
} shmcoll_tune_t;

/* Appends the rules of `text` to `tune`. INVALID with a message naming the bad token. */
shmcoll_status_t shmcoll_tune_parse(const char *text, shmcoll_tune_t *tune, char *error,
                                    size_t error_len);

/* The last rule covering (kind, bytes) for `members` ranks on `nodes` nodes, or NULL. */
const shmcoll_tune_rule_t *shmcoll_tune_lookup(const shmcoll_tune_t *tune, shmcoll_coll_kind_t kind,
                                               size_t bytes, int members, int nodes);

/* ---- Tuning files -----------------------------------------------------------------------------
 * A file holds rules as SHMCOLL_TUNE does, and two kinds of lines of its own:
 *     # fingerprint: <text>   the machine and MPI library it was measured on (shmcoll-tune writes
 *                             it): a file whose fingerprint is not this process's is ignored, with
 *                             one line under SHMCOLL_VERBOSE=1;
 *     # members: <n>          the rules after it apply to teams of n members only (a section per
 *                             team size measured; 0 or none: every size);
 *     # nodes: <n>            ... and to communicators spanning n nodes only (1: within one node;
 *                             0 or none: any), for rules measured across nodes.
 * The file is SHMCOLL_TUNE_FILE, else the default one (shmcoll_tune_default_path) when it exists.
 */

/* The default tuning file: $SHMCOLL_TUNE_DIR/shmcoll.tune, else
 * ${XDG_CACHE_HOME:-$HOME/.cache}/shmcoll/shmcoll.tune; 0 when no directory is known. */
int shmcoll_tune_default_path(char *path, size_t len);

/* What the running process is, for fingerprints: "cpu=<model>; cores=<n>; caches=<L2>/<L3> KiB;
 * mpi=<library>; shmcoll=<version>". `mpi_library` is the MPI library's own version line (set by
 * the MPI layer, shmcoll_tune_set_mpi_library; "none" without one). */
void shmcoll_tune_fingerprint(char *out, size_t len);
void shmcoll_tune_set_mpi_library(const char *line);

/* The rules of the tuning file then SHMCOLL_TUNE, parsed when either setting changes. A bad
 * setting is reported once as an error naming the token, and ignored (the model decides). */
const shmcoll_tune_t *shmcoll_tune_current(void);

/* A hash of the rules in force (and whether a file is), alike on every process that runs the same
 * rules whatever the variables or file paths that gave them (mpi/agree.h compares them). */
uint64_t shmcoll_tune_digest(const shmcoll_tune_t *tune);

#endif
