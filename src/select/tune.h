/* SHMCOLL_TUNE and tuning files: explicit choices that override the cost model.
 *
 * Grammar (the same in the variable and in a file, where newlines also separate rules and '#'
 * starts a comment):
 *     rules  := rule { ';' rule }
 *     rule   := coll ':' choice { ',' choice }
 *     choice := [ band ':' ] '@' algorithm { '|' algorithm }
 *     band   := size '-' [ size ]          sizes like 0, 512, 4k, 2M, 1g; [lo, hi) in bytes
 * e.g. "allreduce:0-4k:@flat,4k-:@ma|split;bcast:@pipeline". A choice without a band covers every
 * size; "@a|b" is a fallback chain: the first of them that supports the call serves it.
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
    size_t lo, hi; /* [lo, hi) */
    int nalgos;
    const shmcoll_algo_t *algos[SHMCOLL_TUNE_MAX_CHAIN]; /* tried in order */
} shmcoll_tune_rule_t;

typedef struct shmcoll_tune {
    int nrules;
    shmcoll_tune_rule_t rules[SHMCOLL_TUNE_MAX_RULES];
} shmcoll_tune_t;

/* Appends the rules of `text` to `tune`. INVALID with a message naming the bad token. */
shmcoll_status_t shmcoll_tune_parse(const char *text, shmcoll_tune_t *tune, char *error,
                                    size_t error_len);

/* The last rule covering (kind, bytes), or NULL. */
const shmcoll_tune_rule_t *shmcoll_tune_lookup(const shmcoll_tune_t *tune, shmcoll_coll_kind_t kind,
                                               size_t bytes);

/* The rules of SHMCOLL_TUNE_FILE then SHMCOLL_TUNE, parsed when either setting changes. A bad
 * setting is reported once as an error naming the token, and ignored (the model decides). */
const shmcoll_tune_t *shmcoll_tune_current(void);

#endif
