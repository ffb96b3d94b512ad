/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <syslog.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "container/container-match.h"
#include "container/container-privilege.h"
#include "publish/log.h"
#include "publish/report.h"
#include "host/host-root.h"
#include "util/fileio.h"
#include "util/macro.h"

int proc_status_capeff(const char *status, uint64_t *ret) {
        for (const char *l = status; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
                const char *v;
                char *end = NULL;
                uint64_t mask;

                if (!strneq(l, "CapEff:", 7))
                        continue;
                v = l + 7 + strspn(l + 7, " \t");
                if (strspn(v, "0123456789abcdefABCDEF") != 16)
                        return -EBADMSG; /* the kernel prints exactly 16 hex digits */
                errno = 0;
                mask = strtoull(v, &end, 16);
                if (errno || (*end && *end != '\n'))
                        return -EBADMSG;
                *ret = mask;
                return 0;
        }
        return -EBADMSG;
}

static int same_user_namespace(pid_t pid, bool *ret) {
        _cleanup_free_ char *ours = NULL, *host = NULL;
        struct stat a, b;
        int r;

        r = host_pathf(&ours, "/proc/%d/ns/user", (int) pid);
        if (r >= 0)
                r = host_path("/proc/1/ns/user", &host);
        if (r < 0)
                return r;
        /* stat follows the nsfs link: one namespace, one (device, inode). */
        if (stat(ours, &a) < 0 || stat(host, &b) < 0)
                return -errno;
        *ret = a.st_dev == b.st_dev && a.st_ino == b.st_ino;
        return 0;
}

int container_privilege_read(pid_t pid, ContainerPrivilege *ret) {
        _cleanup_free_ char *path = NULL, *status = NULL;
        ContainerPrivilege p = {};
        uint64_t capeff;
        int r;

        if (pid <= 1)
                return -EINVAL;
        r = host_pathf(&path, "/proc/%d/status", (int) pid);
        if (r >= 0)
                r = read_full_file(path, &status, NULL);
        if (r >= 0)
                r = proc_status_capeff(status, &capeff);
        if (r < 0)
                return r;
        p.cap_sys_module = capeff & (UINT64_C(1) << CAP_SYS_MODULE_BIT);
        r = same_user_namespace(pid, &p.host_userns);
        if (r < 0)
                return r;
        *ret = p;
        return 0;
}

const char *container_privilege_missing(const ContainerPrivilege *p) {
        if (!p->cap_sys_module && !p->host_userns)
                return "no CAP_SYS_MODULE in CapEff and not in the host's user namespace";
        if (!p->cap_sys_module)
                return "no CAP_SYS_MODULE in CapEff";
        if (!p->host_userns)
                return "not in the host's user namespace";
        return "nothing";
}

int container_root_open(pid_t pid, int pidfd, int *ret_fd) {
        _cleanup_free_ char *path = NULL;
        _cleanup_close_ int fd = -EBADF;
        int r;

        r = host_pathf(&path, "/proc/%d/root", (int) pid);
        if (r < 0)
                return r;
        fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        /* After the open: if the pidfd's process is still alive, the pid
         * was not reused, and the root is its root. Signal 0 sends nothing;
         * EPERM (we run without CAP_KILL, as another user) still says
         * "alive": ESRCH is the kernel's answer for a process that is gone. */
        if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0 && errno != EPERM)
                return errno == ESRCH ? -ESRCH : -errno;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

static void refused(const ContainerIdentity *c, pid_t pid, const char *why) {
        (void) report_event(LOG_WARNING, SWAPGUARD_MESSAGE_CONTAINER_REFUSED,
                            &(ReportFields) { .pid = pid, .container_id = c->id, .pod = c->pod_name },
                            "Container %.12s (%s/%s in namespace %s, pid %d) matches, but is not privileged (%s): "
                            "refusing to load kernel code from it.",
                            c->id, c->pod_name, c->container_name, c->pod_namespace, (int) pid, why);
}

bool container_privilege_allows(const ContainerIdentity *c, pid_t pid) {
        _cleanup_free_ char *why = NULL;
        ContainerPrivilege p;
        int r;

        r = container_privilege_read(pid, &p);
        if (r < 0) {
                if (asprintf(&why, "cannot read it: %s", strerror(-r)) < 0)
                        why = NULL;
                refused(c, pid, why ?: "cannot read it");
                return false;
        }
        if (!container_privilege_trusted(&p)) {
                refused(c, pid, container_privilege_missing(&p));
                return false;
        }
        return true;
}
