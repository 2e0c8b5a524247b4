#include "select/tune.h"
#include "base/config.h"
#include "base/log.h"

#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_size(const char *text, size_t len, size_t *out) {
    char buf[32];
    if (len == 0 || len >= sizeof buf) return 0;
    memcpy(buf, text, len);
    buf[len] = '\0';
    long long v = shmcoll_config_parse_size(buf);
    if (v < 0) return 0;
    *out = (size_t)v;
    return 1;
}

static shmcoll_status_t bad(char *error, size_t len, const char *what, const char *tok,
                            size_t toklen) {
    snprintf(error, len, "SHMCOLL_TUNE: %s '%.*s'", what, (int)toklen, tok);
    return SHMCOLL_ERR_INVALID;
}

/* One choice "[band:]@algo" of `kind`, the text [s, e). */
static shmcoll_status_t parse_choice(const char *s, const char *e, shmcoll_coll_kind_t kind,
                                     shmcoll_tune_t *tune, char *error, size_t len) {
    shmcoll_tune_rule_t rule = {.kind = kind, .lo = 0, .hi = SIZE_MAX};
    const char *at = memchr(s, '@', (size_t)(e - s));
    if (!at) return bad(error, len, "a choice needs '@algorithm':", s, (size_t)(e - s));
    if (at > s) {
        const char *band_end = at - 1; /* the ':' before '@' */
        const char *dash = memchr(s, '-', (size_t)(band_end - s));
        if (*band_end != ':' || !dash)
            return bad(error, len, "bad size band (want lo-hi:@algo):", s, (size_t)(at - s));
        if (!parse_size(s, (size_t)(dash - s), &rule.lo))
            return bad(error, len, "bad size", s, (size_t)(dash - s));
        if (dash + 1 < band_end && !parse_size(dash + 1, (size_t)(band_end - dash - 1), &rule.hi))
            return bad(error, len, "bad size", dash + 1, (size_t)(band_end - dash - 1));
        if (rule.hi <= rule.lo) return bad(error, len, "empty size band", s, (size_t)(at - s));
    }
    for (const char *a = at + 1; a <= e;) {
        const char *bar = memchr(a, '|', (size_t)(e - a));
        const char *end = bar ? bar : e;
        char name[64];
        size_t n = (size_t)(end - a);
        if (n && *a == '@') a++, n--; /* "@a|@b" is accepted too */
        if (n == 0 || n >= sizeof name)
            return bad(error, len, "bad algorithm", at, (size_t)(e - at));
        memcpy(name, a, n);
        name[n] = '\0';
        const shmcoll_algo_t *algo = shmcoll_algo_find(kind, name);
        if (!algo) {
            snprintf(error, len, "SHMCOLL_TUNE: no algorithm '@%s' for %s (see shmcoll-info)", name,
                     shmcoll_coll_kind_name(kind));
            return SHMCOLL_ERR_INVALID;
        }
        if (rule.nalgos == SHMCOLL_TUNE_MAX_CHAIN)
            return bad(error, len, "fallback chain too long:", at, (size_t)(e - at));
        rule.algos[rule.nalgos++] = algo;
        a = end + 1;
    }
    if (tune->nrules == SHMCOLL_TUNE_MAX_RULES)
        return bad(error, len, "too many rules at", s, (size_t)(e - s));
    tune->rules[tune->nrules++] = rule;
    return SHMCOLL_OK;
}

/* One rule "coll:choice,choice", the text [s, e) without spaces. */
static shmcoll_status_t parse_rule(const char *s, const char *e, shmcoll_tune_t *tune, char *error,
                                   size_t len) {
    const char *colon = memchr(s, ':', (size_t)(e - s));
    if (!colon) return bad(error, len, "a rule needs 'collective:'", s, (size_t)(e - s));
    char name[32];
    size_t n = (size_t)(colon - s);
    if (n >= sizeof name) return bad(error, len, "unknown collective", s, n);
    memcpy(name, s, n);
    name[n] = '\0';
    int kind = shmcoll_coll_kind_parse(name);
    if (kind < 0) return bad(error, len, "unknown collective", s, n);
    for (const char *c = colon + 1; c < e;) {
        const char *comma = memchr(c, ',', (size_t)(e - c));
        const char *end = comma ? comma : e;
        SHMCOLL_CHECK(parse_choice(c, end, (shmcoll_coll_kind_t)kind, tune, error, len));
        c = end + 1;
    }
    return SHMCOLL_OK;
}

shmcoll_status_t shmcoll_tune_parse(const char *text, shmcoll_tune_t *tune, char *error,
                                    size_t error_len) {
    /* Drop spaces and comments; rules end at ';' or a newline. */
    size_t cap = strlen(text) + 1;
    char *clean = malloc(cap), *w = clean;
    if (!clean) return SHMCOLL_ERR_NO_MEMORY;
    for (const char *r = text; *r; r++) {
        if (*r == '#')
            while (r[1] && r[1] != '\n') r++;
        else if (*r == '\n')
            *w++ = ';';
        else if (!isspace((unsigned char)*r))
            *w++ = *r;
    }
    *w = '\0';
    shmcoll_status_t status = SHMCOLL_OK;
    for (char *s = clean; *s && status == SHMCOLL_OK;) {
        char *semi = strchr(s, ';');
        char *end = semi ? semi : s + strlen(s);
        if (end > s) status = parse_rule(s, end, tune, error, error_len);
        s = semi ? semi + 1 : end;
    }
    free(clean);
    return status;
}

const shmcoll_tune_rule_t *shmcoll_tune_lookup(const shmcoll_tune_t *tune, shmcoll_coll_kind_t kind,
                                               size_t bytes) {
    for (int i = tune->nrules - 1; i >= 0; i--) {
        const shmcoll_tune_rule_t *r = &tune->rules[i];
        if (r->kind == kind && bytes >= r->lo && bytes < r->hi) return r;
    }
    return NULL;
}

static pthread_mutex_t tune_lock = PTHREAD_MUTEX_INITIALIZER;
static shmcoll_tune_t current;
static char *current_key; /* "<file>\n<variable>" the rules were parsed from */

static char *read_file(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    int c;
    while (mem && (c = fgetc(f)) != EOF) fputc(c, mem);
    if (mem) fclose(mem);
    fclose(f);
    return text;
}

const shmcoll_tune_t *shmcoll_tune_current(void) {
    const shmcoll_config_t *config = shmcoll_config();
    char key[4096];
    snprintf(key, sizeof key, "%s\n%s", config->tune_file, config->tune);
    pthread_mutex_lock(&tune_lock);
    if (!current_key || strcmp(current_key, key)) {
        current.nrules = 0;
        char error[256] = "";
        shmcoll_status_t status = SHMCOLL_OK;
        if (*config->tune_file) {
            char *text = read_file(config->tune_file);
            if (!text) {
                shmcoll_log_error("SHMCOLL_TUNE_FILE: cannot read %s; ignored", config->tune_file);
            } else {
                status = shmcoll_tune_parse(text, &current, error, sizeof error);
                if (status != SHMCOLL_OK)
                    shmcoll_log_error("%s (in %s); tuning file ignored", error, config->tune_file);
                free(text);
            }
        }
        if (status != SHMCOLL_OK) current.nrules = 0;
        int from_file = current.nrules;
        if (shmcoll_tune_parse(config->tune, &current, error, sizeof error) != SHMCOLL_OK) {
            shmcoll_log_error("%s; SHMCOLL_TUNE ignored", error);
            current.nrules = from_file;
        }
        free(current_key);
        current_key = strdup(key);
    }
    pthread_mutex_unlock(&tune_lock);
    return &current;
}
