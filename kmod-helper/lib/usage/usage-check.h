/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Is any NVMe namespace or partition in use, and by what? The guard's
 * answer, assembled from every source we know: the host's mount table
 * (/proc/1/mountinfo, matched by devno and by source path), the mount table
 * of every other mount namespace (one per namespace, mount-namespaces.h:
 * a service's or a container's private copy of a mount the host no longer
 * has), /proc/swaps, stacked block devices (holders/, recursively: dm, md,
 * LVM), processes with the device open (/proc/<pid>/fd), and the kernel's
 * own answer, the last word for what no table shows: an exclusive open that
 * fails with EBUSY (a lazily unmounted filesystem still in use, a mount in
 * a namespace we could not read).
 *
 * Fail closed: a device we could not check (an exclusive open failing with
 * anything but EBUSY, except a device that is gone and that sysfs no longer
 * lists; /proc/<pid>/fd of some process unreadable) is a USAGE_UNCHECKED
 * blocker, "could not check <device>: <reason>", never "free". */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "nvme/nvme-block-devices.h"
#include "util/macro.h"

typedef enum UsageKind {
        USAGE_MOUNTED,          /* where = mount point, what = fstype */
        USAGE_SWAP,             /* where = swap device or file as /proc/swaps names it */
        USAGE_HOLDER,           /* where = friendly name (dm name, md name), what = kernel name (dm-0) */
        USAGE_OPEN_BY_PROCESS,  /* pid, where = command (comm) */
        USAGE_KERNEL_CLAIM,     /* exclusive open failed with EBUSY and nothing above explains it */
        USAGE_UNCHECKED,        /* a check could not be made (what = the reason): the guard fails
                                   closed, an unknown counts as in use */
        _USAGE_KIND_MAX,
        _USAGE_KIND_INVALID = -EINVAL,
} UsageKind;

/* The processes named for a mount namespace: a few, and the count. */
#define USAGE_NAMESPACE_NAMED 3

/* A mount seen only in another mount namespace than the host's (pid 1's):
 * whose namespace it is. */
typedef struct UsageMountNamespace {
        uint64_t inode;                        /* /proc/<pid>/ns/mnt reads "mnt:[inode]" */
        size_t n_processes;                    /* processes in that namespace */
        size_t n_named;
        pid_t pids[USAGE_NAMESPACE_NAMED];     /* the first few, ascending */
        char *commands[USAGE_NAMESPACE_NAMED]; /* their comm; "?" for one gone meanwhile */
        /* The CRI-O container one of them runs in (its cgroup's
         * crio-<id>.scope), NULL when none; the rest from the store's
         * config.json, NULL when it could not be read. */
        char *container_id;
        char *pod_namespace, *pod_name, *container_name;
} UsageMountNamespace;

typedef struct Usage {
        UsageKind kind;
        char *device; /* the NVMe block device used: "nvme0n1p1" */
        char *where;
        char *what;
        pid_t pid;    /* 0 unless USAGE_OPEN_BY_PROCESS */
        /* USAGE_HOLDER only, else NULL: the holder is itself in use, mounted
         * on mount_point (fstype), or as swap (mount_point "[SWAP]", fstype
         * "swap"); via names the stacked device that is mounted when it is not
         * the direct holder ("dm-1 (vg0-root)"). */
        char *mount_point;
        char *fstype;
        char *via;
        /* USAGE_MOUNTED only, else NULL: the mount is in another mount
         * namespace than the host's (where = the mount point as that
         * namespace sees it); pid is then its first process's. */
        UsageMountNamespace *mount_ns;
} Usage;

typedef struct UsageReport {
        NvmeBlockDevices *devices; /* what was checked */
        Usage *usages;             /* everything found, in device order */
        size_t n_usages;
        char **notes;              /* NULL-terminated: checks that could not be made fully
                                      (e.g. a /proc/<pid>/fd we could not read) */
} UsageReport;

const char *usage_kind_to_string(UsageKind k);

/* One line an operator can act on: "nvme0n1p1 is mounted on /var/lib/data (xfs)". */
int usage_describe(const Usage *u, char **ret);

/* Checks every NVMe block device. 0 or -errno; *ret untouched on failure. */
int usage_check(UsageReport **ret);
/* The same while we hold exclusive claims of the namespaces named in held
 * (claim-hold.h): those and their partitions are not probed with an
 * exclusive open (ours is the only claim there can be); every other source
 * still looks at them (a process holding one open without O_EXCL). */
int usage_check_holding(char *const *held, UsageReport **ret);
UsageReport *usage_report_free(UsageReport *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(UsageReport *, usage_report_free);
bool usage_report_in_use(const UsageReport *r);
/* Whether any usage names this device or one of its partitions. */
bool usage_report_device_in_use(const UsageReport *r, const char *namespace_name);
