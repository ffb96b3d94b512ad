/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The kernel's process connector (netlink, CN_IDX_PROC): one event per
 * exec(), so a created container's start is seen when it happens, not
 * polled for. Needs CAP_NET_ADMIN (the daemon runs as root); where it cannot
 * be had, exec_watch_new() fails and the caller counts a created container
 * as started, as the pidfile says. */

#include <sys/types.h>
#include <systemd/sd-event.h>

typedef struct ExecWatch ExecWatch;
/* pid: the process (thread group) that exec'd. */
typedef void (*ExecWatchHandler)(ExecWatch *w, pid_t pid, void *userdata);

int exec_watch_new(sd_event *e, ExecWatchHandler handler, void *userdata, ExecWatch **ret);
ExecWatch *exec_watch_free(ExecWatch *w);
