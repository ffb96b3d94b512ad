/* SPDX-License-Identifier: Apache-2.0 */
/* The container store, watched. How it stays right whatever the kernel's
 * order of events:
 *
 * - The store has its own inotify fd, not sd-event's inotify sources.
 *   sd-event (252, src/libsystemd/sd-event/sd-event.c) keeps one watch per
 *   (device, inode number) shared by all its sources, and adds no kernel
 *   watch for a new source when it already has one with the same mask: a
 *   directory created with the inode number of one just removed, before
 *   sd-event has read the IN_IGNORED of the old one, joins the dead watch
 *   and is never heard of. The kernel keys its watches by the inode itself:
 *   on our own fd each inotify_add_watch() of a new directory is a new
 *   watch. Watch descriptors are not reused while the fd lives
 *   (idr_alloc_cyclic in fs/notify/inotify/inotify_user.c), so a late event
 *   of a watch we dropped names no entry, or only one we still know.
 * - An event only names what to look at: the entry of a name in
 *   overlay-containers/, or the entry whose directory a watch is on. What
 *   is on disk when we look decides (look_at): an entry whose directory is
 *   gone is removed, a new one is added, a known one re-armed and re-read.
 *   Late, doubled or coalesced events then only cause an extra look, and
 *   the order in which they come cannot make the result differ from the
 *   store's content at the last look.
 * - Events that may be lost (IN_Q_OVERFLOW, a failed read) or a watch that
 *   cannot be had make the store look at everything again (scan): the known
 *   entries against the directory, each entry re-armed and re-read. A watch
 *   that cannot be had is retried by a scan every second, never given up.
 * - A directory that goes is the end of a container, not an error: no
 *   warning for it.
 * - The store's directories are root's 0700: every look, watch and listing
 *   goes through host/private-path.h (the daemon's privileged reader adds
 *   each watch on this store's own inotify fd, by a kind and an id, and
 *   passes the listing's directory fd). A look the reader cannot answer
 *   is "cannot tell", never "gone": the entry stays and the store is
 *   scanned again in a second. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container/container-store-internal.h"
#include "host/crio.h"
#include "host/private-path.h"
#include "publish/log.h"
#include "util/fileio.h"
#include "util/macro.h"

#define RETRY_USEC (1000000ULL)

static void store_schedule_scan(ContainerStore *s, int error, const char *what);

/* Whether the entry's directory (or its userdata/) is there: 1 a
 * directory, 0 not there (or not a directory), -errno when it cannot be
 * told (the privileged reader gone): never read as "gone". */
static int dir_state(ContainerStore *s, PrivatePath p, const char *id) {
        PrivatePathLook l;
        int r = private_path_look(s->dir, p, id, &l);

        if (r == -ENOENT || r == -ENOTDIR || r == -ELOOP)
                return 0;
        if (r < 0)
                return r;
        return S_ISDIR(l.type) ? 1 : 0;
}

/* The watch on userdata/ once it exists (config.json, pidfile), on <id>/
 * before (userdata/ appearing). Each pass looks first and watches after,
 * then looks again: a userdata/ created in between is seen by that second
 * look. ENOENT: the directory went in between; the next pass says whether
 * its parent is still there. 0, -ENOENT when <id>/ is gone (its removal is
 * an event of overlay-containers/, or the next scan), or -errno. */
static int entry_arm(Entry *e) {
        ContainerStore *s = e->store;

        for (unsigned tries = 0; tries < 16; tries++) {
                int u = dir_state(s, PRIVATE_PATH_USERDATA, e->id), d, wd = -1, r;
                bool on_userdata = u > 0;
                unsigned up;

                if (u < 0)
                        return u;
                if (e->wd >= 0 && e->wd_on_userdata == on_userdata)
                        return 0;
                /* The watch's mask is private_path_watch()'s (PRIVATE_PATH_DIR_MASK). */
                r = private_path_watch(s->inotify_fd, s->dir, on_userdata ? PRIVATE_PATH_USERDATA : PRIVATE_PATH_ENTRY,
                                       e->id, false, &wd, &up);
                if (r < 0) {
                        if (r != -ENOENT && r != -ENOTDIR)
                                return r;
                        d = dir_state(s, PRIVATE_PATH_ENTRY, e->id);
                        if (d < 0)
                                return d;
                        if (d == 0)
                                return -ENOENT;
                        continue;
                }
                if (e->wd >= 0 && e->wd != wd)
                        (void) inotify_rm_watch(e->store->inotify_fd, e->wd);
                e->wd = wd;
                e->wd_on_userdata = on_userdata;
        }
        return -ELOOP; /* userdata/ coming and going faster than we look */
}

/* Re-arm and re-read a known entry: after any event of its directory or of
 * its name, and at every scan. Reading twice what did not change reports
 * nothing (entry_read_pid compares with the pid it knows). */
