/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Who may give us kernel code. The daemon loads modules from a container's
 * filesystem with CAP_SYS_MODULE; that grants the container nothing only if
 * it could load them itself: its init process holds CAP_SYS_MODULE in its
 * effective set and lives in the host's user namespace (a capability in a
 * child user namespace does not reach the kernel's module loader). A
 * container that merely matches namespace, container name and pod prefix
 * (anyone allowed to create pods there can do that) is refused.
 *
 * Every path goes through host_path(); the pid comes from CRI-O's pidfile,
 * and the caller confirms with its pidfd that the process read is the one
 * it follows (container_root_open). */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define CAP_SYS_MODULE_BIT 16 /* linux/capability.h */

typedef struct ContainerPrivilege {
        bool cap_sys_module; /* CapEff of its init holds CAP_SYS_MODULE */
        bool host_userns;    /* /proc/<pid>/ns/user is /proc/1/ns/user (device and inode) */
} ContainerPrivilege;

/* Pure: the CapEff mask of a /proc/<pid>/status text. 0 with *ret, or
 * -EBADMSG when there is no well-formed CapEff: line. */
int proc_status_capeff(const char *status, uint64_t *ret);

/* Reads both facts for pid. 0 with *ret, or -errno (-ENOENT: the process is
 * gone; any error means "not shown to be privileged"). */
int container_privilege_read(pid_t pid, ContainerPrivilege *ret);

static inline bool container_privilege_trusted(const ContainerPrivilege *p) {
        return p->cap_sys_module && p->host_userns;
}

/* What is missing, for the warning: "no CAP_SYS_MODULE in CapEff", ... */
const char *container_privilege_missing(const ContainerPrivilege *p);

/* The container's root directory as an fd: /proc/<pid>/root opened as a
 * directory, then the pidfd asked whether its process is still alive
 * (pidfd_send_signal(pidfd, 0): ESRCH when gone): a pid reused between pidfd_open() and the
 * open would otherwise give another process's root. 0 with *ret_fd, -ESRCH
 * when the process is gone, or -errno from the open (-ENOENT: no root). */
int container_root_open(pid_t pid, int pidfd, int *ret_fd);

typedef struct ContainerIdentity ContainerIdentity;

/* The daemon's decision for a matching container whose init is pid: true
 * when it may give us kernel code. When not, a warning names it (pod,
 * container, namespace, id) and says what it lacks. Logs; daemon only. */
bool container_privilege_allows(const ContainerIdentity *c, pid_t pid);
