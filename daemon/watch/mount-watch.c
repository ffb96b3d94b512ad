/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>

#include "watch/mount-watch.h"
#include "watch/pid-exit-watch.h"
#include "util/macro.h"

struct MountWatch {
        MountTablesSubscription *table;
        PidExitWatch *exits;
        MountWatchHandler handler;
        void *userdata;
};

static void on_table(MountTables *t, void *userdata) {
        MountWatch *w = userdata;

        /* The guard reads the tables itself when it re-checks. */
        w->handler(w, w->userdata);
}

static void on_exit_pid(PidExitWatch *x, pid_t pid, void *userdata) {
        MountWatch *w = userdata;

        w->handler(w, w->userdata);
}

MountWatch *mount_watch_free(MountWatch *w) {
        if (!w)
                return NULL;
        pid_exit_watch_free(w->exits);
        mount_tables_unsubscribe(w->table);
        free(w);
        return NULL;
}

int mount_watch_new(MountTables *t, MountWatchHandler handler, void *userdata, MountWatch **ret) {
        _cleanup_(mount_watch_freep) MountWatch *w = calloc(1, sizeof(*w));
        int r;

        if (!w)
                return -ENOMEM;
        w->handler = handler;
        w->userdata = userdata;
        r = mount_tables_subscribe(t, on_table, w, &w->table);
        if (r < 0)
                return r;
        r = pid_exit_watch_new(mount_tables_event(t), on_exit_pid, w, &w->exits);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(w);
        return 0;
}

int mount_watch_set_enabled(MountWatch *w, bool enabled) {
        return w ? mount_tables_listen(w->table, enabled) : 0;
}

int mount_watch_follow(MountWatch *w, const pid_t *pids, size_t n) {
        return w ? pid_exit_watch_set(w->exits, pids, n) : 0;
}
