/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/host-root.h"
#include "publish/log.h"
#include "publish/report.h"
#include "swap/swap-moment.h"
#include "swap/swap-record.h"
#include "util/fileio.h"
#include "util/strv.h"

/* Scripts are small; a bigger file is not one we read (a hostile image). */
#define MOMENT_SCRIPT_MAX (1024U * 1024U)

/* Where mlnx-ofa_kernel keeps check_if_ok_to_stop, in the container's
 * root: mod_load_funcs in current packages (the RHEL precompiled image
 * patches it there), openibd itself in older ones. */
static const char *const openibd_files[] = {
        "/usr/share/mlnx_ofed/mod_load_funcs",
        "/etc/init.d/openibd",
        "/usr/sbin/openibd",
};

static int read_in_root(pid_t pid, const char *path, char **ret) {
        _cleanup_free_ char *p = NULL;
        int r;

        r = host_pathf(&p, "/proc/%d/root%s", (int) pid, path);
        if (r < 0)
                return r;
        return read_regular_file(p, MOMENT_SCRIPT_MAX, ret, NULL);
}

static Knowledge openibd_knowledge(pid_t pid, const char **ret_file) {
        *ret_file = NULL;
        for (size_t i = 0; i < ELEMENTSOF(openibd_files); i++) {
                _cleanup_free_ char *text = NULL;
                Knowledge k;

                if (read_in_root(pid, openibd_files[i], &text) < 0)
                        continue;
                k = openibd_check_lists_nvme(text);
                if (k != KNOWN_UNKNOWN) {
                        *ret_file = openibd_files[i];
                        return k;
                }
        }
        return KNOWN_UNKNOWN;
}

static bool is_shell(const char *path) {
        static const char *const shells[] = { "sh", "bash", "dash", "ash", "busybox", NULL };
        const char *base = strrchr(path, '/');

        return strv_contains((char *const *) shells, base ? base + 1 : path);
}

/* The container's init runs its entrypoint: a script named in its command
 * line (bash /root/entrypoint.sh, or loader.sh), read from its root. An
 * init that is a program and no shell is the Go entrypoint (loader.sh
 * execs it), which never loads nvme itself: the images that did (before
 * doca-driver-build PR #91) ran the bash entrypoint. */
/* The first bytes of a file in the container's root ("#!", "\177ELF"). */
static bool head_in_root(pid_t pid, const char *path, char buf[static 4]) {
        _cleanup_free_ char *p = NULL;
        _cleanup_close_ int fd = -EBADF;

        if (host_pathf(&p, "/proc/%d/root%s", (int) pid, path) < 0)
                return false;
        fd = open(p, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        return fd >= 0 && read(fd, buf, 4) == 4;
}

static Knowledge image_knowledge(pid_t pid) {
        _cleanup_free_ char *path = NULL, *cmdline = NULL;
        size_t n = 0;
        bool any = false;

        /* The kernel's cmdline says size 0: read to its end, not st_size. */
        if (host_pathf(&path, "/proc/%d/cmdline", (int) pid) < 0 || read_full_file(path, &cmdline, &n) < 0 || n == 0)
                return KNOWN_UNKNOWN;
        for (const char *a = cmdline; a < cmdline + n; a += strlen(a) + 1) {
                _cleanup_free_ char *text = NULL;
                char head[4];

                if (a[0] != '/' || !head_in_root(pid, a, head))
                        continue;
                if (memcmp(head, "#!", 2) != 0) {
                        if (!any && memcmp(head, "\177ELF", 4) == 0 && !is_shell(a))
                                return KNOWN_NO;
                        continue; /* a shell running the script that follows */
                }
                if (read_in_root(pid, a, &text) < 0)
                        continue;
                any = true;
                if (entrypoint_loads_nvme(text) == KNOWN_YES)
                        return KNOWN_YES;
        }
        return any ? KNOWN_NO : KNOWN_UNKNOWN;
}

void swap_moment_decide(Manager *m) {
        NodeStack *stack = NULL;
        const NodeModule *rdma;
        const char *openibd = NULL;
        const char *id = m->follow.container.identity ? m->follow.container.identity->id : NULL;
        UnloadMomentInput in = {
                .earlier_build = m->follow.earlier_build,
                .unload_storage_modules = m->follow.env.unload_storage_modules,
        };
        char at_field[64], why_field[64];
        char *extra[] = { at_field, why_field, NULL };

        m->follow.moment_decided = false;
        if (m->config->unload_at != UNLOAD_AT_AUTO || !id)
                return;
        if (m->ops->read_stack(m->ops->userdata, &stack) >= 0) {
                in.replacement_loaded = node_stack_replacement_loaded(stack);
                rdma = node_stack_find(stack, "nvme_rdma");
                in.nvme_rdma_loaded = rdma && rdma->origin == NODE_ORIGIN_IN_TREE;
                node_stack_free(stack);
        } else
                in.replacement_loaded = true; /* not known: the safe side */
        in.openibd_lists_nvme = openibd_knowledge(m->follow.container.pid, &openibd);
        in.image_loads_nvme = image_knowledge(m->follow.container.pid);
        m->follow.moment = unload_moment_decide(&in);
        m->follow.moment_decided = true;
        snprintf(at_field, sizeof(at_field), "SWAPGUARD_UNLOAD_AT=%s", unload_at_to_string(m->follow.moment.at));
        snprintf(why_field, sizeof(why_field), "SWAPGUARD_MOMENT_RULE=%s", unload_moment_rule_to_string(m->follow.moment.why));
        report_event(LOG_INFO, SWAPGUARD_MESSAGE_UNLOAD_MOMENT,
                     &(ReportFields) { .state = swap_state_to_string(m->swap.state), .container_id = id, .extra = extra },
                     "UnloadAt=auto: for driver container %.12s the in-tree stack goes %s: %s%s%s.", id,
                     m->follow.moment.at == UNLOAD_AT_DRIVER_READY ? "at its ready file (drives up through its compile)"
                                                            : "at its start (drives down through its compile)",
                     unload_moment_why_to_string(m->follow.moment.why), openibd ? "; openibd read from " : "",
                     openibd ?: "");
        swap_record_message(&m->swap, "UnloadAt=auto: %s (%s)", unload_at_to_string(m->follow.moment.at),
                            unload_moment_why_to_string(m->follow.moment.why));
}

UnloadAt swap_moment_unload_at(const Config *c, const SwapFollow *f) {
        if (c->unload_at != UNLOAD_AT_AUTO)
                return c->unload_at;
        return f->moment_decided ? f->moment.at : UNLOAD_AT_CONTAINER_START;
}
