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
#include "sandbox/parser-sandbox.h"
#include "swap/swap-moment.h"
#include "swap/swap-snapshot.h"
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

/* The container's root, opened once per decision: every file below is
 * resolved inside it (an image's absolute symlink points into the image,
 * never at the node's files). */
static int open_root(pid_t pid) {
        _cleanup_free_ char *p = NULL;
        int fd;

        if (host_pathf(&p, "/proc/%d/root", (int) pid) < 0)
                return -ENOMEM;
        fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

/* The scripts are the image's: each is read in the parser child
 * (sandbox/parser-sandbox.h), which answers one word the parent checks. */
enum { MOMENT_REPLY_KNOWLEDGE = 1 };

static const char *knowledge_word(Knowledge k) {
        return k == KNOWN_YES ? "yes" : k == KNOWN_NO ? "no" : "unknown";
}

typedef Knowledge (*ScriptParser)(const char *text);

static int script_job(int input_fd, ReplyWriter *w, void *userdata) {
        ScriptParser parse = (ScriptParser) userdata;
        _cleanup_free_ char *text = NULL;
        int r;

        r = parser_sandbox_read_input(input_fd, MOMENT_SCRIPT_MAX, &text, NULL);
        if (r < 0)
                return r;
        return reply_put_string(w, MOMENT_REPLY_KNOWLEDGE, knowledge_word(parse(text)));
}

static bool knowledge_word_valid(const char *s) {
        return streq(s, "yes") || streq(s, "no") || streq(s, "unknown");
}

/* What parse says of the file at path in the container's root; unknown
 * when it cannot be read or the child fails (the safe side: the stack then
 * goes at the container's start). */
static Knowledge script_knowledge(int root, const char *path, ScriptParser parse) {
        static const ReplyField schema[] = {
                { MOMENT_REPLY_KNOWLEDGE, 7, 1, knowledge_word_valid, "knowledge" },
        };
        _cleanup_(reply_freep) Reply *reply = NULL;
        _cleanup_free_ uint8_t *buf = NULL;
        _cleanup_close_ int fd = -EBADF;
        const char *v;
        size_t len = 0;

        if (parser_sandbox_open_in_root(root, path, false, MOMENT_SCRIPT_MAX, &fd) < 0 ||
            parser_sandbox_run(fd, script_job, (void *) parse, &buf, &len, NULL) < 0 ||
            reply_decode(buf, len, schema, ELEMENTSOF(schema), &reply, NULL) < 0 || reply->error != 0)
                return KNOWN_UNKNOWN;
        v = reply_get(reply, MOMENT_REPLY_KNOWLEDGE);
        return !v ? KNOWN_UNKNOWN : streq(v, "yes") ? KNOWN_YES : streq(v, "no") ? KNOWN_NO : KNOWN_UNKNOWN;
}

static Knowledge openibd_knowledge(int root, const char **ret_file) {
        *ret_file = NULL;
        if (root < 0)
                return KNOWN_UNKNOWN;
        for (size_t i = 0; i < ELEMENTSOF(openibd_files); i++) {
                Knowledge k = script_knowledge(root, openibd_files[i], openibd_check_lists_nvme);

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
/* The first bytes of a file in the container's root ("#!", "\177ELF"):
 * four bytes compared, no parsing, so read here. A symlink is followed,
 * inside the root (/bin/sh -> dash). */
static bool head_in_root(int root, const char *path, char buf[static 4]) {
        _cleanup_close_ int fd = -EBADF;

        return parser_sandbox_open_in_root(root, path, true, SIZE_MAX, &fd) >= 0 && read(fd, buf, 4) == 4;
}

static Knowledge image_knowledge(pid_t pid, int root) {
        _cleanup_free_ char *path = NULL, *cmdline = NULL;
        size_t n = 0;
        bool any = false;

        if (root < 0)
                return KNOWN_UNKNOWN;
        /* The kernel's cmdline says size 0: read to its end, not st_size.
         * Only split at its NULs here: the scripts it names are parsed in
         * the child. */
        if (host_pathf(&path, "/proc/%d/cmdline", (int) pid) < 0 || read_full_file(path, &cmdline, &n) < 0 || n == 0)
                return KNOWN_UNKNOWN;
        for (const char *a = cmdline; a < cmdline + n; a += strlen(a) + 1) {
                char head[4];

                if (a[0] != '/' || !head_in_root(root, a, head))
                        continue;
                if (memcmp(head, "#!", 2) != 0) {
                        if (!any && memcmp(head, "\177ELF", 4) == 0 && !is_shell(a))
                                return KNOWN_NO;
                        continue; /* a shell running the script that follows */
                }
                switch (script_knowledge(root, a, entrypoint_loads_nvme)) {
                case KNOWN_YES:
                        return KNOWN_YES;
                case KNOWN_NO:
                        any = true;
                        break;
                default:
                        break; /* not readable: as before, not counted */
                }
        }
        return any ? KNOWN_NO : KNOWN_UNKNOWN;
}

void swap_moment_decide(SwapFollow *f, SwapMachine *s, const Config *c, const SwapNodeView *node) {
        _cleanup_close_ int root = -EBADF;
        const NodeStack *stack = NULL;
        const NodeModule *rdma;
        const char *openibd = NULL;
        const char *id = f->container.identity ? f->container.identity->id : NULL;
        UnloadMomentInput in = {
                .earlier_build = f->earlier_build,
                .unload_storage_modules = f->env.unload_storage_modules,
        };
        char at_field[64], why_field[64];
        char *extra[] = { at_field, why_field, NULL };

        f->moment_decided = false;
        if (c->unload_at != UNLOAD_AT_AUTO || !id)
                return;
        if (swap_snapshot_stack(node->step, node->ops, node->loop, &stack) >= 0) {
                in.replacement_loaded = node_stack_replacement_loaded(stack);
                rdma = node_stack_find(stack, "nvme_rdma");
                in.nvme_rdma_loaded = rdma && rdma->origin == NODE_ORIGIN_IN_TREE;
        } else
                in.replacement_loaded = true; /* not known: the safe side */
        root = open_root(f->container.pid);
        in.openibd_lists_nvme = openibd_knowledge(root, &openibd);
        in.image_loads_nvme = image_knowledge(f->container.pid, root);
        f->moment = unload_moment_decide(&in);
        f->moment_decided = true;
        snprintf(at_field, sizeof(at_field), "SWAPGUARD_UNLOAD_AT=%s", unload_at_to_string(f->moment.at));
        snprintf(why_field, sizeof(why_field), "SWAPGUARD_MOMENT_RULE=%s", unload_moment_rule_to_string(f->moment.why));
        report_event(LOG_INFO, SWAPGUARD_MESSAGE_UNLOAD_MOMENT,
                     &(ReportFields) { .state = swap_state_to_string(s->state), .container_id = id, .extra = extra },
                     "UnloadAt=auto: for driver container %.12s the in-tree stack goes %s: %s%s%s.", id,
                     f->moment.at == UNLOAD_AT_DRIVER_READY ? "at its ready file (drives up through its compile)"
                                                            : "at its start (drives down through its compile)",
                     unload_moment_why_to_string(f->moment.why), openibd ? "; openibd read from " : "",
                     openibd ?: "");
        swap_record_message(s, "UnloadAt=auto: %s (%s)", unload_at_to_string(f->moment.at),
                            unload_moment_why_to_string(f->moment.why));
}

UnloadAt swap_moment_unload_at(const Config *c, const SwapFollow *f) {
        if (c->unload_at != UNLOAD_AT_AUTO)
                return c->unload_at;
        return f->moment_decided ? f->moment.at : UNLOAD_AT_CONTAINER_START;
}
