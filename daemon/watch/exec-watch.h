/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The kernel's process connector (netlink, CN_IDX_PROC): one event per
 * exec(), so a created container's start is seen when it happens. Only a
 * fast path: binding needs CAP_NET_ADMIN, and the kernel sends its events in
 * the initial network namespace only, so under the shipped unit (no
 * CAP_NET_ADMIN, PrivateNetwork=yes) exec_watch_new() fails with EPERM and
 * the container store looks for the start on a timer (container-store.c);
 * it does so in any case, so a connector that hears nothing costs a delay,
 * never a start taken for granted. */

#include <sys/types.h>
#include <systemd/sd-event.h>

typedef struct ExecWatch ExecWatch;
/* pid: the process (thread group) that exec'd. */
typedef void (*ExecWatchHandler)(ExecWatch *w, pid_t pid, void *userdata);

int exec_watch_new(sd_event *e, ExecWatchHandler handler, void *userdata, ExecWatch **ret);
ExecWatch *exec_watch_free(ExecWatch *w);
