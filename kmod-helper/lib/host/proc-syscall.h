/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The open of /proc/<pid>/syscall: which system call a process is in (the
 * daemon asks whether a driver container's process is inside
 * finit_module() or delete_module()). Apart because the file is 0400 and
 * its owner's (root's for a container's processes): the open needs
 * CAP_DAC_READ_SEARCH, which the daemon gives up once its privileged reader
 * is forked (sandbox/daemon-capabilities.h). The daemon asks the reader
 * (sandbox/privileged-reader.h), which opens with proc_syscall_open_direct()
 * and passes the fd back; the read itself is checked by the kernel against
 * the reader of the fd (a ptrace attach check, which the daemon's
 * CAP_SYS_PTRACE passes), not the opener. Elsewhere the process opens
 * itself.
 *
 * The request is a pid, nothing else: the path is host_path("/proc") and
 * the pid's decimal digits and "syscall", opened O_NOFOLLOW and checked to
 * be a regular file.
 *
 * Library code: no logging. */

#include <stdbool.h>
#include <sys/types.h>

/* Whether pid can be a process's (1 .. PROCESS_PID_MAX). */
bool proc_syscall_pid_valid(pid_t pid);

/* Opens host_path("/proc/<pid>/syscall") read-only. 0 with *ret_fd
 * (O_CLOEXEC), or -EINVAL for a pid that is none, -EBADMSG for what is no
 * regular file, the open's own -errno (-ENOENT: gone; -EACCES: not ours to
 * read). */
int proc_syscall_open_direct(pid_t pid, int *ret_fd);

/* Who opens: by default this process; the daemon sets its reader here. A
 * source answers as the direct open does, or with another negative errno
 * when it could not ask. NULL restores the default. */
typedef int (*ProcSyscallSource)(void *userdata, pid_t pid, int *ret_fd);
void proc_syscall_set_source(ProcSyscallSource source, void *userdata);

/* Through the source set above. */
int proc_syscall_open(pid_t pid, int *ret_fd);
