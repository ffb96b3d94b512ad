/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The daemon's log: the journal in production (structured, with CODE_*),
 * stderr in tests and interactive runs, one line per message, with the same
 * structured fields written as KEY=value so tests can assert on them.
 * Daemon code only: the guard library never logs. */

#include <stdarg.h>
#include <sys/uio.h>
#include <syslog.h>

#include "util/macro.h"

typedef enum LogTarget {
        LOG_TARGET_AUTO,    /* journal when started by systemd with its stream, else stderr */
        LOG_TARGET_JOURNAL,
        LOG_TARGET_STDERR,
        _LOG_TARGET_MAX,
        _LOG_TARGET_INVALID = -EINVAL,
} LogTarget;

void log_set_target(LogTarget t);
LogTarget log_get_target(void); /* resolved: never AUTO */
LogTarget log_target_from_string(const char *s);
void log_set_max_level(int level);

/* Logs and returns -abs(error) (or 0 when error is 0); %m prints error. */
int log_internal(int level, int error, const char *file, int line, const char *func, const char *fmt, ...)
        _printf_(6, 7);
/* Sends the given "KEY=value" fields plus MESSAGE and PRIORITY. */
int log_structured_iov(int level, const struct iovec *fields, size_t n_fields, const char *message);

#define log_full_errno(level, error, ...) log_internal((level), (error), __FILE__, __LINE__, __func__, __VA_ARGS__)
#define log_debug(...) log_full_errno(LOG_DEBUG, 0, __VA_ARGS__)
#define log_info(...) log_full_errno(LOG_INFO, 0, __VA_ARGS__)
#define log_notice(...) log_full_errno(LOG_NOTICE, 0, __VA_ARGS__)
#define log_warning(...) log_full_errno(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...) log_full_errno(LOG_ERR, 0, __VA_ARGS__)
#define log_debug_errno(e, ...) log_full_errno(LOG_DEBUG, (e), __VA_ARGS__)
#define log_warning_errno(e, ...) log_full_errno(LOG_WARNING, (e), __VA_ARGS__)
#define log_error_errno(e, ...) log_full_errno(LOG_ERR, (e), __VA_ARGS__)
#define log_oom() log_error_errno(ENOMEM, "Out of memory.")
