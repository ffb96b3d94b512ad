/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Is any NVMe namespace or partition in use, and by what? The guard's
 * answer, assembled from every source we know: the host's mount table
 * (/proc/1/mountinfo, matched by devno and by source path), /proc/swaps,
 * stacked block devices (holders/, recursively: dm, md, LVM), processes with
 * the device open (/proc/<pid>/fd), and the kernel's own answer: an
 * exclusive open that fails with EBUSY (covers mounts in other mount
 * namespaces and lazily unmounted filesystems that no table shows).
 *
 * Fail closed: a device we could not check (an exclusive open failing with
 * anything but EBUSY, except a device that is gone and that sysfs no longer
 * lists; /proc/<pid>/fd of some process unreadable) is a USAGE_UNCHECKED
 * blocker, "could not check <device>: <reason>", never "free". */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
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
