/* Counts and messages of the unit tests' CHECK; see check.h. */
#include "check.h"

#include <stdarg.h>
#include <stdio.h>

static long checks, failures, log_limit;

void check_tally(void) {
    checks++;
}

void check_fail(const char *file, int line, const char *fmt, ...) {
    failures++;
    if (log_limit && failures > log_limit) return;
    va_list args;
    va_start(args, fmt);
    fprintf(stderr, "FAIL %s:%d: ", file, line);
    vfprintf(stderr, fmt, args);
    fputc('\n', stderr);
    va_end(args);
}

void check_log_limit(long n) {
    log_limit = n;
}

long check_total(void) {
    return checks;
}

long check_failures(void) {
    return failures;
}
