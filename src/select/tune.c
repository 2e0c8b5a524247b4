#include "select/tune.h"
#include "base/config.h"
#include "base/log.h"
#include "shmcoll.h"

#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    shmcoll_tune_rule_t rule = {
        .kind = kind, .members = tune->members, .nodes = tune->nodes, .lo = 0, .hi = SIZE_MAX};
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

/* The value of a "# <name>: <value>" line, or NULL. */
static const char *directive(const char *line, const char *name) {
    while (isspace((unsigned char)*line)) line++;
    if (*line++ != '#') return NULL;
    while (*line == ' ') line++;
    const size_t n = strlen(name);
    if (strncmp(line, name, n) || line[n] != ':') return NULL;
    line += n + 1;
    while (*line == ' ') line++;
    return line;
}

shmcoll_status_t shmcoll_tune_parse(const char *text, shmcoll_tune_t *tune, char *error,
                                    size_t error_len) {
    /* Line by line: "# members: n" directives; otherwise spaces and comments dropped, rules
     * separated by ';'. */
    char *copy = strdup(text);
    if (!copy) return SHMCOLL_ERR_NO_MEMORY;
    shmcoll_status_t status = SHMCOLL_OK;
    char *next = copy;
    while (next && status == SHMCOLL_OK) {
        char *line = next, *newline = strchr(line, '\n');
        if (newline) *newline = '\0';
        next = newline ? newline + 1 : NULL;
        const char *members = directive(line, "members"), *nodes = directive(line, "nodes");
        if (members || nodes) {
            *(members ? &tune->members : &tune->nodes) = atoi(members ? members : nodes);
            continue;
        }
        char *w = line;
        for (const char *r = line; *r && *r != '#'; r++)
            if (!isspace((unsigned char)*r)) *w++ = *r;
        *w = '\0';
        for (char *s = line; *s && status == SHMCOLL_OK;) {
            char *semi = strchr(s, ';');
            char *end = semi ? semi : s + strlen(s);
            if (end > s) status = parse_rule(s, end, tune, error, error_len);
            s = semi ? semi + 1 : end;
        }
    }
    free(copy);
    return status;
}

const shmcoll_tune_rule_t *shmcoll_tune_lookup(const shmcoll_tune_t *tune, shmcoll_coll_kind_t kind,
                                               size_t bytes, int members, int nodes) {
    for (int i = tune->nrules - 1; i >= 0; i--) {
        const shmcoll_tune_rule_t *r = &tune->rules[i];
        if (r->kind == kind && (!r->members || r->members == members) &&
            (!r->nodes || r->nodes == nodes) && bytes >= r->lo && bytes < r->hi)
            return r;
    }
    return NULL;
}

static pthread_mutex_t tune_lock = PTHREAD_MUTEX_INITIALIZER;
static shmcoll_tune_t current;
static char *current_key; /* "<file>\n<variable>" the rules were parsed from */
static char mpi_library[160] = "none";

int shmcoll_tune_default_path(char *path, size_t len) {
    const char *dir = getenv("SHMCOLL_TUNE_DIR"), *cache = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (dir && *dir)
        n = snprintf(path, len, "%s/shmcoll.tune", dir);
    else if (cache && *cache)
        n = snprintf(path, len, "%s/shmcoll/shmcoll.tune", cache);
    else if (home && *home)
        n = snprintf(path, len, "%s/.cache/shmcoll/shmcoll.tune", home);
    else
        return 0;
    return n > 0 && (size_t)n < len;
}

void shmcoll_tune_set_mpi_library(const char *line) {
    pthread_mutex_lock(&tune_lock);
    size_t n = 0; /* blanks folded into one space, so the fingerprint is one plain line */
    for (const char *c = line; *c && n + 1 < sizeof mpi_library; c++) {
        const int blank = isspace((unsigned char)*c);
        if (blank && (n == 0 || mpi_library[n - 1] == ' ')) continue;
        mpi_library[n++] = blank ? ' ' : *c;
    }
    mpi_library[n] = '\0';
    pthread_mutex_unlock(&tune_lock);
}

