/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "host/host-root.h"
#include "watch/usage-watch.h"
#include "usage/mount-fingerprint.h"
#include "util/macro.h"

struct UsageWatch {
        sd_event *event;
        MountTables *tables;           /* NULL: the host's table cannot be polled */
        MountTablesSubscription *mounts;
        int swaps_fd;
        sd_event_source *swaps, *timer;
        sd_event_source *open_recheck; /* while an open holds the pin: usage_watch_recheck_opens() */
        uint64_t open_recheck_usec;    /* its next back-off step; 0: not armed */
        MountFingerprint last;
        bool have_last, poked;
        uint64_t last_start_usec, last_cost_usec; /* the last summary: CLOCK_MONOTONIC, thread CPU */
        UsageWatchHandler handler;
        void *userdata;
        UsageWatchStats stats;
};

static uint64_t clock_usec(clockid_t id) {
        struct timespec ts;

        if (clock_gettime(id, &ts) < 0)
                return 0;
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

uint64_t usage_watch_next_summary(uint64_t now_usec, uint64_t last_start_usec, uint64_t last_cost_usec) {
        uint64_t at = now_usec + USAGE_WATCH_COALESCE_USEC, paced, latest;

        if (last_start_usec != 0) {
                paced = last_start_usec + (uint64_t) (last_cost_usec * 100.0 / USAGE_WATCH_CPU_SHARE_PERCENT);
                at = paced > at ? paced : at;
        }
        latest = now_usec + (2 * last_cost_usec < USAGE_WATCH_MAX_WINDOW_USEC - USAGE_WATCH_COALESCE_USEC
                                     ? USAGE_WATCH_MAX_WINDOW_USEC - 2 * last_cost_usec
                                     : USAGE_WATCH_COALESCE_USEC);
        return at < latest ? at : latest;
}

static void summarise(UsageWatch *w, bool *ret_changed) {
        MountFingerprint now;
        uint64_t cpu0 = clock_usec(CLOCK_THREAD_CPUTIME_ID);
        int r;

        *ret_changed = false;
        if (!w->tables) {
                *ret_changed = true; /* cannot tell: let the handler look */
                return;
        }
        w->last_start_usec = clock_usec(CLOCK_MONOTONIC);
        r = mount_tables_fingerprint(w->tables, &now);
        w->last_cost_usec = clock_usec(CLOCK_THREAD_CPUTIME_ID) - cpu0;
        w->stats.summary_cpu_usec += w->last_cost_usec;
        if (r < 0) {
                *ret_changed = true;
                return;
        }
        w->stats.summaries++;
        if (!w->have_last || !mount_fingerprint_equal(&now, &w->last))
                *ret_changed = true;
        w->last = now;
        w->have_last = true;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        UsageWatch *w = userdata;
        bool changed;

        w->stats.wakeups++;
        /* Listen again before the read: a change is then either in the
         * read or told afterwards. (One made while deaf is not told when
         * the fd is listened to again: the kernel's poll as epoll adds it
         * takes the change; the read covers it.) */
        (void) mount_tables_listen(w->mounts, true);
        summarise(w, &changed);
        if (!changed && !w->poked)
                return 0;
        w->poked = false;
        w->stats.changes++;
        w->handler(w, w->userdata);
        return 0;
}

static void arm(UsageWatch *w) {
        int enabled = SD_EVENT_OFF;
        uint64_t now = 0, at;

        (void) sd_event_source_get_enabled(w->timer, &enabled);
        if (enabled != SD_EVENT_OFF)
                return; /* already coming: coalesce */
        (void) sd_event_now(w->event, CLOCK_MONOTONIC, &now);
        at = usage_watch_next_summary(now, w->last_start_usec, w->last_cost_usec);
        w->stats.last_window_usec = at - now;
        (void) sd_event_source_set_time(w->timer, at);
        (void) sd_event_source_set_enabled(w->timer, SD_EVENT_ONESHOT);
}

static void on_mount_table(MountTables *t, void *userdata) {
        UsageWatch *w = userdata;

        /* The table is read once the window closes. */
        w->stats.wakeups++;
        w->stats.mount_events++;
        /* Deaf until the window closes: churn costs one wake-up a window,
         * not one a mount (unless the guard listens too, while blocked). */
        (void) mount_tables_listen(w->mounts, false);
        arm(w);
}

static int on_swaps(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        UsageWatch *w = userdata;

        w->stats.wakeups++;
        w->poked = true;
        arm(w);
        return 0;
}

void usage_watch_poke(UsageWatch *w) {
        if (!w)
                return;
        w->poked = true;
        arm(w);
}

static int on_open_recheck(sd_event_source *s, uint64_t usec, void *userdata) {
        usage_watch_poke(userdata);
        return 0;
}

void usage_watch_recheck_opens(UsageWatch *w, bool wanted) {
        int r;

        if (!w)
                return;
        if (!wanted) {
                (void) sd_event_source_set_enabled(w->open_recheck, SD_EVENT_OFF);
                w->open_recheck_usec = 0;
                return;
        }
        if (!w->open_recheck_usec)
                w->open_recheck_usec = USAGE_WATCH_OPEN_RECHECK_FIRST_USEC;
        else if (w->open_recheck_usec < USAGE_WATCH_OPEN_RECHECK_MAX_USEC / 2)
                w->open_recheck_usec *= 2;
        else
                w->open_recheck_usec = USAGE_WATCH_OPEN_RECHECK_MAX_USEC;
        if (!w->open_recheck) {
                r = sd_event_add_time_relative(w->event, &w->open_recheck, CLOCK_MONOTONIC, w->open_recheck_usec,
                                               100 * 1000, on_open_recheck, w);
                if (r < 0)
                        return; /* the next event still re-checks */
                (void) sd_event_source_set_description(w->open_recheck, "usage-open-recheck");
                return;
        }
        (void) sd_event_source_set_time_relative(w->open_recheck, w->open_recheck_usec);
        (void) sd_event_source_set_enabled(w->open_recheck, SD_EVENT_ONESHOT);
}

const UsageWatchStats *usage_watch_stats(const UsageWatch *w) {
        return w ? &w->stats : NULL;
}

UsageWatch *usage_watch_free(UsageWatch *w) {
        if (!w)
                return NULL;
        mount_tables_unsubscribe(w->mounts);
        mount_tables_unref(w->tables);
        sd_event_source_disable_unref(w->swaps);
        sd_event_source_disable_unref(w->timer);
        sd_event_source_disable_unref(w->open_recheck);
        closep(&w->swaps_fd);
        sd_event_unref(w->event);
        free(w);
        return NULL;
}

/* An open /proc file polled for POLLPRI; -errno when it cannot be (a fake
 * root's regular file: epoll refuses it with EPERM). */
static int add_proc_source(UsageWatch *w, const char *path, int *fd, sd_event_source **s,
                           sd_event_io_handler_t cb, const char *description) {
        _cleanup_free_ char *p = NULL;
        int r;

        if ((r = host_path(path, &p)) < 0)
                return r;
        *fd = open(p, O_RDONLY | O_CLOEXEC);
        if (*fd < 0)
                return -errno;
        r = sd_event_add_io(w->event, s, *fd, EPOLLPRI, cb, w);
        if (r < 0) {
                closep(fd);
                *fd = -EBADF;
                return r;
        }
        (void) sd_event_source_set_description(*s, description);
        return 0;
}

int usage_watch_new(sd_event *e, MountTables *tables, UsageWatchHandler handler, void *userdata, UsageWatch **ret,
                    const char **ret_missing) {
        _cleanup_(usage_watch_freep) UsageWatch *w = calloc(1, sizeof(UsageWatch));
        const char *missing = NULL;
        int r;

        if (!w)
                return -ENOMEM;
        w->event = sd_event_ref(e);
        w->swaps_fd = -EBADF;
        w->handler = handler;
        w->userdata = userdata;
        r = sd_event_add_time_relative(e, &w->timer, CLOCK_MONOTONIC, USAGE_WATCH_COALESCE_USEC, 10 * 1000,
                                       on_timer, w);
        if (r < 0)
                return r;
        (void) sd_event_source_set_enabled(w->timer, SD_EVENT_OFF);
        (void) sd_event_source_set_description(w->timer, "usage-coalesce");
        if (tables) {
                r = mount_tables_subscribe(tables, on_mount_table, w, &w->mounts);
                if (r < 0)
                        return r;
                w->tables = mount_tables_ref(tables);
                (void) mount_tables_listen(w->mounts, true);
                summarise(w, &(bool) { false }); /* the baseline */
        } else
                missing = "/proc/1/mountinfo";
        if (add_proc_source(w, "/proc/swaps", &w->swaps_fd, &w->swaps, on_swaps, "usage-swaps") < 0)
                missing = missing ? "/proc/1/mountinfo and /proc/swaps" : "/proc/swaps";
        if (ret_missing)
                *ret_missing = missing;
        *ret = TAKE_PTR(w);
        return 0;
}
