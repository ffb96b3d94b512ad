/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include "publish/log.h"
#include "watch/path-watch.h"
#include "util/fileio.h"
#include "util/macro.h"

struct PathWatch {
        sd_event *event;
        char *path;
        char *description;
        char *watched_dir;       /* the ancestor the inotify source watches */
        sd_event_source *source;
        PathWatchHandler handler;
        void *userdata;
        bool exists;
};

static int on_inotify(sd_event_source *s, const struct inotify_event *ev, void *userdata);

static bool is_dir(const char *p) {
        struct stat st;

        return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The deepest existing directory among the path's ancestors. */
static int deepest_existing_ancestor(const char *path, char **ret) {
        _cleanup_free_ char *dir = strdup(path);
        char *slash;

        if (!dir)
                return -ENOMEM;
        for (;;) {
                slash = strrchr(dir, '/');
                if (!slash)
                        return -EINVAL;
                if (slash == dir) {
                        dir[1] = '\0';
                        break;
                }
                *slash = '\0';
                if (is_dir(dir))
                        break;
        }
        *ret = TAKE_PTR(dir);
        return 0;
}

static int arm(PathWatch *w) {
        /* Mask: a component appearing or going (create, rename), the watched
         * directory itself going, and a file finished being written. */
        const uint32_t mask = IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_CLOSE_WRITE |
                              IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

        for (unsigned tries = 0; tries < 64; tries++) {
                _cleanup_free_ char *dir = NULL;
                _cleanup_free_ char *again = NULL;
                int r;

                r = deepest_existing_ancestor(w->path, &dir);
                if (r < 0)
                        return r;
                if (!w->watched_dir || !streq(dir, w->watched_dir) || !w->source) {
                        sd_event_source *s = NULL;

                        r = sd_event_add_inotify(w->event, &s, dir, mask, on_inotify, w);
                        if (r < 0)
                                return r;
                        (void) sd_event_source_set_description(s, w->description);
                        sd_event_source_disable_unref(w->source);
                        w->source = s;
                        free(w->watched_dir);
                        w->watched_dir = TAKE_PTR(dir);
                }
                /* A deeper directory may have been created before the watch was in place. */
                r = deepest_existing_ancestor(w->path, &again);
                if (r < 0)
                        return r;
                if (streq(again, w->watched_dir))
                        return 0;
        }
        return -ELOOP; /* directories appearing and going faster than we can follow */
}

static int on_inotify(sd_event_source *s, const struct inotify_event *ev, void *userdata) {
        PathWatch *w = userdata;
        int r;

        /* Whatever the event (IN_Q_OVERFLOW included: events were lost), the
         * answer is the same: re-arm where needed and look at the path again. */
        r = arm(w);
        if (r < 0)
                /* sd-event disables the source: say so once, where it happens,
                 * or the path would go unwatched in silence (the ready file:
                 * then only ReadyTimeoutSec= ends the wait). */
                return log_warning_errno(r, "Cannot follow %s (%s) any more: %m. A restart of the daemon watches it again.",
                                         w->path, w->description);
        w->exists = path_exists(w->path) > 0;
        w->handler(w, w->exists, w->userdata);
        return 0;
}

PathWatch *path_watch_free(PathWatch *w) {
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->source);
        sd_event_unref(w->event);
        free(w->path);
        free(w->description);
        free(w->watched_dir);
        free(w);
        return NULL;
}


int path_watch_new(sd_event *e, const char *path, const char *description, PathWatchHandler handler,
                   void *userdata, PathWatch **ret) {
        _cleanup_(path_watch_freep) PathWatch *w = NULL;
        int r;

        if (!path || path[0] != '/' || !handler)
                return -EINVAL;
        w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        w->event = sd_event_ref(e);
        w->path = strdup(path);
        w->description = strdup(description ?: "path-watch");
        if (!w->path || !w->description)
                return -ENOMEM;
        w->handler = handler;
        w->userdata = userdata;
        r = arm(w);
        if (r < 0)
                return r;
        w->exists = path_exists(w->path) > 0;
        *ret = TAKE_PTR(w);
        return 0;
}

bool path_watch_exists(const PathWatch *w) {
        return w && w->exists;
}

const char *path_watch_path(const PathWatch *w) {
        return w ? w->path : NULL;
}

const char *path_watch_watched_dir(const PathWatch *w) {
        return w ? w->watched_dir : NULL;
}
