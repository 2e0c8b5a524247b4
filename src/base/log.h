/* Logging: every message is one line on stderr, prefixed "shmcoll" and, once known, the rank in
 * MPI_COMM_WORLD (or the test's process index), so interleaved output of many ranks stays legible.
 */
#ifndef SHMCOLL_BASE_LOG_H
#define SHMCOLL_BASE_LOG_H

/* Set the rank printed in messages (-1: unknown). */
void shmcoll_log_set_rank(int rank);

/* Whether shmcoll_log_verbose prints (set from SHMCOLL_VERBOSE whenever the knobs are read). */
void shmcoll_log_set_verbose(int verbose);

void shmcoll_log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void shmcoll_log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Printed only with SHMCOLL_VERBOSE=1. */
void shmcoll_log_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