static void entry_sync(Entry *e) {
        int r;

        if (e->state == ENTRY_IGNORED) {
                store_entry_unwatch(e);
                return;
        }
        r = entry_arm(e);
        if (r < 0 && r != -ENOENT)
                store_schedule_scan(e->store, r, e->id);
        /* The handler may free the store's entries: this is the last use of e. */
        store_entry_refresh(e);
}

static void container_added(ContainerStore *s, const char *id) {
        Entry *e;

        e = calloc(1, sizeof(*e));
        if (!e) {
                log_error("Out of memory while following container %.12s.", id);
                store_schedule_scan(s, -ENOMEM, id);
                return;
        }
        e->store = s;
        e->wd = -1;
        memcpy(e->id, id, 65);
        e->next = s->entries;
        s->entries = e;
        entry_sync(e);
}


/* The one decision for an entry's name: what is on disk now. Safe in any
 * order of events: a removal seen after a creation of the same name, or a
 * creation whose directory is gone again, both end with what is there. */
static void look_at(ContainerStore *s, const char *name) {
        char id[65];
        Entry **i;
        int d;

        if (!crio_id_valid(name))
                return;
        memcpy(id, name, 65); /* name may live in a buffer the handler's work outlives */
        d = dir_state(s, PRIVATE_PATH_ENTRY, id);
        if (d < 0) {
                /* Cannot tell: the entry stays as it is, and the whole
                 * store is looked at again in a second. */
                store_schedule_scan(s, d, id);
                return;
        }
        if (d == 0) {
                store_entry_removed(s, id);
                return;
        }
        i = store_entry_find(s, id);
        if (i)
                entry_sync(*i);
        else
                container_added(s, id);
}

/* The watch on overlay-containers/ itself (PRIVATE_PATH_STORE_MASK). */
static int store_arm_dir(ContainerStore *s) {
        unsigned up;
        int wd = -1, r;

        if (s->dir_wd >= 0)
                return 0;
        r = private_path_watch(s->inotify_fd, s->dir, PRIVATE_PATH_STORE, NULL, false, &wd, &up);
        if (r < 0)
                return r;
        s->dir_wd = wd;
        return 0;
}

/* Everything again: the known entries against the directory, then each
 * name in it looked at (added, or re-armed and re-read). The watch on
 * overlay-containers/ is in place before the listing, so what is created
 * after the listing is an event. */
static int scan(ContainerStore *s) {
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;
        int r, k, fd = -EBADF;

        r = store_arm_dir(s);
        if (r == -ENOENT || r == -ENOTDIR) {
                store_remove_all(s); /* gone: its watch (dir_watch) says when it is back */
                return 0;
        }
        /* The listing: a directory fd opened by private_path_open_store()
         * (the privileged reader: getdents needs only the open's
         * permission). */
        k = private_path_open_store(s->dir, &fd);
        if (k == -ENOENT || k == -ENOTDIR) {
                store_remove_all(s);
                return 0;
        }
        if (k < 0)
                return k;
        d = fdopendir(fd);
        if (!d) {
                k = -errno;
                close(fd);
                return k;
        }
        /* Removed while we did not look: one at a time and from the start
         * again, as the handler (REMOVED) may change the list. */
        for (bool again = true; again;) {
                again = false;
                for (Entry *e = s->entries; e; e = e->next) {
                        char id[65];
                        int st = dir_state(s, PRIVATE_PATH_ENTRY, e->id);

                        if (st < 0)
                                return st; /* cannot tell: kept, and the scan is retried */
                        if (st > 0)
                                continue;
                        memcpy(id, e->id, sizeof(id));
                        store_entry_removed(s, id);
                        again = true;
                        break;
                }
        }
        while ((de = readdir(d)))
                look_at(s, de->d_name);
        return r;
}

static void store_scan(ContainerStore *s) {
        int r = scan(s);

        if (r < 0)
                store_schedule_scan(s, r, s->dir);
        else if (!s->retry || sd_event_source_get_enabled(s->retry, NULL) == 0)
                s->retry_logged = false;
}

static int on_retry(sd_event_source *src, uint64_t usec, void *userdata) {
        store_scan(userdata);
        return 0;
}

/* A watch that cannot be had, an entry that could not be allocated: look at
 * the whole store again in a second, and again, until it works. */
static void store_schedule_scan(ContainerStore *s, int error, const char *what) {
        int r;

        if (!s->retry_logged) {
                log_warning_errno(error, "Container store %s: cannot watch %.12s (%m): looking at the whole store "
                                         "every second until it can.", s->dir, what);
                s->retry_logged = true;
        }
        if (s->retry) {
                (void) sd_event_source_set_time_relative(s->retry, RETRY_USEC);
                (void) sd_event_source_set_enabled(s->retry, SD_EVENT_ONESHOT);
                return;
        }
        r = sd_event_add_time_relative(s->event, &s->retry, CLOCK_MONOTONIC, RETRY_USEC, 0, on_retry, s);
        if (r < 0)
                log_error_errno(r, "Cannot arm the container store's retry: containers may be missed until "
                                   "the daemon restarts: %m");
        else
                (void) sd_event_source_set_description(s->retry, "container-store-retry");
}

