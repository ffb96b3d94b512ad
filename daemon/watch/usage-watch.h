/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The always-on usage watch: tells the manager when the use of the NVMe
 * namespaces may have changed, so that the pin is taken and let go in
 * time, at a cost a node whose pods mount and unmount all day does not
 * feel. Sources:
 *   - the host's mount table: a subscription to the daemon's one mountinfo
 *     watch (mount-tables.h: POLLPRI on an open /proc/1/mountinfo, PID 1's
 *     mount namespace, also from our private one), read through its fd;
 *   - swap: POLLPRI on an open /proc/swaps (swapon/swapoff);
 *   - block and holder uevents: the manager's udev watch pokes us.
 * Coalesced: the first event arms a timer and stops listening to the
 * mount table; everything until the timer fires is one change. Then the
 * mount table is summarised (mount-fingerprint.h: which block devices are
 * mounted), the handler runs only when that summary changed, or after a
 * swap change or a poke. The mount table is listened to again just before
 * that read, so no change is lost: it is in the read or told afterwards
 * (while blocked, the guard keeps listening meanwhile and hears every
 * change itself).
 *
 * The window adapts to the rate: the kernel producing mountinfo is the
 * cost (~12 ms at 10,000 mounts under emulation, docs/BENCHMARKS.md), so a
 * summary starts no sooner than its predecessor's CPU time divided by
 * USAGE_WATCH_CPU_SHARE after that one began. A lone change waits the
 * short window; sustained churn is read less often, never faster. The
 * window never exceeds USAGE_WATCH_MAX_WINDOW_USEC minus the last read's
 * cost, so a new mount of a namespace is pinned within a second even when
 * the table is so large that the share cannot hold (the pin wins).
 * Idle, it wakes up never: no timer runs without an event. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "util/macro.h"
#include "watch/mount-tables.h"

typedef struct UsageWatch UsageWatch;
typedef void (*UsageWatchHandler)(UsageWatch *w, void *userdata);

/* The shortest coalescing window: a lone change's delay. */
#define USAGE_WATCH_COALESCE_USEC (200 * 1000ULL)
/* The pin's bound: first event to the end of its summary. */
#define USAGE_WATCH_MAX_WINDOW_USEC (1000 * 1000ULL)
/* The share of one core the summaries may take under churn, in percent
 * (the watch's whole budget is 2 % of a core: the wake-ups and the timer
 * have the rest). */
#define USAGE_WATCH_CPU_SHARE_PERCENT 1.5

/* Pure: when the next summary may start, for a first event at now_usec:
 * not before now + the short window, not before last_start_usec +
 * last_cost_usec / share, not after now + the longest window minus twice
 * the last cost (the read itself, and its growth). 0 for "never read yet". */
uint64_t usage_watch_next_summary(uint64_t now_usec, uint64_t last_start_usec, uint64_t last_cost_usec);

typedef struct UsageWatchStats {
        uint64_t wakeups;          /* every dispatch of any of our sources */
        uint64_t mount_events;     /* mount table changes told (POLLPRI on mountinfo) */
        uint64_t summaries;        /* mount tables read and summarised */
        uint64_t changes;          /* handler calls */
        uint64_t summary_cpu_usec; /* CPU time of the summaries (the kernel's read included) */
        uint64_t last_window_usec; /* the last coalescing window */
} UsageWatchStats;

/* tables: the daemon's mountinfo watch, NULL when the host's table cannot
 * be polled. Sources that cannot be set up (a fake root's regular files
 * cannot be polled) are left out; *ret_missing (may be NULL) then names
 * them, for the caller to log once. 0 or -errno. */
int usage_watch_new(sd_event *e, MountTables *tables, UsageWatchHandler handler, void *userdata, UsageWatch **ret,
                    const char **ret_missing);
UsageWatch *usage_watch_free(UsageWatch *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(UsageWatch *, usage_watch_free);

/* A block or holder uevent: treated as a change once the window closes. */
void usage_watch_poke(UsageWatch *w);

/* While a process's plain open holds the pin (a udev worker's probe after
 * a write, a backup tool): nothing tells its close, so the watch pokes
 * itself after USAGE_WATCH_OPEN_RECHECK_FIRST_USEC, then after twice that,
 * up to USAGE_WATCH_OPEN_RECHECK_MAX_USEC, until the caller says no open is
 * held (wanted false), which disarms it and starts the next back-off from
 * the first step. Idle, and with no open in the pin, no timer runs. */
#define USAGE_WATCH_OPEN_RECHECK_FIRST_USEC (1000 * 1000ULL)
#define USAGE_WATCH_OPEN_RECHECK_MAX_USEC (60 * 1000 * 1000ULL)
void usage_watch_recheck_opens(UsageWatch *w, bool wanted);

const UsageWatchStats *usage_watch_stats(const UsageWatch *w);
