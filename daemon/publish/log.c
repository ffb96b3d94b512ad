/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-journal.h>

#include "publish/log.h"
#include "util/escape.h"

static LogTarget target = LOG_TARGET_AUTO;
static int max_level = LOG_INFO;

void log_set_target(LogTarget t) {
        target = t;
}

LogTarget log_get_target(void) {
        if (target == LOG_TARGET_AUTO)
                /* systemd sets JOURNAL_STREAM when stderr goes to the journal:
                 * then speak to the journal natively, with fields. */
                target = getenv("JOURNAL_STREAM") ? LOG_TARGET_JOURNAL : LOG_TARGET_STDERR;
        return target;
}

LogTarget log_target_from_string(const char *s) {
        if (!s)
                return _LOG_TARGET_INVALID;
        if (streq(s, "auto"))
                return LOG_TARGET_AUTO;
        if (streq(s, "journal"))
                return LOG_TARGET_JOURNAL;
        if (streq(s, "stderr") || streq(s, "console"))
                return LOG_TARGET_STDERR;
        return _LOG_TARGET_INVALID;
}

void log_set_max_level(int level) {
        max_level = level;
}

static const char *level_name(int level) {
        static const char *const names[] = { "emerg", "alert", "crit", "error", "warning", "notice", "info", "debug" };

        return level >= 0 && level < (int) ELEMENTSOF(names) ? names[level] : "info";
}

/* stderr: "<level>: message [KEY=value ...]" on one line; values with
 * newlines have them replaced so one entry stays one line. */
static void write_stderr(int level, const struct iovec *fields, size_t n, const char *message) {
        fprintf(stderr, "nvme-swapguard[%d] %s: %s", (int) getpid(), level_name(level), message);
        for (size_t i = 0; i < n; i++) {
                fputc(' ', stderr);
                for (size_t j = 0; j < fields[i].iov_len; j++) {
                        char c = ((const char *) fields[i].iov_base)[j];
                        fputc(c == '\n' ? ' ' : c, stderr);
                }
        }
        fputc('\n', stderr);
        fflush(stderr);
}

int log_structured_iov(int level, const struct iovec *fields, size_t n, const char *raw_message) {
        _cleanup_free_ char *msg = NULL, *prio = NULL, *message = NULL;
        struct iovec iov[n + 2];

        if (level > max_level)
                return 0;
        /* MESSAGE= is read as lines of text; the SWAPGUARD_* fields keep the
         * exact bytes (the journal's fields are binary-safe). */
        message = escape_control(raw_message);
        if (!message)
                return -ENOMEM;
        if (log_get_target() == LOG_TARGET_STDERR) {
                write_stderr(level, fields, n, message);
                return 0;
        }
        if (asprintf(&msg, "MESSAGE=%s", message) < 0 || asprintf(&prio, "PRIORITY=%d", level) < 0)
                return -ENOMEM;
        memcpy(iov, fields, n * sizeof(struct iovec));
        iov[n] = (struct iovec) { .iov_base = msg, .iov_len = strlen(msg) };
        iov[n + 1] = (struct iovec) { .iov_base = prio, .iov_len = strlen(prio) };
        if (sd_journal_sendv(iov, (int) n + 2) < 0)
                write_stderr(level, fields, n, message); /* journald gone: still say it */
        return 0;
}

int log_internal(int level, int error, const char *file, int line, const char *func, const char *fmt, ...) {
        _cleanup_free_ char *message = NULL, *f_file = NULL, *f_line = NULL, *f_func = NULL, *f_errno = NULL;
        int saved = errno, n = 0;
        struct iovec iov[4];
        va_list ap;

        if (error < 0)
                error = -error;
        if (level > max_level)
                return -error;

        errno = error; /* for %m */
        va_start(ap, fmt);
        if (vasprintf(&message, fmt, ap) < 0)
                message = NULL;
        va_end(ap);
        errno = saved;
        if (!message)
                return -error;

        if (log_get_target() == LOG_TARGET_JOURNAL) {
                if (asprintf(&f_file, "CODE_FILE=%s", file) >= 0)
                        iov[n++] = (struct iovec) { .iov_base = f_file, .iov_len = strlen(f_file) };
                if (asprintf(&f_line, "CODE_LINE=%d", line) >= 0)
                        iov[n++] = (struct iovec) { .iov_base = f_line, .iov_len = strlen(f_line) };
                if (asprintf(&f_func, "CODE_FUNC=%s", func) >= 0)
                        iov[n++] = (struct iovec) { .iov_base = f_func, .iov_len = strlen(f_func) };
        }
        if (error > 0 && asprintf(&f_errno, "ERRNO=%d", error) >= 0)
                iov[n++] = (struct iovec) { .iov_base = f_errno, .iov_len = strlen(f_errno) };
        (void) log_structured_iov(level, iov, n, message);
        return -error;
}
