/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The exit of the processes that block a swap: a mount held only in
 * another mount namespace, or a device held open by a process, goes away
 * when that process exits, and nothing in the host's mount table or in
 * udev says so. While blocked, the mount watch (mount-watch.h) gives this
 * watch the pids its blockers named; a pidfd per pid (it pins only the
 * pid, never the process's mount namespace, which would keep the very
 * mount alive; an open /proc/<pid>/mountinfo would) wakes the manager when
 * one exits, and the guard looks again. No timer, no wake-up while nothing
 * exits. */

#include <stddef.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "util/macro.h"

/* At most this many pids are followed: the first blockers (a re-check after
 * one exits follows the next ones). */
#define PID_EXIT_WATCH_MAX 16 /* = MOUNT_WATCH_PIDS_MAX */

typedef struct PidExitWatch PidExitWatch;
typedef void (*PidExitWatchHandler)(PidExitWatch *w, pid_t pid, void *userdata);

int pid_exit_watch_new(sd_event *e, PidExitWatchHandler handler, void *userdata, PidExitWatch **ret);
PidExitWatch *pid_exit_watch_free(PidExitWatch *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(PidExitWatch *, pid_exit_watch_free);

/* Follows exactly these pids (n 0: none); pids already followed keep their
 * pidfd. A pid already gone (ESRCH) counts as an exit seen now: the handler
 * runs at once (it must only schedule, not act). 0 or -ENOMEM. */
int pid_exit_watch_set(PidExitWatch *w, const pid_t *pids, size_t n);
/* How many pids are followed now (tests). */
size_t pid_exit_watch_count(const PidExitWatch *w);
