#include "proc_counts.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

int proc_open_fds(void) {
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.') n++;
    if (d) closedir(d);
    return n - 1; /* the directory's own descriptor */
}

int proc_heap_mappings(void) {
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int n = 0;
    while (f && fgets(line, sizeof line, f)) n += strstr(line, "/memfd:shmcoll-heap") != NULL;
    if (f) fclose(f);
    return n;
}

long proc_rss_shmem_kib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "RssShmem: %ld kB", &kib) == 1) break;
    if (f) fclose(f);
    return kib;
}
