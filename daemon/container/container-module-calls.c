/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "container/container-module-calls.h"
#include "host/host-root.h"
#include "host/crio.h"
#include "host/proc-syscall.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

bool syscall_text_is_module_call(const char *text) {
        char *end = NULL;
        long nr;

        if (!text)
                return false;
        errno = 0;
        nr = strtol(text, &end, 10);
        if (errno != 0 || end == text || (*end != ' ' && *end != '\n' && *end != '\0'))
                return false; /* "running", or not a number */
        return nr == SYS_init_module || nr == SYS_finit_module || nr == SYS_delete_module;
}

bool comm_is_module_tool(const char *comm) {
        /* kmod's tools (modprobe, insmod, rmmod are its links or busybox's
         * applets), and the driver container's scripts around them
         * (mlnx-ofa_kernel's openibd and mlnxofedctl). */
        static const char *const tools[] = { "insmod", "modprobe", "rmmod", "kmod", "openibd", "mlnxofedctl", NULL };

        return comm && strv_contains((char *const *) tools, comm);
}

static bool numeric(const char *s) {
        if (!*s)
                return false;
        for (; *s; s++)
                if (*s < '0' || *s > '9')
                        return false;
        return true;
}

static bool in_container(const char *pid, const char *id) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        char found[65];

        if (host_pathf(&path, "/proc/%s/cgroup", pid) < 0 || read_full_file(path, &text, NULL) < 0)
                return false;
        return crio_id_from_cgroup(text, found) && streq(found, id);
}

/* The first line of /proc/<pid>/syscall into buf ("running", or the
 * call's number and arguments); false when it cannot be had. */
static bool syscall_line(const char *pid, char *buf, size_t n) {
        _cleanup_close_ int fd = -EBADF;
        ssize_t k;

        if (proc_syscall_open((pid_t) atoi(pid), &fd) < 0)
                return false;
        do
                k = read(fd, buf, n - 1);
        while (k < 0 && errno == EINTR);
        if (k <= 0)
                return false;
        buf[k] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
        return true;
}

static bool in_module_work(const char *pid, char comm[static 16]) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        char sys[256];

        comm[0] = '\0';
        if (host_pathf(&path, "/proc/%s/comm", pid) >= 0 && read_one_line_file(path, &text) >= 0) {
                strncpy(comm, text, 15);
                comm[15] = '\0';
        }
        if (comm_is_module_tool(comm))
                return true;
        /* 0400 and its owner's: opened by the daemon's privileged reader
         * (host/proc-syscall.h), read here (the kernel's ptrace check at
         * the read is the daemon's CAP_SYS_PTRACE). Unreadable means
         * unknown, not a call. */
        return syscall_line(pid, sys, sizeof(sys)) && syscall_text_is_module_call(sys);
}

int container_module_calls(const char *id, ContainerModuleCalls *ret) {
        _cleanup_free_ char *proc = NULL;
        _cleanup_strv_free_ char **pids = NULL;
        int r;

        *ret = (ContainerModuleCalls) {};
        if (!id)
                return 0;
        r = host_path("/proc", &proc);
        if (r < 0)
                return r;
        r = read_dir_names(proc, &pids);
        if (r < 0)
                return r;
        STRV_FOREACH(p, pids) {
                char comm[16];

                if (!numeric(*p) || !in_container(*p, id) || !in_module_work(*p, comm))
                        continue;
                if (ret->n++ == 0) {
                        ret->first_pid = (pid_t) atoi(*p);
                        memcpy(ret->first_comm, comm, sizeof(comm));
                }
        }
        return 0;
}
