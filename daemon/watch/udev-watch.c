/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <libudev.h>
#include <stdlib.h>
#include <string.h>

#include "watch/udev-watch.h"
#include "util/macro.h"

struct UdevWatch {
        struct udev *udev;
        struct udev_monitor *monitor;
        sd_event_source *source;
        UdevWatchHandler handler;
        void *userdata;
};

static void dispatch_device(UdevWatch *w, struct udev_device *d) {
        const char *subsystem = udev_device_get_subsystem(d);
        const char *action = udev_device_get_action(d);
        const char *name = udev_device_get_sysname(d);

        if (!subsystem || !action || !name)
                return;
        if (streq(subsystem, "module")) {
                if (streq(action, "add"))
                        w->handler(w, UDEV_WATCH_MODULE_ADD, name, w->userdata);
                else if (streq(action, "remove"))
                        w->handler(w, UDEV_WATCH_MODULE_REMOVE, name, w->userdata);
        } else if (streq(subsystem, "block"))
                w->handler(w, strneq(name, "nvme", 4) ? UDEV_WATCH_BLOCK_CHANGE : UDEV_WATCH_BLOCK_OTHER, name,
                           w->userdata);
}

static int on_monitor(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        UdevWatch *w = userdata;

        /* Drain the socket: one wakeup may carry several uevents. */
        for (unsigned i = 0; i < 256; i++) {
                struct udev_device *d;

                errno = 0;
                d = udev_monitor_receive_device(w->monitor);
                if (!d) {
                        if (errno == ENOBUFS)
                                w->handler(w, UDEV_WATCH_OVERFLOW, NULL, w->userdata);
                        return 0; /* EAGAIN: drained; other errors: a message we cannot parse */
                }
                dispatch_device(w, d);
                udev_device_unref(d);
        }
        return 0;
}

UdevWatch *udev_watch_free(UdevWatch *w) {
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->source);
        udev_monitor_unref(w->monitor);
        udev_unref(w->udev);
        free(w);
        return NULL;
}


int udev_watch_new(sd_event *e, UdevWatchHandler handler, void *userdata, UdevWatch **ret) {
        _cleanup_(udev_watch_freep) UdevWatch *w = calloc(1, sizeof(*w));
        int r;

        if (!w)
                return -ENOMEM;
        w->handler = handler;
        w->userdata = userdata;
        w->udev = udev_new();
        if (!w->udev)
                return negative_errno();
        /* "kernel": straight from the kernel, no udevd needed, before any rule ran. */
        w->monitor = udev_monitor_new_from_netlink(w->udev, "kernel");
        if (!w->monitor)
                return negative_errno();
        r = udev_monitor_filter_add_match_subsystem_devtype(w->monitor, "module", NULL);
        if (r >= 0)
                r = udev_monitor_filter_add_match_subsystem_devtype(w->monitor, "block", NULL);
        if (r >= 0)
                r = udev_monitor_filter_update(w->monitor);
        if (r < 0)
                return r;
        /* A large buffer makes overflows rare; failing to get it is not fatal. */
        (void) udev_monitor_set_receive_buffer_size(w->monitor, 16 * 1024 * 1024);
        r = udev_monitor_enable_receiving(w->monitor);
        if (r < 0)
                return r;
        r = sd_event_add_io(e, &w->source, udev_monitor_get_fd(w->monitor), EPOLLIN, on_monitor, w);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(w->source, "udev-monitor");
        *ret = TAKE_PTR(w);
        return 0;
}
