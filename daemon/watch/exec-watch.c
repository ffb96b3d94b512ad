/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host/crio.h"
#include "host/host-root.h"
#include "host/private-path.h"
#include "publish/log.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "watch/exec-watch.h"
#include "watch/path-watch.h"

/* After the fifo went: look at once, then 4 ms, doubling, 10 looks in all
 * (~2 s). crun's init execs right after it reads the byte `crun start`
 * writes after the removal (microseconds; tens of ms under emulation), runc
 * main's after its StartContainer hooks: a start that has not shown by then
 * is not coming from this release, and the caller looks on its own. */
#define AFTER_REMOVAL_FIRST_USEC (4ULL * 1000ULL)
#define AFTER_REMOVAL_LOOKS 10U

typedef struct Follow {
        ExecWatch *watch;
        char id[65];
        pid_t pid;
        PathWatch *fifo;        /* <root>/<id>/exec.fifo */
        bool present;           /* there when last seen */
        bool removed;           /* seen going: the looks below run */
        unsigned looks;         /* looks done since the removal */
        sd_event_source *look;
        struct Follow *next;
} Follow;

struct ExecWatch {
        sd_event *event;
        sd_event_source *connector; /* NULL: not available */
        Follow *follows;
        ExecWatchHandler handler;
        void *userdata;
        bool dispatching, freed;    /* freed by the handler while we loop */
};

/* ---- the runtimes' exec fifos -------------------------------------------- */

static Follow *follow_free(Follow *f) {
        if (!f)
                return NULL;
        path_watch_free(f->fifo);
        sd_event_source_disable_unref(f->look);
        free(f);
        return NULL;
}

static Follow *follow_find(const ExecWatch *w, const char *id) {
        for (Follow *f = w ? w->follows : NULL; f; f = f->next)
                if (streq(f->id, id))
                        return f;
        return NULL;
}

static bool follow_covers(const Follow *f) {
        return f->present || (f->removed && f->looks < AFTER_REMOVAL_LOOKS);
}

static int on_look(sd_event_source *s, uint64_t usec, void *userdata) {
        Follow *f = userdata;
        ExecWatch *w = f->watch;

        f->looks++;
        if (f->looks < AFTER_REMOVAL_LOOKS) {
                (void) sd_event_source_set_time_relative(s, AFTER_REMOVAL_FIRST_USEC << (f->looks - 1));
                (void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        } else
                log_debug("Container %.12s: no start %u looks after its exec fifo went; the store looks on its own.",
                          f->id, f->looks);
        /* Last: the handler may forget f or free the watch. */
        w->handler(w, f->pid, w->userdata);
        return 0;
}

static void on_fifo(PathWatch *pw, bool exists, void *userdata) {
        Follow *f = userdata;
        int r;

        if (exists) {
                f->present = true;
                return;
        }
        if (!f->present)
                return; /* another event in the directory: nothing new */
        f->present = false;
        f->removed = true;
        f->looks = 0;
        log_debug("Container %.12s: its runtime removed %s: its start is under way.", f->id, path_watch_path(pw));
        /* Not from here: the handler may forget f, whose PathWatch is
         * dispatching this very call. */
        if (!f->look) {
                r = sd_event_add_time_relative(f->watch->event, &f->look, CLOCK_MONOTONIC, 0, 0, on_look, f);
                if (r < 0) {
                        /* covered no more: the caller's own looks take over */
                        f->looks = AFTER_REMOVAL_LOOKS;
                        log_warning_errno(r, "Container %.12s: cannot look at its start now: %m", f->id);
                        return;
                }
                (void) sd_event_source_set_description(f->look, "exec-fifo-look");
                return;
        }
        (void) sd_event_source_set_time_relative(f->look, 0);
        (void) sd_event_source_set_enabled(f->look, SD_EVENT_ONESHOT);
}

/* A watch on <root>/<id>/exec.fifo if it is there now (fifo: the
 * runtime's kind, host/private-path.h: /run/runc and /run/crun are root's
 * 0700, so the look and the watch are the privileged reader's). 1 watched,
 * 0 no fifo there, -errno. */
static int follow_root(ExecWatch *w, PrivatePath fifo, const char *id, PathWatch **ret, Follow *f) {
        _cleanup_free_ char *desc = NULL;
        PathWatch *pw = NULL;
        int r;

        r = private_path_exists(NULL, fifo, id);
        if (r <= 0)
                return r;
        if (asprintf(&desc, "exec-fifo-%.12s", id) < 0)
                return -ENOMEM;
        r = path_watch_new_private(w->event, NULL, fifo, id, desc, on_fifo, f, &pw);
        if (r < 0)
                return r;
        if (!path_watch_exists(pw)) {
                /* gone between the look and the watch: the start may be done */
                path_watch_free(pw);
                return 0;
        }
        *ret = pw;
        return 1;
}

int exec_watch_follow(ExecWatch *w, const char *id, pid_t pid) {
        _cleanup_free_ Follow *f = NULL;
        Follow *known;
        PrivatePath fifo;
        int r = 0, err = 0;

        if (!w || !id)
                return -EINVAL;
        known = follow_find(w, id);
        if (known) {
                known->pid = pid;
                return follow_covers(known);
        }
        f = calloc(1, sizeof(*f));
        if (!f)
                return -ENOMEM;
        f->watch = w;
        f->pid = pid;
        snprintf(f->id, sizeof(f->id), "%s", id);
        for (size_t i = 0; (fifo = private_path_fifo(i)); i++) {
                r = follow_root(w, fifo, id, &f->fifo, f);
                if (r > 0)
                        break;
                if (r < 0)
                        err = r;
        }
        if (r <= 0)
                return err ?: 0;
        f->present = true;
        f->next = w->follows;
        w->follows = TAKE_PTR(f);
        return 1;
}

int exec_watch_cover(ExecWatch *w, const char *id, pid_t pid, bool *said_fallback) {
        bool known = follow_find(w, id);
        int r = w ? exec_watch_follow(w, id, pid) : -ENOTCONN;

        if (r > 0 && !known)
                log_info("Container %.12s: its start is watched on %s.", id, exec_watch_followed_path(w, id));
        if (r > 0 || *said_fallback)
                return r;
        *said_fallback = true;
        if (r == 0)
                log_info("Container %.12s: no exec fifo of its runtime to watch under /run/runc or /run/crun; "
                         "its start is looked for every 2 s.", id);
        else
                log_full_errno(LOG_INFO, r, "Container %.12s: cannot watch its runtime's exec fifo (%m); its start "
                                            "is looked for every 2 s.", id);
        return r;
}

void exec_watch_forget(ExecWatch *w, const char *id) {
        if (!w || !id)
                return;
        for (Follow **i = &w->follows; *i; i = &(*i)->next)
                if (streq((*i)->id, id)) {
                        Follow *f = *i;

                        *i = f->next;
                        follow_free(f);
                        return;
                }
}

const char *exec_watch_followed_path(const ExecWatch *w, const char *id) {
        const Follow *f = id ? follow_find(w, id) : NULL;

        return f ? path_watch_path(f->fifo) : "";
}

/* ---- the kernel's process connector ------------------------------------- */

/* netlink header + connector header + the listen op, as the kernel wants it
 * (built in a buffer: struct cn_msg ends in a flexible array, so it cannot
 * sit inside a struct before the op). */
static int send_listen(int fd) {
        enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
        char buf[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(op))] __attribute__((aligned(NLMSG_ALIGNTO))) = { 0 };
        struct nlmsghdr *nl = (struct nlmsghdr *) buf;
        struct cn_msg *cn = NLMSG_DATA(nl);

        nl->nlmsg_len = NLMSG_LENGTH(sizeof(*cn) + sizeof(op));
        nl->nlmsg_type = NLMSG_DONE;
        cn->id.idx = CN_IDX_PROC;
        cn->id.val = CN_VAL_PROC;
        cn->len = sizeof(op);
        memcpy(cn->data, &op, sizeof(op));
        return send(fd, nl, nl->nlmsg_len, 0) < 0 ? -errno : 0;
}

