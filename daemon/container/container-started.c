/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "container/container-started.h"
#include "host/crio.h"
#include "host/host-root.h"
#include "host/private-path.h"
#include "util/fileio.h"
#include "util/macro.h"

static const char *const runtimes[] = { "runc", "crun", "runsc", "kata-runtime", "youki" };

static bool is_runtime_name(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(runtimes); i++)
                if (streq(name, runtimes[i]))
                        return true;
        return false;
}

bool exe_is_runtime_init(const char *exe_target) {
        static const char deleted[] = " (deleted)";
        char base[PATH_MAX];
        const char *slash;
        size_t n;

        if (!exe_target)
                return false;
        /* runc and crun run from a sealed memfd copy of themselves:
         * "/memfd:runc_cloned:/proc/self/exe (deleted)". */
        if (strstr(exe_target, "runc_cloned:") || strstr(exe_target, "crun_cloned:"))
                return true;
        slash = strrchr(exe_target, '/');
        snprintf(base, sizeof(base), "%s", slash ? slash + 1 : exe_target);
        /* A replaced binary reads "<path> (deleted)". */
        n = strlen(base);
        if (n > strlen(deleted) && streq(base + n - strlen(deleted), deleted))
                base[n - strlen(deleted)] = '\0';
        return is_runtime_name(base);
}

bool comm_is_runtime_init(const char *comm) {
        if (!comm || !*comm)
                return false;
        /* runc's nsexec stages: "runc:[0:PARENT]", "runc:[1:CHILD]", "runc:[2:INIT]". */
        if (strneq(comm, "runc:[", 6) || strneq(comm, "youki:[", 7))
                return true;
        /* A fexecve()d memfd: named after the memfd's dentry, or on older
         * kernels after "/dev/fd/<n>", that is only digits. */
        if (strneq(comm, "memfd:", 6) || strspn(comm, "0123456789") == strlen(comm))
                return true;
        return is_runtime_name(comm);
}

StartSign exe_start_sign(const char *exe_target) {
        if (!exe_target || exe_target[0] != '/')
                return START_SIGN_UNKNOWN;
        if (exe_is_runtime_init(exe_target))
                return START_SIGN_RUNTIME;
        /* "/": runc 1.0 to 1.1.x and crun 1.8.1 (try_bindfd in their
         * cloned_binary.c) re-exec from a read-only bind mount of themselves
         * that they then detach: the init's exe is the root of a detached
         * mount and reads "/" (seen on Linux 6.1). No entrypoint can: "/" is
         * a directory. */
        if (streq(exe_target, "/"))
                return START_SIGN_UNKNOWN;
        return START_SIGN_OTHER;
}

ContainerProcess container_start_classify(const ContainerStartEvidence *ev) {
        if (ev->exec_fifo || ev->exe == START_SIGN_RUNTIME || ev->comm == START_SIGN_RUNTIME)
                return CONTAINER_PROCESS_CREATED;
        if (ev->exe == START_SIGN_OTHER || ev->comm == START_SIGN_OTHER)
                return CONTAINER_PROCESS_STARTED;
        return CONTAINER_PROCESS_UNKNOWN; /* cannot tell: not started yet, for the caller too */
}

int proc_status_name(const char *status, char *ret, size_t n) {
        for (const char *l = status; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
                size_t len;

                if (!strneq(l, "Name:", 5))
                        continue;
                l += 5 + strspn(l + 5, " \t");
                len = strcspn(l, "\n");
                if (len == 0 || len >= n)
                        return -EBADMSG;
                memcpy(ret, l, len);
                ret[len] = '\0';
                return 0;
        }
        return -EBADMSG;
}

static const char *sign_word(StartSign s) {
        return s == START_SIGN_RUNTIME ? "the runtime's" : s == START_SIGN_OTHER ? "not the runtime's" : "unknown";
}

void container_start_evidence_describe(const ContainerStartEvidence *ev, char *buf, size_t n) {
        char exe[96], name[96];

        if (ev->exe == START_SIGN_UNKNOWN && ev->exe_errno)
                snprintf(exe, sizeof(exe), "unreadable: %s", strerror(ev->exe_errno));
        else
                snprintf(exe, sizeof(exe), "%s", sign_word(ev->exe));
        if (ev->name[0])
                snprintf(name, sizeof(name), "\"%s\"", ev->name);
        else if (ev->comm_errno == EBADMSG)
                snprintf(name, sizeof(name), "unknown (no Name: line in its status)");
        else if (ev->comm_errno)
                snprintf(name, sizeof(name), "unreadable: %s", strerror(ev->comm_errno));
        else
                snprintf(name, sizeof(name), "?");
        snprintf(buf, n, "process name %s, exe %s, exec fifo %s", name, exe, ev->exec_fifo ? "present" : "absent");
}

static void read_exe(pid_t pid, ContainerStartEvidence *ev) {
        _cleanup_free_ char *path = NULL;
        char target[PATH_MAX];
        ssize_t n;

        if (host_pathf(&path, "/proc/%d/exe", (int) pid) < 0) {
                ev->exe_errno = ENOMEM;
                return;
        }
        n = readlink(path, target, sizeof(target) - 1);
        if (n < 0) {
                /* EACCES: the ptrace read check failed (a non-dumpable
                 * init, and we without CAP_SYS_PTRACE); ENOENT: /proc hides
                 * it, or a fake root scripts none. Neither is a start. */
                ev->exe_errno = errno;
                return;
        }
        target[n] = '\0';
        ev->exe = exe_start_sign(target);
}

static void read_comm(pid_t pid, ContainerStartEvidence *ev) {
        _cleanup_free_ char *path = NULL, *status = NULL;
        int r;

        r = host_pathf(&path, "/proc/%d/status", (int) pid);
        if (r >= 0)
                r = read_full_file(path, &status, NULL);
        if (r >= 0)
                r = proc_status_name(status, ev->name, sizeof(ev->name));
        if (r < 0) {
                ev->name[0] = '\0';
                ev->comm_errno = -r;
                return;
        }
        ev->comm = comm_is_runtime_init(ev->name) ? START_SIGN_RUNTIME : START_SIGN_OTHER;
}

/* Looked at through host/private-path.h: the runtimes' roots are root's
 * 0700, so the daemon's privileged reader looks. */
static bool exec_fifo_exists(const char *id) {
        PrivatePath fifo;

        if (!id)
                return false;
        for (size_t i = 0; (fifo = private_path_fifo(i)); i++)
                /* Anything but "no such file" counts as present: started is
                 * decided on positive evidence only (fail closed; a reader
                 * that is gone included). */
                if (private_path_exists(NULL, fifo, id) != 0)
                        return true;
        return false;
}

ContainerProcess container_process_state(pid_t pid, const char *id, ContainerStartEvidence *ret_ev) {
        ContainerStartEvidence ev = { 0 };

        /* /proc may hide a process we may not trace (ProtectProc=): only the
         * kernel's "no such process" means gone. A fake root's pids are
         * scripted: never gone there. */
        if (host_root_is_real() && kill(pid, 0) < 0 && errno == ESRCH) {
                if (ret_ev)
                        *ret_ev = ev;
                return CONTAINER_PROCESS_GONE;
        }
        read_exe(pid, &ev);
        read_comm(pid, &ev);
        ev.exec_fifo = exec_fifo_exists(id);
        if (ret_ev)
                *ret_ev = ev;
        return container_start_classify(&ev);
}

bool container_pid_running(pid_t pid) {
        return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}
