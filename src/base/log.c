#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>

static int log_rank = -1;
static int log_verbose;

void shmcoll_log_set_rank(int rank) {
    log_rank = rank;
}

void shmcoll_log_set_verbose(int verbose) {
    log_verbose = verbose;
}

static void log_line(const char *level, const char *fmt, va_list args) {
    char text[1024];
    vsnprintf(text, sizeof text, fmt, args);
    /* One fprintf per line: stderr is unbuffered, so this keeps lines of different ranks whole. */
    if (log_rank >= 0)
        fprintf(stderr, "shmcoll[%d]: %s%s\n", log_rank, level, text);
    else
        fprintf(stderr, "shmcoll: %s%s\n", level, text);
}

void shmcoll_log_error(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    log_line("error: ", fmt, args);
    va_end(args);
}

void shmcoll_log_warn(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    log_line("warning: ", fmt, args);
    va_end(args);
}

void shmcoll_log_verbose(const char *fmt, ...) {
    if (!log_verbose) return;
    va_list args;
    va_start(args, fmt);
    log_line("", fmt, args);
    va_end(args);
}