static void exec_watch_release(ExecWatch *w) {
        while (w->follows) {
                Follow *f = w->follows;

                w->follows = f->next;
                follow_free(f);
        }
        sd_event_source_disable_unref(w->connector);
        sd_event_unref(w->event);
        free(w);
}

static int on_readable(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        ExecWatch *w = userdata;
        char buf[4096] __attribute__((aligned(NLMSG_ALIGNTO)));
        ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

        if (n < 0) {
                if (errno == ENOBUFS)
                        log_debug("Process connector overflow: some execs were not seen.");
                return 0;
        }
        /* One datagram may carry several execs; the handler may free w
         * after any of them. */
        w->dispatching = true;
        for (struct nlmsghdr *nl = (struct nlmsghdr *) buf; NLMSG_OK(nl, (size_t) n) && !w->freed;
             nl = NLMSG_NEXT(nl, n)) {
                const struct cn_msg *cn = NLMSG_DATA(nl);
                const struct proc_event *ev = (const struct proc_event *) cn->data;

                if (nl->nlmsg_len < NLMSG_LENGTH(sizeof(*cn) + sizeof(*ev)))
                        continue;
                if (ev->what == PROC_EVENT_EXEC)
                        w->handler(w, ev->event_data.exec.process_tgid, w->userdata);
        }
        w->dispatching = false;
        if (w->freed)
                exec_watch_release(w);
        return 0;
}

static int connector_new(ExecWatch *w) {
        _cleanup_close_ int fd = -EBADF;
        struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC, .nl_pid = 0 };
        int r;

        fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_CONNECTOR);
        if (fd < 0)
                return -errno;
        if (bind(fd, (struct sockaddr *) &addr, sizeof(addr)) < 0)
                return -errno;
        r = send_listen(fd);
        if (r < 0)
                return r;
        r = sd_event_add_io(w->event, &w->connector, fd, EPOLLIN, on_readable, w);
        if (r < 0)
                return r;
        (void) sd_event_source_set_io_fd_own(w->connector, true);
        TAKE_FD(fd);
        (void) sd_event_source_set_description(w->connector, "exec-watch");
        return 0;
}

ExecWatch *exec_watch_free(ExecWatch *w) {
        if (!w)
                return NULL;
        if (w->dispatching) {
                w->freed = true; /* on_readable finishes the job */
                return NULL;
        }
        exec_watch_release(w);
        return NULL;
}

int exec_watch_new(sd_event *e, ExecWatchHandler handler, void *userdata, ExecWatch **ret) {
        ExecWatch *w = calloc(1, sizeof(*w));
        int r;

        if (!w)
                return -ENOMEM;
        w->event = sd_event_ref(e);
        w->handler = handler;
        w->userdata = userdata;
        /* A fake root's processes exec nothing the kernel could tell us. */
        if (host_root_is_real()) {
                r = connector_new(w);
                if (r < 0)
                        log_debug_errno(r, "The kernel's process connector is not available (%m): the runtimes' "
                                           "exec fifos say when a created container starts.");
        }
        *ret = w;
        return 0;
}
