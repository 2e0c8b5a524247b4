/* Who leads a group that spans nodes, and how its layout reads. See leaders.h. */
#include "group/leaders.h"

#include <stdio.h>
#include <string.h>

int shmcoll_group_leaders(const shmcoll_group_map_t *map, long asked, int cpus_shared) {
    if (asked <= 0) asked = cpus_shared ? 1 : 2;
    int smallest = map->size;
    for (int n = 0; n < map->nnodes; n++)
        smallest = map->node_size[n] < smallest ? map->node_size[n] : smallest;
    if (asked > smallest) asked = smallest;
    if (asked > SHMCOLL_NET_MAX_CHANNELS) asked = SHMCOLL_NET_MAX_CHANNELS;
    return asked < 1 ? 1 : (int)asked;
}

/* Appends `text` to buf at *at (snprintf's rules), counting its whole length. */
static void append(char *buf, size_t len, size_t *at, const char *text) {
    if (*at < len) snprintf(buf + *at, len - *at, "%s", text);
    *at += strlen(text);
}

size_t shmcoll_group_format_ranks(const int *ranks, int count, char *buf, size_t len) {
    size_t at = 0;
    if (len) buf[0] = '\0';
    for (int i = 0; i < count;) {
        /* The run from i with the stride of its first step. */
        int j = i + 1;
        const int stride = j < count ? ranks[j] - ranks[i] : 0;
        while (j + 1 < count && ranks[j + 1] - ranks[j] == stride) j++;
        char item[48];
        const char *sep = i ? "," : "";
        if (stride == 1 && j > i) {
            snprintf(item, sizeof item, "%s%d-%d", sep, ranks[i], ranks[j]);
        } else if (stride > 1 && j - i >= 3) {
            snprintf(item, sizeof item, "%s%d,%d,...,%d", sep, ranks[i], ranks[i] + stride,
                     ranks[j]);
        } else {
            snprintf(item, sizeof item, "%s%d", sep, ranks[i]);
            j = i;
        }
        append(buf, len, &at, item);
        i = j + 1;
    }
    return at;
}
