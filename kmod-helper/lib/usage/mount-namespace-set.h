/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The node's mount namespaces, each once: every process's
 * /proc/<pid>/ns/mnt link ("mnt:[4026532301]", one inode per namespace)
 * read and grouped, so that a caller reads one mount table per namespace
 * (the first live pid's /proc/<pid>/mountinfo), not one per process. A
 * node has thousands of processes and tens of namespaces: the cost is one
 * readlink per process, then work per namespace.
 *
 * The host's namespace is pid 1's. Threads that unshared their own
 * namespace are not seen (only thread group leaders are in /proc): the
 * kernel's exclusive open still catches what they mount. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Unreadable links are reported with the first few pids named. */
#define MOUNT_NAMESPACE_UNREADABLE_NAMED 8

typedef struct MountNamespace {
        uint64_t inode; /* from "mnt:[<inode>]" */
        pid_t *pids;    /* ascending */
        size_t n_pids;
} MountNamespace;

typedef struct MountNamespaceSet {
        MountNamespace *namespaces; /* ascending by inode */
        size_t n_namespaces;
        uint64_t host_inode;        /* pid 1's; meaningful only when has_host */
        bool has_host;
        size_t n_processes;         /* processes whose namespace was read */
        size_t n_unreadable;        /* links that exist but could not be read (EACCES, EPERM, odd text) */
        int unreadable_errno;       /* positive errno of the first of those */
        pid_t unreadable[MOUNT_NAMESPACE_UNREADABLE_NAMED];
} MountNamespaceSet;

/* Pure: "mnt:[4026531840]" -> 4026531840. -EINVAL for anything else. */
int mount_namespace_parse_link(const char *text, uint64_t *ret);

/* Reads /proc/<pid>/ns/mnt of every process under the host root. A process
 * gone meanwhile (ENOENT, ESRCH) is skipped; pid 1's link unreadable or
 * absent leaves has_host false (which namespace is the host's is then
 * unknown; the caller says so). 0, or -errno when /proc cannot be listed;
 * *ret is always initialized (empty on failure). */
int mount_namespace_set_read(MountNamespaceSet *ret);
void mount_namespace_set_done(MountNamespaceSet *s);

/* The namespace with this inode, or NULL. */
const MountNamespace *mount_namespace_set_find(const MountNamespaceSet *s, uint64_t inode);
