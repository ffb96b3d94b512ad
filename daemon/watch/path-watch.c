/* SPDX-License-Identifier: Apache-2.0 */
/* Why this holds whatever the order of the kernel's events (a new entry
 * made right after an old one was removed, as at every pod restart, must
 * never go unseen):
 *
 * - Its own inotify fd, not sd-event's inotify sources: sd-event 252 keeps
 *   one kernel watch per (device, inode number) for all its sources and
 *   adds none for a new source when it has one with the same mask
 *   (src/libsystemd/sd-event/sd-event.c, inode_data_realize_watch), so a
 *   directory made with the inode number of one just removed could join a
 *   dead watch. On our fd every inotify_add_watch() reaches the kernel,
 *   which keys watches by the inode itself.
 * - An event says only "look again": after any event (an overflow
 *   included: events were lost) the watch is put on the deepest existing
 *   ancestor as it is now, and the path's existence is read then. Events
 *   late, doubled, coalesced or lost change nothing in that answer.
 * - A watch that cannot be had (a directory gone between the look and the
 *   watch is not that: the next pass looks again) is retried every second,
 *   and the path is looked at each time; the source is never disabled. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "publish/log.h"
#include "watch/path-watch.h"
#include "util/fileio.h"
#include "util/macro.h"

#define RETRY_USEC (1000000ULL)

struct PathWatch {
        sd_event *event;
        char *path;
        char *description;
        char *watched_dir;       /* the ancestor the watch is on */
        int fd;                  /* our inotify fd */
        int wd;                  /* the watch on watched_dir, -1 none */
        sd_event_source *source; /* fd readable */
        sd_event_source *retry;  /* a watch could not be had: again in a second */
        bool retry_logged;
        PathWatchHandler handler;
        void *userdata;
        bool exists;
        /* path_watch_new_private(): what the path is, by name */
        bool private;
        char *containers_dir;
        PrivatePath kind;
        char id[65];
        unsigned up;             /* the watch is this many directories above the path's parent */
};

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

static void unwatch(PathWatch *w) {
        /* EINVAL: the kernel dropped it already (the directory is gone). */
        if (w->wd >= 0)
                (void) inotify_rm_watch(w->fd, w->wd);
        w->wd = -1;
}

/* The directory up + 1 levels above w->path, for the journal. */
static int dir_above(const char *path, unsigned up, char **ret) {
        _cleanup_free_ char *dir = strdup(path);

        if (!dir)
                return -ENOMEM;
        for (unsigned i = 0; i <= up; i++) {
                char *slash = strrchr(dir, '/');

                if (!slash || slash == dir) {
                        dir[1] = '\0';
                        break;
                }
                *slash = '\0';
        }
        *ret = TAKE_PTR(dir);
        return 0;
}

/* arm() for a private path: the same passes, each watch added by
 * private_path_watch(), which climbs to the nearest existing directory
 * itself. Stable when a pass answers the watch already held. */
static int arm_private(PathWatch *w) {
        for (unsigned tries = 0; tries < 64; tries++) {
                _cleanup_free_ char *dir = NULL;
                unsigned up = 0;
                int wd = -1, r;

                r = private_path_watch(w->fd, w->containers_dir, w->kind, w->kind == PRIVATE_PATH_STORE ? NULL : w->id,
                                       true, &wd, &up);
                if (r < 0)
                        return r;
                if (w->wd >= 0 && wd == w->wd && up == w->up)
                        return 0;
                if (w->wd >= 0 && w->wd != wd)
                        (void) inotify_rm_watch(w->fd, w->wd);
                w->wd = wd;
                w->up = up;
                if (dir_above(w->path, up, &dir) >= 0) {
                        free(w->watched_dir);
                        w->watched_dir = TAKE_PTR(dir);
                }
        }
        return -ELOOP;
}

/* Whether the path exists: 1, 0, or -errno when it cannot be told. */
static int exists_now(const PathWatch *w) {
        if (w->private)
                return private_path_exists(w->containers_dir, w->kind, w->kind == PRIVATE_PATH_STORE ? NULL : w->id);
        return path_exists(w->path) > 0;
}

/* Each pass looks, watches, and looks again: a deeper directory created
 * before the watch was in place is seen by the second look. */
static int arm(PathWatch *w) {
        if (w->private)
                return arm_private(w);
        /* Mask: a component appearing or going (create, rename), the watched
         * directory itself going, and a file finished being written. */
        const uint32_t mask = IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_CLOSE_WRITE |
                              IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

        for (unsigned tries = 0; tries < 64; tries++) {
                _cleanup_free_ char *dir = NULL;
                int wd, r;

                r = deepest_existing_ancestor(w->path, &dir);
                if (r < 0)
                        return r;
                if (w->wd >= 0 && w->watched_dir && streq(dir, w->watched_dir))
                        return 0;
                wd = inotify_add_watch(w->fd, dir, mask);
                if (wd < 0) {
                        if (errno == ENOENT || errno == ENOTDIR)
                                continue; /* gone since the look: look again */
                        return -errno;
                }
                if (w->wd >= 0 && w->wd != wd)
                        (void) inotify_rm_watch(w->fd, w->wd);
                w->wd = wd;
                free(w->watched_dir);
                w->watched_dir = TAKE_PTR(dir);
        }
        return -ELOOP; /* directories appearing and going faster than we can follow */
}

static void look(PathWatch *w);

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        look(userdata);
        return 0;
}

