/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Sees a created container exec its entrypoint when it happens, so that its
 * start is looked at then and not on a timer. Two sources:
 *
 *  - the runtime's exec fifo (exec_watch_follow): runc and crun keep
 *    <root>/<id>/exec.fifo while the container is created and remove it when
 *    `start` releases the init (container-started.h says in which order,
 *    from their sources). An inotify watch on <root>/<id>/ (path-watch.h)
 *    sees the removal; it needs only to read the directory (the shipped
 *    unit's CAP_DAC_READ_SEARCH), no CAP_NET_ADMIN. The removal may come a
 *    little before the exec (crun always), so the handler runs at once and
 *    then a few more times in the next ~2 s ("the start is under way"),
 *    after which the follow says it no longer covers the container.
 *
 *  - the kernel's process connector (netlink, CN_IDX_PROC): one event per
 *    exec() of the node. Binding needs CAP_NET_ADMIN and the kernel speaks
 *    only in the initial network namespace, so under the shipped unit (no
 *    CAP_NET_ADMIN, PrivateNetwork=yes) it is not there; it is tried only on
 *    the real root, and its absence is said at debug level only.
 *
 * Neither makes a start: the handler only says "look now"; the caller reads
 * the process (container_process_state) and decides, failing closed. */

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

typedef struct ExecWatch ExecWatch;
/* pid: the process (thread group) that exec'd, or the followed container's
 * pid when its runtime removed its exec fifo. May free the watch. */
typedef void (*ExecWatchHandler)(ExecWatch *w, pid_t pid, void *userdata);

int exec_watch_new(sd_event *e, ExecWatchHandler handler, void *userdata, ExecWatch **ret);
ExecWatch *exec_watch_free(ExecWatch *w);

/* Follows container id (pid: its init): watches its runtime's exec fifo.
 * Idempotent. 1 when the watch covers its start (its fifo is there and
 * watched, or it went less than ~2 s ago and the looks after it are still
 * coming); 0 when it does not (no fifo under any runtime root: another
 * runtime root, the start already done, or the looks after the removal are
 * over); -errno when no watch could be set. With anything but 1 the caller
 * must look for the start itself. */
int exec_watch_follow(ExecWatch *w, const char *id, pid_t pid);
/* exec_watch_follow() for the container store, which logs here: the fifo
 * watched (once, when the watch is set), or the fallback the caller takes
 * (once per *said_fallback). w may be NULL (no watch: fallback). */
int exec_watch_cover(ExecWatch *w, const char *id, pid_t pid, bool *said_fallback);
/* Stops following id (NULL watch or unknown id: nothing). */
void exec_watch_forget(ExecWatch *w, const char *id);
/* The fifo path followed for id ("" if none), for the journal. */
const char *exec_watch_followed_path(const ExecWatch *w, const char *id);
