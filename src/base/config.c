#include "base/config.h"
#include "base/log.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

shmcoll_config_t shmcoll_config_values;
atomic_int shmcoll_config_loaded;
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

long long shmcoll_config_parse_size(const char *text) {
    char *end;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (errno || end == text || value < 0) return -1;
    switch (tolower((unsigned char)*end)) {
    case 'k':
        value <<= 10, end++;
        break;
    case 'm':
        value <<= 20, end++;
        break;
    case 'g':
        value <<= 30, end++;
        break;
    default:
        break;
    }
    if (*end == 'b' || *end == 'B') end++;
    return *end ? -1 : value;
}

static const char *knob_text(const char *env, const char *deflt) {
    const char *value = getenv(env);
    return value && *value ? value : deflt;
}

/* A malformed value is reported and replaced by the default: a typo must not change behaviour
 * silently, but it must not abort a production job either. */
static void parse_knob(const char *env, const char *kind, const char *deflt, void *field) {
    const char *text = knob_text(env, deflt);
    char *end;
    if (!strcmp(kind, "STRING")) {
        *(const char **)field = text;
    } else if (!strcmp(kind, "BOOL") || !strcmp(kind, "INT")) {
        long value = strtol(text, &end, 10);
        if (end == text || *end) {
            shmcoll_log_warn("%s=%s is not an integer; using %s", env, text, deflt);
            value = strtol(deflt, NULL, 10);
        }
        if (!strcmp(kind, "BOOL"))
            *(int *)field = value != 0;
        else
            *(long *)field = value;
    } else if (!strcmp(kind, "SECONDS")) {
        double value = strtod(text, &end);
        if (end == text || *end || !(value >= 0)) { /* negative or NaN */
            shmcoll_log_warn("%s=%s is not a number of seconds (0: no limit); using %s", env, text,
                             deflt);
            value = strtod(deflt, NULL);
        }
        /* Compared with waits as it is: no limit never passes. */
        *(double *)field = value > 0 ? value : INFINITY;
    } else { /* SIZE */
        long long value = shmcoll_config_parse_size(text);
        if (value <= 0) {
            shmcoll_log_warn("%s=%s is not a size (e.g. 64k, 1M); using %s", env, text, deflt);
            value = shmcoll_config_parse_size(deflt);
        }
        *(size_t *)field = (size_t)value;
    }
}

void shmcoll_config_reload(void) {
#define PARSE_KNOB(field, env, kind, scope, deflt, doc)                                            \
    parse_knob(env, #kind, deflt, &shmcoll_config_values.field);
    SHMCOLL_KNOBS(PARSE_KNOB)
#undef PARSE_KNOB
    shmcoll_log_set_verbose(shmcoll_config_values.verbose);
}

static void load_once(void) {
    shmcoll_config_reload();
    atomic_store_explicit(&shmcoll_config_loaded, 1, memory_order_release);
}

const shmcoll_config_t *shmcoll_config_load(void) {
    pthread_once(&config_once, load_once);
    return &shmcoll_config_values;
}

int shmcoll_config_knob(int index, const char **env, const char **deflt, const char **scope,
                        const char **doc) {
    static const struct {
        const char *env, *deflt, *scope, *doc;
    } table[] = {
#define KNOB_ROW(field, env, kind, scope, deflt, doc) {env, deflt, #scope, doc},
        SHMCOLL_KNOBS(KNOB_ROW)
#undef KNOB_ROW
    };
    if (index < 0 || index >= (int)(sizeof table / sizeof table[0])) return 0;
    *env = table[index].env;
    *deflt = table[index].deflt;
    *scope = table[index].scope;
    *doc = table[index].doc;
    return 1;
}

/* FNV-1a over `bytes` bytes, continuing from `hash`. */
uint64_t shmcoll_config_hash(uint64_t hash, const void *bytes, size_t n) {
    const unsigned char *p = bytes;
    for (size_t i = 0; i < n; i++) hash = (hash ^ p[i]) * 0x100000001b3ull;
    return hash;
}

/* A knob's value of `kind` at `field`, hashed. */
static uint64_t value_hash(const char *kind, const void *field) {
    if (!strcmp(kind, "STRING")) {
        const char *text = *(const char *const *)field;
        return shmcoll_config_hash(SHMCOLL_CONFIG_HASH_SEED, text ? text : "",
                                   text ? strlen(text) : 0);
    }
    const size_t bytes = !strcmp(kind, "BOOL")      ? sizeof(int)
                         : !strcmp(kind, "INT")     ? sizeof(long)
                         : !strcmp(kind, "SECONDS") ? sizeof(double)
                                                    : sizeof(size_t);
    return shmcoll_config_hash(SHMCOLL_CONFIG_HASH_SEED, field, bytes);
}

int shmcoll_config_scope(const char *scope, const char **envs, uint64_t *hashes, int max) {
    const shmcoll_config_t *c = shmcoll_config();
    int n = 0;
#define SCOPE_KNOB(field, env, kind, knob_scope, deflt, doc)                                       \
    if (!strcmp(#knob_scope, scope) && n < max) {                                                  \
        envs[n] = env;                                                                             \
        hashes[n++] = value_hash(#kind, &c->field);                                                \
    }
    SHMCOLL_KNOBS(SCOPE_KNOB)
#undef SCOPE_KNOB
    return n;
}
