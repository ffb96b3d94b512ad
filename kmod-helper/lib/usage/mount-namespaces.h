/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Mounts that only another mount namespace than the host's shows: a
 * service started while a file system was mounted (its namespace's copy
 * does not follow the host's umount), a container whose hostPath volume
 * took a private copy, an agent that binds /. The kernel keeps the device
 * claimed, so the exclusive open says busy; this source says by whom.
 *
 * Each distinct namespace is read once (mount-namespace-set.h: processes
 * grouped by /proc/<pid>/ns/mnt), through its first live process's
 * /proc/<pid>/mountinfo, parsed with libmount (escapes such as \040 in
 * mount points decoded), matched like the host's table (by devno, else by
 * source path). A device the host's table already shows mounted is not
 * named again from the copies other namespaces hold of that mount. For a
 * match the usage names the namespace's processes (a few, and the count)
 * and the CRI-O container one of them runs in (process-container.h).
 *
 * What cannot be read is a note, never a blocker: the kernel's exclusive
 * open (run after this source) still catches every mount of a namespace we
 * could not look into, only without a name. */

#include "usage/usage-scan.h"

/* Every namespace but the host's, matched into the scan. Runs after the
 * host's table (mount_users_read()) and before holder_set_to_usages().
 * 0 or -ENOMEM. */
int mount_namespaces_read(UsageScan *s);

/* Statistics of the last mount_namespaces_read() of this process (for the
 * benchmark): namespaces seen and mount tables parsed. */
typedef struct MountNamespacesStats {
        size_t processes, namespaces, tables_read;
} MountNamespacesStats;
MountNamespacesStats mount_namespaces_last_stats(void);
