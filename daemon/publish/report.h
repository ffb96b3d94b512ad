/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the daemon tells operators: structured journal entries (one
 * MESSAGE_ID per kind of event, SWAPGUARD_* fields) and sd_notify STATUS=. */

#include <sys/types.h>

#include "publish/message-ids.h"
#include "util/macro.h"

typedef struct ReportFields {
        const char *state;        /* SWAPGUARD_STATE */
        const char *module;       /* SWAPGUARD_MODULE */
        const char *origin;       /* SWAPGUARD_ORIGIN */
        const char *device;       /* SWAPGUARD_DEVICE */
        const char *mount_point;  /* SWAPGUARD_MOUNT_POINT */
        pid_t pid;                /* SWAPGUARD_PID, when > 0 */
        const char *container_id; /* SWAPGUARD_CONTAINER_ID */
        const char *pod;          /* SWAPGUARD_POD */
        char *const *extra;       /* more "SWAPGUARD_KEY=value" fields, NULL-terminated */
} ReportFields;

/* The mode: every journal entry from now on carries
 * SWAPGUARD_MODE=<mode>, and in observe every STATUS= starts with
 * "observe: ", so no line of an observing node reads like a swap done. */
void report_set_mode(const char *mode);
/* Logs one journal entry; returns 0 or -ENOMEM. */
int report_event(int priority, const char *message_id, const ReportFields *f, const char *fmt, ...) _printf_(4, 5);
/* STATUS= for systemctl status (a no-op outside systemd). */
void report_status(const char *fmt, ...) _printf_(1, 2);
/* A standing addition to every STATUS= ("nvme pinned: ..."), NULL for none;
 * applies from the next report_status(). */
void report_status_suffix(const char *suffix);
/* The same for the NVMe over Fabrics connections ("NVMe-oF: 1 back, ..."). */
void report_status_fabrics(const char *text);
/* The same for the node labels when none are published ("node labels off: ..."). */
void report_status_labels(const char *text);
