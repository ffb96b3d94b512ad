/* SPDX-License-Identifier: Apache-2.0 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "publish/log.h"
#include "publish/report.h"
#include "util/escape.h"
#include "util/string-util.h"
#include "util/strv.h"

static int field(char ***l, const char *key, const char *value) {
        char *s;

        if (!value)
                return 0;
        if (asprintf(&s, "%s=%s", key, value) < 0)
                return -ENOMEM;
        return strv_push(l, s);
}

static const char *report_mode;

void report_set_mode(const char *mode) {
        report_mode = mode;
}

int report_event(int priority, const char *message_id, const ReportFields *f, const char *fmt, ...) {
        _cleanup_free_ char *message = NULL, *pid = NULL;
        char **fields = NULL;
        va_list ap;
        int r;

        va_start(ap, fmt);
        message = strdup_vprintf(fmt, ap);
        va_end(ap);
        if (!message)
                return -ENOMEM;
        if (f && f->pid > 0 && asprintf(&pid, "%d", (int) f->pid) < 0)
                return -ENOMEM;

        r = field(&fields, "MESSAGE_ID", message_id);
        if (f) {
                if (r >= 0)
                        r = field(&fields, "SWAPGUARD_STATE", f->state);
                if (r >= 0)
                        r = field(&fields, "SWAPGUARD_MODULE", f->module);
                if (r >= 0)
                        r = field(&fields, "SWAPGUARD_ORIGIN", f->origin);
                if (r >= 0)
                        r = field(&fields, "SWAPGUARD_DEVICE", f->device);
                if (r >= 0)
                        r = field(&fields, "SWAPGUARD_MOUNT_POINT", f->mount_point);
                if (r >= 0)
                        r = field(&fields, "SWAPGUARD_PID", pid);
                if (r >= 0)
                        r = field(&fields, "SWAPGUARD_CONTAINER_ID", f->container_id);
                if (r >= 0)
                        r = field(&fields, "SWAPGUARD_POD", f->pod);
                for (char *const *e = f->extra; r >= 0 && e && *e; e++)
                        r = strv_push(&fields, strdup(*e));
        }
        if (r >= 0) /* last: readers match the fields before it in their order */
                r = field(&fields, "SWAPGUARD_MODE", report_mode);
        if (r >= 0) {
                size_t n = strv_length(fields);
                struct iovec iov[n ?: 1];

                for (size_t i = 0; i < n; i++)
                        iov[i] = (struct iovec) { .iov_base = fields[i], .iov_len = strlen(fields[i]) };
                r = log_structured_iov(priority, iov, n, message);
        }
        strv_free(fields);
        return r;
}

static char *status_suffix;
static char *status_fabrics;
static char *status_labels;

void report_status_labels(const char *text) {
        free(status_labels);
        status_labels = text ? strdup(text) : NULL;
}

void report_status_fabrics(const char *text) {
        free(status_fabrics);
        status_fabrics = text ? strdup(text) : NULL;
}

void report_status_suffix(const char *suffix) {
        free(status_suffix);
        status_suffix = suffix ? strdup(suffix) : NULL;
}

void report_status(const char *fmt, ...) {
        _cleanup_free_ char *status = NULL, *escaped = NULL;
        va_list ap;

        va_start(ap, fmt);
        status = strdup_vprintf(fmt, ap);
        va_end(ap);
        if (status && status_suffix) { /* escaped with the rest: a mount point may hold a newline */
                char *joined = strdup_printf("%s; %s", status, status_suffix);

                free(status);
                status = joined;
        }
        if (status && status_fabrics) {
                char *joined = strdup_printf("%s; %s", status, status_fabrics);

                free(status);
                status = joined;
        }
        if (status && status_labels) {
                char *joined = strdup_printf("%s; %s", status, status_labels);

                free(status);
                status = joined;
        }
        if (status && report_mode && streq(report_mode, "observe")) {
                char *prefixed = strdup_printf("observe: %s", status);

                free(status);
                status = prefixed;
        }
        if (!status)
                return;
        /* One datagram of KEY=value lines: a newline in a name we report
         * (a container's, a mount point) would add a line of its own, such as
         * MAINPID= or STOPPING=1. */
        escaped = escape_control(status);
        if (escaped)
                (void) sd_notifyf(0, "STATUS=%s", escaped);
}
