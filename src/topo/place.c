/* Level names and the sensitivity-list parser. */
#include "topo/place.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const kind_names[SHMCOLL_TOPO_NKINDS] = {"core", "l1",     "l2",  "l3",
                                                            "numa", "socket", "node"};

void shmcoll_topo_place_unknown(shmcoll_topo_place_t *place) {
    place->pu = -1;
    for (int k = 0; k < SHMCOLL_TOPO_NKINDS; k++) place->obj[k] = -1;
}

const char *shmcoll_topo_kind_name(shmcoll_topo_kind_t kind) {
    return kind >= 0 && kind < SHMCOLL_TOPO_NKINDS ? kind_names[kind] : "?";
}

/* A sensitivity token: the level names except "node" (the top level is always there), and the
 * hwloc spellings of the package. */
static int token_kind(const char *token, size_t len, shmcoll_topo_kind_t *kind) {
    static const struct {
        const char *name;
        shmcoll_topo_kind_t kind;
    } names[] = {{"core", SHMCOLL_TOPO_CORE},      {"l1", SHMCOLL_TOPO_L1},
                 {"l2", SHMCOLL_TOPO_L2},          {"l3", SHMCOLL_TOPO_L3},
                 {"numa", SHMCOLL_TOPO_NUMA},      {"socket", SHMCOLL_TOPO_SOCKET},
                 {"package", SHMCOLL_TOPO_SOCKET}, {"pack", SHMCOLL_TOPO_SOCKET}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].name) == len && strncasecmp(token, names[i].name, len) == 0) {
            *kind = names[i].kind;
            return 1;
        }
    return 0;
}

shmcoll_status_t shmcoll_topo_levels_parse(const char *list, shmcoll_topo_kind_t *kinds,
                                           int *nkinds, char *error, size_t error_len) {
    *nkinds = 0;
    const char *s = list ? list : "";
    while (*s) {
        while (isspace((unsigned char)*s)) s++;
        const char *start = s;
        while (*s && *s != ',' && *s != '+' && !isspace((unsigned char)*s)) s++;
        size_t len = (size_t)(s - start);
        while (isspace((unsigned char)*s)) s++;
        if (len == 0 && !*s && *nkinds == 0) break; /* blank list */
        shmcoll_topo_kind_t kind;
        if (len == 0 || !token_kind(start, len, &kind)) {
            snprintf(error, error_len,
                     "bad topology level '%.*s' in \"%s\": expected core, l1, l2, l3, numa or "
                     "socket, separated by ','",
                     (int)len, start, list);
            return SHMCOLL_ERR_INVALID;
        }
        if (*nkinds == SHMCOLL_TOPO_MAX_LEVELS) {
            snprintf(error, error_len, "more than %d levels in \"%s\"", SHMCOLL_TOPO_MAX_LEVELS,
                     list);
            return SHMCOLL_ERR_INVALID;
        }
        kinds[(*nkinds)++] = kind;
        if (*s == ',' || *s == '+') {
            s++;
            if (!*s) { /* trailing separator */
                snprintf(error, error_len, "bad topology level '' at the end of \"%s\"", list);
                return SHMCOLL_ERR_INVALID;
            }
        } else if (*s) {
            /* two names separated only by spaces */
            snprintf(error, error_len, "missing ',' before '%s' in \"%s\"", s, list);
            return SHMCOLL_ERR_INVALID;
        }
    }
    return SHMCOLL_OK;
}
