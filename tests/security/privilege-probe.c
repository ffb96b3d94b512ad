/* SPDX-License-Identifier: Apache-2.0 */
/* privilege-probe [--as-parser]: what a takeover of this process could
 * reach. It tries each path a node's security team asks about (modprobe
 * configuration modprobe reads, units and udev rules under /run, a FIFO and a
 * symlink in /dev, the NVMe-oF secrets files, another process's environ and
 * mem, sysfs's DH-HMAC-CHAP secrets) and prints one line per path, "open" or
 * "closed (<errno name>)"; exit 1 when any opened, 0 when none did.
 *
 * With --as-parser it first enters the parser child, through the same
 * function the daemon uses for every config.json (parser_sandbox_run()),
 * and tries them from there. Without it, it tries them as itself: run as
 * the unit's ExecStart, that is the daemon's identity.
 *
 * Paths go through the host-root seam (NVME_SWAPGUARD_ROOT), so a test can
 * point it at a fake root where they all are open to its user. What it
 * creates it removes at once. Linux's overflow uid and a capability set of
 * zero are the parser child's; the line "# identity" says what it holds. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/host-root.h"
#include "sandbox/parser-sandbox.h"
#include "sandbox/sandbox-reply.h"
#include "util/macro.h"
#include "util/strv.h"

typedef enum Try { TRY_CREATE, TRY_MKFIFO, TRY_SYMLINK, TRY_READ } Try;

typedef struct Probe {
        Try how;
        const char *path; /* on the host; host_path() adds the root */
} Probe;

static const Probe probes[] = {
        { TRY_CREATE, "/run/modprobe.d/zz-privilege-probe.conf" },
        { TRY_CREATE, "/etc/modprobe.d/zz-privilege-probe.conf" },
        { TRY_CREATE, "/run/systemd/system/zz-privilege-probe.service" },
        { TRY_CREATE, "/run/udev/rules.d/zz-privilege-probe.rules" },
        { TRY_MKFIFO, "/dev/zz-privilege-probe-fifo" },
        { TRY_SYMLINK, "/dev/zz-privilege-probe-link" },
        { TRY_READ, "/run/nvme-swapguard-secrets/secrets.json" },
        { TRY_READ, "/run/nvme-swapguard-fabrics/secrets.json" },
        { TRY_READ, "/proc/1/environ" },
        { TRY_READ, "/proc/1/mem" },
};

enum { KEY_LINE = 1, KEY_IDENTITY = 2 };
#define LINES_MAX 64

/* 0 when the try succeeded (and was undone), else a positive errno. */
static int try_one(Try how, const char *path) {
        int fd, e;

        switch (how) {
        case TRY_CREATE:
                fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
                if (fd < 0)
                        return errno;
                close(fd);
                (void) unlink(path);
                return 0;
        case TRY_MKFIFO:
                if (mkfifo(path, 0600) < 0)
                        return errno;
                (void) unlink(path);
                return 0;
        case TRY_SYMLINK:
                if (symlink("/dev/null", path) < 0)
                        return errno;
                (void) unlink(path);
                return 0;
        case TRY_READ:
        default:
                fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
                if (fd < 0)
                        return errno;
                e = 0;
                close(fd);
                return e;
        }
}

static const char *errno_name(int e) {
        const char *n = strerrorname_np(e);

        return n ?: "unknown errno";
}

/* The paths, rooted, and the sysfs secrets found (enumerated before any
 * confinement: their names are public, their contents are not). */
typedef struct Plan {
        char **paths;
        Try *how;
        size_t n;
} Plan;

static int plan_add(Plan *p, Try how, const char *rooted) {
        Try *h = realloc(p->how, (p->n + 1) * sizeof(*h));

        if (!h)
                return -ENOMEM;
        p->how = h;
        if (strv_extend(&p->paths, rooted) < 0)
                return -ENOMEM;
        p->how[p->n++] = how;
        return 0;
}

static int plan_build(Plan *p) {
        _cleanup_free_ char *pattern = NULL;
        glob_t g = {};

        for (size_t i = 0; i < ELEMENTSOF(probes); i++) {
                _cleanup_free_ char *rooted = NULL;

                if (host_path(probes[i].path, &rooted) < 0 || plan_add(p, probes[i].how, rooted) < 0)
                        return -ENOMEM;
        }
        if (host_path("/sys/class/nvme/*/dhchap_*secret", &pattern) < 0)
                return -ENOMEM;
        if (glob(pattern, 0, NULL, &g) == 0)
                for (size_t i = 0; i < g.gl_pathc; i++)
                        if (plan_add(p, TRY_READ, g.gl_pathv[i]) < 0) {
                                globfree(&g);
                                return -ENOMEM;
                        }
        globfree(&g);
        return 0;
}

