/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#include "host/host-root.h"
#include "watch/mount-watch.h"
#include "watch/pid-exit-watch.h"
#include "util/macro.h"

struct MountWatch {
        int fd;
        sd_event_source *source;
        PidExitWatch *exits;
        MountWatchHandler handler;
        void *userdata;
};

static int on_mountinfo(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        MountWatch *w = userdata;

        /* The kernel clears the condition for this open file in its poll
         * handler: no need to read the table here, the guard reads it. */
        w->handler(w, w->userdata);
        return 0;
}

static void on_exit_pid(PidExitWatch *x, pid_t pid, void *userdata) {
        MountWatch *w = userdata;

        w->handler(w, w->userdata);
}

MountWatch *mount_watch_free(MountWatch *w) {
        if (!w)
                return NULL;
        pid_exit_watch_free(w->exits);
        sd_event_source_disable_unref(w->source);
        closep(&w->fd);
        free(w);
        return NULL;
}


int mount_watch_new(sd_event *e, MountWatchHandler handler, void *userdata, MountWatch **ret) {
        _cleanup_(mount_watch_freep) MountWatch *w = calloc(1, sizeof(*w));
        _cleanup_free_ char *path = NULL;
        int r;

        if (!w)
                return -ENOMEM;
        w->fd = -EBADF;
        w->handler = handler;
        w->userdata = userdata;
        r = host_path("/proc/1/mountinfo", &path);
        if (r < 0)
                return r;
        w->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (w->fd < 0)
                return -errno;
        r = sd_event_add_io(e, &w->source, w->fd, EPOLLPRI, on_mountinfo, w);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(w->source, "host-mountinfo");
        r = sd_event_source_set_enabled(w->source, SD_EVENT_OFF);
        if (r < 0)
                return r;
        r = pid_exit_watch_new(e, on_exit_pid, w, &w->exits);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(w);
        return 0;
}

int mount_watch_set_enabled(MountWatch *w, bool enabled) {
        if (!w)
                return 0;
        return sd_event_source_set_enabled(w->source, enabled ? SD_EVENT_ON : SD_EVENT_OFF);
}

int mount_watch_follow(MountWatch *w, const pid_t *pids, size_t n) {
        return w ? pid_exit_watch_set(w->exits, pids, n) : 0;
}
