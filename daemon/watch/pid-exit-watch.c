/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/macro.h"
#include "watch/pid-exit-watch.h"

typedef struct Followed {
        PidExitWatch *watch;
        pid_t pid;
        sd_event_source *source; /* owns the pidfd */
} Followed;

struct PidExitWatch {
        sd_event *event;
        PidExitWatchHandler handler;
        void *userdata;
        Followed items[PID_EXIT_WATCH_MAX];
        size_t n;
};

static void followed_done(Followed *f) {
        f->source = sd_event_source_disable_unref(f->source);
        f->pid = 0;
}

static int on_exit_fd(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Followed *f = userdata;
        PidExitWatch *w = f->watch;
        pid_t pid = f->pid;

        /* Once: an exited pid stays readable. The manager sets the next ones. */
        (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
        w->handler(w, pid, w->userdata);
        return 0;
}

PidExitWatch *pid_exit_watch_free(PidExitWatch *w) {
        if (!w)
                return NULL;
        for (size_t i = 0; i < w->n; i++)
                followed_done(&w->items[i]);
        sd_event_unref(w->event);
        free(w);
        return NULL;
}

int pid_exit_watch_new(sd_event *e, PidExitWatchHandler handler, void *userdata, PidExitWatch **ret) {
        PidExitWatch *w = calloc(1, sizeof(*w));

        if (!w)
                return -ENOMEM;
        w->event = sd_event_ref(e);
        w->handler = handler;
        w->userdata = userdata;
        *ret = w;
        return 0;
}

static bool wanted(const pid_t *pids, size_t n, pid_t pid) {
        for (size_t i = 0; i < n; i++)
                if (pids[i] == pid)
                        return true;
        return false;
}

static bool followed(const PidExitWatch *w, pid_t pid) {
        for (size_t i = 0; i < w->n; i++)
                if (w->items[i].pid == pid)
                        return true;
        return false;
}

static int follow(PidExitWatch *w, pid_t pid) {
        Followed *f = &w->items[w->n];
        int fd, r;

        fd = (int) syscall(SYS_pidfd_open, pid, 0);
        if (fd < 0 && errno == ESRCH) {
                /* Gone between the check that named it and now: that exit
                 * is as good as one seen (the handler only schedules). */
                w->handler(w, pid, w->userdata);
                return 0;
        }
        if (fd < 0)
                return errno == ENOMEM ? -ENOMEM : 0;
        *f = (Followed) { .watch = w, .pid = pid };
        r = sd_event_add_io(w->event, &f->source, fd, EPOLLIN, on_exit_fd, f);
        if (r < 0) {
                close(fd);
                *f = (Followed) {};
                return r == -ENOMEM ? r : 0;
        }
        (void) sd_event_source_set_io_fd_own(f->source, true);
        (void) sd_event_source_set_description(f->source, "blocker-pidfd");
        w->n++;
        return 0;
}

int pid_exit_watch_set(PidExitWatch *w, const pid_t *pids, size_t n) {
        size_t kept = 0;
        int r;

        if (!w)
                return 0;
        /* Drop what is no longer wanted, keeping the rest in place. */
        for (size_t i = 0; i < w->n; i++) {
                if (wanted(pids, n, w->items[i].pid)) {
                        w->items[kept] = w->items[i];
                        w->items[kept].source = w->items[i].source;
                        (void) sd_event_source_set_userdata(w->items[kept].source, &w->items[kept]);
                        kept++;
                } else
                        followed_done(&w->items[i]);
        }
        w->n = kept;
        for (size_t i = 0; i < n && w->n < PID_EXIT_WATCH_MAX; i++)
                if (pids[i] > 0 && !followed(w, pids[i]) && (r = follow(w, pids[i])) < 0)
                        return r;
        return 0;
}

size_t pid_exit_watch_count(const PidExitWatch *w) {
        return w ? w->n : 0;
}