static int identity_line(char *buf, size_t size) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};

        if (syscall(SYS_capget, &h, d) < 0)
                return -errno;
        snprintf(buf, size, "uid=%u gid=%u CapEff=%08x%08x CapPrm=%08x%08x CapInh=%08x%08x", (unsigned) getuid(),
                 (unsigned) getgid(), d[1].effective, d[0].effective, d[1].permitted, d[0].permitted,
                 d[1].inheritable, d[0].inheritable);
        return 0;
}

/* One result line: "open <path>" or "closed <ERRNO> <path>", the reply's
 * spelling; printed as "<path>: open" / "<path>: closed (<ERRNO>)". */
static void result_line(char *buf, size_t size, int e, const char *path) {
        if (e == 0)
                snprintf(buf, size, "open %s", path);
        else
                snprintf(buf, size, "closed %s %s", errno_name(e), path);
}

static int job(int input_fd, ReplyWriter *w, void *userdata) {
        const Plan *p = userdata;
        char line[REPLY_STRING_MAX];
        int r;

        r = identity_line(line, sizeof(line));
        if (r < 0)
                return r;
        r = reply_put_string(w, KEY_IDENTITY, line);
        if (r < 0)
                return r;
        for (size_t i = 0; i < p->n; i++) {
                result_line(line, sizeof(line), try_one(p->how[i], p->paths[i]), p->paths[i]);
                r = reply_put_string(w, KEY_LINE, line);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Prints a result line; true when it says open. */
static bool print_result(const char *line) {
        const char *sp;

        if (strneq(line, "open ", 5)) {
                printf("%s: open\n", line + 5);
                return true;
        }
        sp = strchr(line + 7, ' ');
        printf("%s: closed (%.*s)\n", sp ? sp + 1 : line, sp ? (int) (sp - (line + 7)) : 0, line + 7);
        return false;
}

static bool caps_zero(const char *identity) {
        return strstr(identity, "CapEff=0000000000000000 CapPrm=0000000000000000 CapInh=0000000000000000");
}

int main(int argc, char *argv[]) {
        static const ReplyField schema[] = {
                { KEY_LINE, REPLY_STRING_MAX, LINES_MAX, NULL, "result" },
                { KEY_IDENTITY, 256, 1, NULL, "identity" },
        };
        Plan plan = {};
        bool as_parser = argc == 2 && streq(argv[1], "--as-parser"), any_open = false;
        int r;

        if (argc > 2 || (argc == 2 && !as_parser)) {
                fprintf(stderr, "usage: %s [--as-parser]\n", argv[0]);
                return 2;
        }
        if (plan_build(&plan) < 0 || plan.n > LINES_MAX) {
                fprintf(stderr, "privilege-probe: out of memory or too many paths\n");
                return 2;
        }
        if (as_parser) {
                _cleanup_free_ uint8_t *buf = NULL;
                _cleanup_(reply_freep) Reply *reply = NULL;
                const char *why = NULL;
                size_t len = 0;
                int sig = 0;

                r = parser_sandbox_run(-1, job, &plan, &buf, &len, &sig);
                if (r < 0) {
                        fprintf(stderr, "privilege-probe: the parser child failed: %s (signal %d)\n", strerror(-r), sig);
                        return 2;
                }
                r = reply_decode(buf, len, schema, ELEMENTSOF(schema), &reply, &why);
                if (r < 0 || reply->error) {
                        fprintf(stderr, "privilege-probe: the parser child's reply: %s\n",
                                r < 0 ? why : strerror(reply->error));
                        return 2;
                }
                printf("# as the parser child: %s\n", reply_get(reply, KEY_IDENTITY) ?: "?");
                if (!caps_zero(reply_get(reply, KEY_IDENTITY) ?: "")) {
                        printf("# the parser child holds capabilities\n");
                        any_open = true;
                }
                for (size_t i = 0; i < reply->n_items; i++)
                        if (reply->items[i].key == KEY_LINE)
                                any_open = print_result(reply->items[i].value) || any_open;
        } else {
                char line[REPLY_STRING_MAX];

                if (identity_line(line, sizeof(line)) >= 0)
                        printf("# as itself: %s\n", line);
                for (size_t i = 0; i < plan.n; i++) {
                        result_line(line, sizeof(line), try_one(plan.how[i], plan.paths[i]), plan.paths[i]);
                        any_open = print_result(line) || any_open;
                }
        }
        strv_free(plan.paths);
        free(plan.how);
        return any_open ? 1 : 0;
}
