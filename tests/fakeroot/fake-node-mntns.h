/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Mount namespaces other than the host's (fake-node-mntns.c); part of
 * fake-node.h. As the kernel shows them: /proc/<pid>/ns/mnt is a link
 * whose text is "mnt:[<inode>]", one inode per namespace (pid 1's is the
 * host's), and /proc/<pid>/mountinfo is that namespace's table. */

#include <sys/types.h>

typedef struct FakeNode FakeNode;

/* The inode of the host's mount namespace in a fake node (pid 1's). */
#define FAKE_NODE_HOST_MNT_NS 4026531841ULL

/* Puts pid in mount namespace ns: proc/<pid>/ns/mnt, proc/<pid>/comm, and
 * (when it has none yet) a mountinfo copied from proc/1/mountinfo, as
 * `unshare -m` copies the table; pid 1's link is made first when missing. */
int fake_node_set_mount_namespace(FakeNode *n, pid_t pid, unsigned long long ns, const char *comm);
/* A mount of /dev/<dev> only pid's namespace shows (a line in its
 * mountinfo), and the device claimed (dev/.busy/<dev>): the kernel's
 * exclusive open says EBUSY for it as for any mount. */
int fake_node_add_namespace_mount(FakeNode *n, pid_t pid, const char *dev, const char *mountpoint, const char *fstype);
