/* Checks of the single-process unit tests.
 *
 * CHECK(cond, fmt, ...) counts one check and, when cond is false, one failure, described on
 * stderr as "FAIL file:line: message". A test whose one bug can fail thousands of checks (one per
 * element, team size or factorisation) caps the messages with check_log_limit(), so the first
 * ones stay readable; the counts stay exact. A forked child inherits the counts of its parent. */
#ifndef SHMCOLL_TESTS_CHECK_H
#define SHMCOLL_TESTS_CHECK_H

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        check_tally();                                                                             \
        if (!(cond)) check_fail(__FILE__, __LINE__, __VA_ARGS__);                                  \
    } while (0)

/* Counts one check (CHECK does). */
void check_tally(void);

/* Counts one failure and describes it, unless the log limit was reached (CHECK does). */
void check_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Describe only the first `n` failures (0: all, the default). */
void check_log_limit(long n);

/* Checks and failures counted so far. */
long check_total(void);
long check_failures(void);

#endif