/* The first line of `path` starting with `key`, what follows it (trimmed), or "?". */
static void file_field(const char *path, const char *key, char *out, size_t len) {
    snprintf(out, len, "?");
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[512];
    const size_t n = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, n)) continue;
        const char *v = line + n;
        while (*v == ' ' || *v == '\t' || *v == ':') v++;
        snprintf(out, len, "%s", v);
        out[strcspn(out, "\n")] = '\0';
        break;
    }
    fclose(f);
}

void shmcoll_tune_fingerprint(char *out, size_t len) {
    char cpu[128], l2[32], l3[32];
    file_field("/proc/cpuinfo", "model name", cpu, sizeof cpu);
    file_field("/sys/devices/system/cpu/cpu0/cache/index2/size", "", l2, sizeof l2);
    file_field("/sys/devices/system/cpu/cpu0/cache/index3/size", "", l3, sizeof l3);
    snprintf(out, len, "cpu=%s; cores=%ld; caches=%s/%s; mpi=%s; shmcoll=%s", cpu,
             sysconf(_SC_NPROCESSORS_ONLN), l2, l3, mpi_library, SHMCOLL_VERSION_STRING);
}

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

/* Whether the file `text` was measured here: its fingerprint line is this process's. */
static int measured_here(const char *text, const char *path) {
    char mine[512];
    shmcoll_tune_fingerprint(mine, sizeof mine);
    for (const char *line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        const char *theirs = directive(line, "fingerprint");
        if (!theirs) continue;
        const size_t n = strcspn(theirs, "\n");
        if (n == strlen(mine) && !strncmp(theirs, mine, n)) return 1;
        shmcoll_log_verbose("tuning file %s was measured elsewhere (%.*s; here: %s): ignored", path,
                            (int)n, theirs, mine);
        return 0;
    }
    shmcoll_log_verbose("tuning file %s has no fingerprint: ignored", path);
    return 0;
}

/* The rules of the tuning file (SHMCOLL_TUNE_FILE, or the default one when it exists and was
 * measured here) into `tune`. */
static int load_file(const char *configured, shmcoll_tune_t *tune) {
    char path[4096];
    const int chosen = *configured;
    if (chosen)
        snprintf(path, sizeof path, "%s", configured);
    else if (!shmcoll_tune_default_path(path, sizeof path))
        return 0;
    char *text = read_file(path);
    if (!text) {
        if (chosen) shmcoll_log_error("SHMCOLL_TUNE_FILE: cannot read %s; ignored", path);
        return 0;
    }
    char error[256] = "";
    /* A file named by the user applies whatever its fingerprint; the default one only here. */
    int applies = chosen || measured_here(text, path);
    if (applies && shmcoll_tune_parse(text, tune, error, sizeof error) != SHMCOLL_OK) {
        shmcoll_log_error("%s (in %s); tuning file ignored", error, path);
        tune->nrules = 0;
        applies = 0;
    }
    tune->members = tune->nodes = 0;
    free(text);
    return applies;
}

const shmcoll_tune_t *shmcoll_tune_current(void) {
    const shmcoll_config_t *config = shmcoll_config();
    char key[4096];
    snprintf(key, sizeof key, "%s\n%s", config->tune_file, config->tune);
    pthread_mutex_lock(&tune_lock);
    if (!current_key || strcmp(current_key, key)) {
        current.nrules = current.members = current.nodes = 0;
        current.file = load_file(config->tune_file, &current);
        const int from_file = current.nrules;
        char error[256] = "";
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

uint64_t shmcoll_tune_digest(const shmcoll_tune_t *tune) {
    uint64_t h = shmcoll_config_hash(SHMCOLL_CONFIG_HASH_SEED, &tune->file, sizeof tune->file);
    for (int i = 0; i < tune->nrules; i++) {
        const shmcoll_tune_rule_t *r = &tune->rules[i];
        const uint64_t fields[] = {
            (uint64_t)r->kind,  (uint64_t)r->members, (uint64_t)r->nodes, r->lo, r->hi,
            (uint64_t)r->nalgos};
        h = shmcoll_config_hash(h, fields, sizeof fields);
        for (int a = 0; a < r->nalgos; a++)
            h = shmcoll_config_hash(h, r->algos[a]->name, strlen(r->algos[a]->name) + 1);
    }
    return h;
}