static Entry *entry_by_wd(ContainerStore *s, int wd) {
        for (Entry *e = s->entries; e; e = e->next)
                if (e->wd == wd)
                        return e;
        return NULL;
}

/* One event: which name to look at, or that everything must be. */
static void store_event(ContainerStore *s, const struct inotify_event *ev, bool *rescan) {
        Entry *e;

        if (ev->mask & IN_Q_OVERFLOW) {
                *rescan = true;
                return;
        }
        if (ev->wd == s->dir_wd) {
                if (ev->mask & IN_IGNORED)
                        s->dir_wd = -1;
                if (ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT))
                        *rescan = true; /* overlay-containers/ itself went: dir_watch follows it */
                else if (ev->len > 0)
                        look_at(s, ev->name);
                return;
        }
        e = entry_by_wd(s, ev->wd);
        if (!e)
                return; /* a watch we dropped: its entry is gone or watched elsewhere */
        if (ev->mask & IN_IGNORED)
                e->wd = -1; /* the kernel dropped it: look_at watches again if the directory is there */
        look_at(s, e->id);
}

static int on_inotify(sd_event_source *src, int fd, uint32_t revents, void *userdata) {
        ContainerStore *s = userdata;
        union {
                struct inotify_event ev;
                char raw[16 * (sizeof(struct inotify_event) + NAME_MAX + 1)];
        } buf;
        bool rescan = false;
        ssize_t n;

        n = read(fd, &buf, sizeof(buf));
        if (n < 0) {
                if (errno == EAGAIN || errno == EINTR)
                        return 0;
                /* Events may be lost: the whole store again. Never a
                 * negative return: sd-event would disable the source. */
                log_debug_errno(errno, "Cannot read the container store's inotify events, rescanning: %m");
                store_scan(s);
                return 0;
        }
        for (ssize_t off = 0; off + (ssize_t) sizeof(struct inotify_event) <= n;) {
                const struct inotify_event *ev = (const struct inotify_event *) (buf.raw + off);

                off += (ssize_t) (sizeof(struct inotify_event) + ev->len);
                store_event(s, ev, &rescan);
        }
        if (rescan) {
                log_warning("Lost inotify events on %s: rescanning the store.", s->dir);
                store_scan(s);
        }
        return 0;
}

static void on_dir(PathWatch *w, bool exists, void *userdata) {
        ContainerStore *s = userdata;

        if (!exists) {
                if (s->dir_wd >= 0)
                        (void) inotify_rm_watch(s->inotify_fd, s->dir_wd);
                s->dir_wd = -1;
                store_remove_all(s);
                return;
        }
        if (s->dir_wd < 0)
                store_scan(s);
}

ContainerStore *container_store_free(ContainerStore *s) {
        if (!s)
                return NULL;
        while (s->entries) {
                Entry *e = s->entries;

                s->entries = e->next;
                store_entry_free(e);
        }
        sd_event_source_disable_unref(s->inotify_source);
        sd_event_source_disable_unref(s->retry);
        if (s->inotify_fd >= 0)
                close(s->inotify_fd);
        exec_watch_free(s->execs);
        path_watch_free(s->dir_watch);
        sd_event_unref(s->event);
        free(s->dir);
        free(s);
        return NULL;
}

int container_store_new(sd_event *e, const char *store_dir, ContainerStoreWant want, ContainerStoreHandler handler,
                        void *userdata, ContainerStore **ret) {
        _cleanup_(container_store_freep) ContainerStore *s = calloc(1, sizeof(*s));
        int r;

        if (!s)
                return -ENOMEM;
        s->inotify_fd = s->dir_wd = -1;
        s->event = sd_event_ref(e);
        s->want = want;
        s->handler = handler;
        s->userdata = userdata;
        r = crio_containers_dir(store_dir, &s->dir);
        if (r < 0)
                return r;
        s->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (s->inotify_fd < 0)
                return -errno;
        r = sd_event_add_io(e, &s->inotify_source, s->inotify_fd, EPOLLIN, on_inotify, s);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(s->inotify_source, "container-store");
        r = path_watch_new_private(e, s->dir, PRIVATE_PATH_STORE, NULL, "container-store-dir", on_dir, s,
                                   &s->dir_watch);
        if (r < 0)
                return r;
        if (path_watch_exists(s->dir_watch))
                store_scan(s);
        *ret = TAKE_PTR(s);
        return 0;
}

int container_store_rescan(ContainerStore *s) {
        return s->dir_wd >= 0 ? scan(s) : 0;
}

