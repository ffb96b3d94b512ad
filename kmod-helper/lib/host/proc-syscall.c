/* SPDX-License-Identifier: Apache-2.0 */
/* The open of /proc/<pid>/syscall, checked (the design: proc-syscall.h). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/host-root.h"
#include "host/proc-syscall.h"
#include "usage/process-fds.h"
#include "util/macro.h"

static ProcSyscallSource syscall_source;
static void *syscall_source_userdata;

void proc_syscall_set_source(ProcSyscallSource source, void *userdata) {
        syscall_source = source;
        syscall_source_userdata = userdata;
}

bool proc_syscall_pid_valid(pid_t pid) {
        return pid > 0 && pid <= PROCESS_PID_MAX;
}

int proc_syscall_open_direct(pid_t pid, int *ret_fd) {
        _cleanup_free_ char *path = NULL;
        _cleanup_close_ int fd = -EBADF;
        struct stat st;

        if (!proc_syscall_pid_valid(pid))
                return -EINVAL;
        if (host_pathf(&path, "/proc/%d/syscall", (int) pid) < 0)
                return -ENOMEM;
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADMSG;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int proc_syscall_open(pid_t pid, int *ret_fd) {
        if (syscall_source)
                return syscall_source(syscall_source_userdata, pid, ret_fd);
        return proc_syscall_open_direct(pid, ret_fd);
}