static void schedule_retry(PathWatch *w, int error) {
        int r;

        if (!w->retry_logged) {
                log_warning_errno(error, "Cannot watch %s (%s) for now: %m. Looking at it every second until it can.",
                                  w->path, w->description);
                w->retry_logged = true;
        }
        if (w->retry) {
                (void) sd_event_source_set_time_relative(w->retry, RETRY_USEC);
                (void) sd_event_source_set_enabled(w->retry, SD_EVENT_ONESHOT);
                return;
        }
        r = sd_event_add_time_relative(w->event, &w->retry, CLOCK_MONOTONIC, RETRY_USEC, 0, on_retry, w);
        if (r < 0)
                log_error_errno(r, "Cannot arm the retry of %s: it is not followed until the daemon restarts: %m",
                                w->path);
        else
                (void) sd_event_source_set_description(w->retry, w->description);
}

/* Re-arm where needed, then read the present state and tell it. A state
 * that cannot be read (a private path whose reader is gone) is not told:
 * "cannot tell" is never "gone"; the retry looks again. */
static void look(PathWatch *w) {
        int r = arm(w), e;

        if (r < 0)
                schedule_retry(w, r);
        e = exists_now(w);
        if (e < 0) {
                if (r >= 0)
                        schedule_retry(w, e);
                return;
        }
        if (r >= 0 && w->retry_logged) {
                log_info("Watching %s (%s) again.", w->path, w->description);
                w->retry_logged = false;
        }
        w->exists = e > 0;
        w->handler(w, w->exists, w->userdata);
}

static int on_inotify(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        PathWatch *w = userdata;
        union {
                struct inotify_event ev;
                char raw[8 * (sizeof(struct inotify_event) + NAME_MAX + 1)];
        } buf;
        ssize_t n;

        n = read(fd, &buf, sizeof(buf));
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return 0;
        /* Whatever the events (IN_Q_OVERFLOW, or a failed read: events
         * lost), the answer is the same: look again. A watch the kernel
         * dropped (IN_IGNORED: the directory went) is put anew. */
        for (ssize_t off = 0; n > 0 && off + (ssize_t) sizeof(struct inotify_event) <= n;) {
                const struct inotify_event *ev = (const struct inotify_event *) (buf.raw + off);

                off += (ssize_t) (sizeof(struct inotify_event) + ev->len);
                if (ev->wd == w->wd && (ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT)))
                        unwatch(w);
        }
        look(w); /* never a negative return: sd-event would disable the source */
        return 0;
}

PathWatch *path_watch_free(PathWatch *w) {
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->source);
        sd_event_source_disable_unref(w->retry);
        if (w->fd >= 0)
                close(w->fd); /* drops its watches */
        sd_event_unref(w->event);
        free(w->path);
        free(w->description);
        free(w->watched_dir);
        free(w->containers_dir);
        free(w);
        return NULL;
}

static int watch_new(sd_event *e, const char *path, const char *description, PathWatchHandler handler,
                     void *userdata, PathWatch **ret) {
        _cleanup_(path_watch_freep) PathWatch *w = NULL;

        if (!path || path[0] != '/' || !handler)
                return -EINVAL;
        w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        w->fd = w->wd = -1;
        w->event = sd_event_ref(e);
        w->path = strdup(path);
        w->description = strdup(description ?: "path-watch");
        if (!w->path || !w->description)
                return -ENOMEM;
        *ret = TAKE_PTR(w);
        return 0;
}

/* The inotify fd, the first watch and look. */
static int watch_start(PathWatch *w, sd_event *e, PathWatchHandler handler, void *userdata) {
        int r;

        w->handler = handler;
        w->userdata = userdata;
        w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (w->fd < 0)
                return -errno;
        r = sd_event_add_io(e, &w->source, w->fd, EPOLLIN, on_inotify, w);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(w->source, w->description);
        r = arm(w);
        if (r < 0 && !w->private)
                return r;
        if (r >= 0)
                r = exists_now(w);
        if (r < 0) {
                /* A private path whose reader cannot answer (gone, or
                 * another store): not there as far as is known, and looked
                 * at again every second, saying so once. The daemon starts
                 * and keeps its other watches. */
                schedule_retry(w, r);
                w->exists = false;
                return 0;
        }
        w->exists = r > 0;
        return 0;
}

int path_watch_new(sd_event *e, const char *path, const char *description, PathWatchHandler handler,
                   void *userdata, PathWatch **ret) {
        _cleanup_(path_watch_freep) PathWatch *w = NULL;
        int r;

        r = watch_new(e, path, description, handler, userdata, &w);
        if (r < 0)
                return r;
        r = watch_start(w, e, handler, userdata);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(w);
        return 0;
}

int path_watch_new_private(sd_event *e, const char *containers_dir, PrivatePath p, const char *id,
                           const char *description, PathWatchHandler handler, void *userdata, PathWatch **ret) {
        _cleanup_(path_watch_freep) PathWatch *w = NULL;
        _cleanup_free_ char *path = NULL;
        int r;

        r = private_path_make(containers_dir, p, id, &path);
        if (r < 0)
                return r;
        r = watch_new(e, path, description, handler, userdata, &w);
        if (r < 0)
                return r;
        w->private = true;
        w->kind = p;
        if (containers_dir && !(w->containers_dir = strdup(containers_dir)))
                return -ENOMEM;
        if (p != PRIVATE_PATH_STORE)
                snprintf(w->id, sizeof(w->id), "%s", id);
        r = watch_start(w, e, handler, userdata);
        if (r < 0)
                return r;
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
