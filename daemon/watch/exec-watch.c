/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "watch/exec-watch.h"
#include "publish/log.h"
#include "util/macro.h"

struct ExecWatch {
        sd_event_source *source;
        ExecWatchHandler handler;
        void *userdata;
};

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

static int on_readable(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        ExecWatch *w = userdata;
        char buf[4096] __attribute__((aligned(NLMSG_ALIGNTO)));
        ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

        if (n < 0) {
                if (errno == ENOBUFS)
                        log_debug("Process connector overflow: some execs were not seen.");
                return 0;
        }
        for (struct nlmsghdr *nl = (struct nlmsghdr *) buf; NLMSG_OK(nl, (size_t) n); nl = NLMSG_NEXT(nl, n)) {
                const struct cn_msg *cn = NLMSG_DATA(nl);
                const struct proc_event *ev = (const struct proc_event *) cn->data;

                if (nl->nlmsg_len < NLMSG_LENGTH(sizeof(*cn) + sizeof(*ev)))
                        continue;
                if (ev->what == PROC_EVENT_EXEC)
                        w->handler(w, ev->event_data.exec.process_tgid, w->userdata);
        }
        return 0;
}

ExecWatch *exec_watch_free(ExecWatch *w) {
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->source);
        free(w);
        return NULL;
}

static inline void exec_watch_freep(ExecWatch **w) {
        exec_watch_free(*w);
}

int exec_watch_new(sd_event *e, ExecWatchHandler handler, void *userdata, ExecWatch **ret) {
        _cleanup_(exec_watch_freep) ExecWatch *w = calloc(1, sizeof(*w));
        _cleanup_close_ int fd = -EBADF;
        struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC, .nl_pid = 0 };
        int r;

        if (!w)
                return -ENOMEM;
        w->handler = handler;
        w->userdata = userdata;
        fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_CONNECTOR);
        if (fd < 0)
                return -errno;
        if (bind(fd, (struct sockaddr *) &addr, sizeof(addr)) < 0)
                return -errno;
        r = send_listen(fd);
        if (r < 0)
                return r;
        r = sd_event_add_io(e, &w->source, fd, EPOLLIN, on_readable, w);
        if (r < 0)
                return r;
        (void) sd_event_source_set_io_fd_own(w->source, true);
        TAKE_FD(fd);
        (void) sd_event_source_set_description(w->source, "exec-watch");
        *ret = TAKE_PTR(w);
        return 0;
}
