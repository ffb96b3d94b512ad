/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The always-on usage watch: tells the manager when the use of the NVMe
 * namespaces may have changed, so that the pin is taken and let go in
 * time, at a cost a node whose pods mount and unmount all day does not
 * feel. Sources:
 *   - the host's mount table: POLLPRI on an open /proc/1/mountinfo (PID 1's
 *     mount namespace, also from our private one);
 *   - swap: POLLPRI on an open /proc/swaps (swapon/swapoff);
 *   - block and holder uevents: the manager's udev watch pokes us.
 * Coalesced: the first event arms a short timer; everything until it fires
 * is one change. Then the mount table is summarised (mount-fingerprint.h:
 * which block devices are mounted) and the handler runs only when that
 * summary changed, or after a swap change or a poke. Idle, it wakes up
 * never: no timer runs without an event. */

#include <stdint.h>
#include <systemd/sd-event.h>

typedef struct UsageWatch UsageWatch;
typedef void (*UsageWatchHandler)(UsageWatch *w, void *userdata);

/* The coalescing window. */
#define USAGE_WATCH_COALESCE_USEC (200 * 1000ULL)

typedef struct UsageWatchStats {
        uint64_t wakeups;          /* every dispatch of any of our sources */
        uint64_t mount_events;     /* POLLPRI on mountinfo */
        uint64_t summaries;        /* mount tables read and summarised */
        uint64_t changes;          /* handler calls */
} UsageWatchStats;

/* Sources that cannot be set up (a fake root's regular files cannot be
 * polled) are left out; *ret_missing (may be NULL) then names them, for the
 * caller to log once. 0 or -errno. */
int usage_watch_new(sd_event *e, UsageWatchHandler handler, void *userdata, UsageWatch **ret,
                    const char **ret_missing);
UsageWatch *usage_watch_free(UsageWatch *w);

/* A block or holder uevent: treated as a change once the window closes. */
void usage_watch_poke(UsageWatch *w);

const UsageWatchStats *usage_watch_stats(const UsageWatch *w);
